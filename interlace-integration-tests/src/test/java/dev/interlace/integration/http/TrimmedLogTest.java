package dev.interlace.integration.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.interlace.log.kafka.testing.KafkaCluster;
import dev.interlace.runtime.flush.Flusher;
import dev.interlace.runtime.log.EventLog;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A warehouse that comes back behind a log trimmed past its watermark (here: an old copy of the warehouse put back
 * while the log went on and was trimmed) would skip the trimmed events and keep a hole for good. Its flush of the
 * stream stops instead, saying so in the stream's description, {@code /health/ready}, a system record and a metric;
 * the warehouse keeps exactly what it had. On both logs.
 */
class TrimmedLogTest {

    private static final Duration DRAIN = Duration.ofSeconds(60);

    @TempDir
    Path directory;

    @Test
    void aWarehouseBehindATrimmedSqliteLogStopsItsFlushInsteadOfSkippingEvents() throws IOException {
        behindATrimmedLog();
    }

    @Test
    void aWarehouseBehindATrimmedKafkaLogStopsItsFlushInsteadOfSkippingEvents() throws IOException {
        String prefix = "trimmed-" + UUID.randomUUID().toString().substring(0, 8) + ".";
        behindATrimmedLog("--log", "kafka", "--kafka-bootstrap", KafkaCluster.shared().bootstrap(),
                "--kafka-topic-prefix", prefix, "--kafka-replication-factor", "1", "--kafka-min-insync-replicas", "1",
                "--advertise-url", "http://127.0.0.1:9"); // one node: nothing is forwarded to it
    }

    private void behindATrimmedLog(String... flags) throws IOException {
        Path data = directory.resolve("data");
        Path old = Files.createDirectories(directory.resolve("old"));
        try (TestServer server = TestServer.start(data, flags)) {
            publish(server, "a", 10);
            assertThat(server.server.instance(Flusher.class).drain(DRAIN)).isTrue();
        }
        copyWarehouse(data, old); // the warehouse through offset 10
        try (TestServer server = TestServer.start(data, flags)) {
            publish(server, "b", 10);
            assertThat(server.server.instance(Flusher.class).drain(DRAIN)).isTrue();
            // What the retention sweep does once every event is materialised and out of the deduplication window.
            assertThat(server.server.instance(EventLog.class).trim("orders", 15)).isEqualTo(15);
            assertThat(server.get("/streams/orders").body().get("earliest").asLong()).isEqualTo(16);
        }
        copyWarehouse(old, data); // back to offset 10, while the log starts at 16

        try (TestServer server = TestServer.start(data, flags)) {
            JsonNode stream = server.await("orders", body -> !body.get("flush_state").asText().equals("idle")
                    && !body.get("flush_state").asText().equals("flushing"));
            assertThat(stream.get("flush_state").asText()).as(stream.toString()).isEqualTo("stopped");
            assertThat(stream.get("watermark").asLong()).isEqualTo(10);
            assertThat(stream.get("flush_error").asText()).contains("stream orders", "through offset 10",
                    "the log's first is 16", "events 11-15", "docs/operations.md");
            assertThat(server.server.instance(Flusher.class).drain(Duration.ofSeconds(5))).as("not waited for")
                    .isFalse();

            TestServer.Response rows = server.post("/sql", "text/plain",
                    "SELECT count(*), max(_offset) FROM streams.orders");
            assertThat(rows.status()).as(rows.body().toString()).isEqualTo(200);
            assertThat(rows.body().get("rows").get(0).toString()).as("no hole: the rows it had, nothing after")
                    .isEqualTo("[10,10]");

            TestServer.Response ready = server.get("/health/ready");
            assertThat(ready.status()).isEqualTo(503);
            assertThat(ready.body().get("reasons").toString()).contains("flush_stopped: stream orders",
                    "the log's first is 16");

            TestServer.Response records = server.get("/logs/sys?event=flush_stopped");
            assertThat(records.body().get("records")).as(records.body().toString()).hasSize(1);
            assertThat(records.body().get("records").get(0).get("stream").asText()).isEqualTo("orders");

            TestServer.Response metrics = server.get("/metrics");
            assertThat(metrics.body().asText()).contains("interlace_flush_stopped_total{stream=\"orders\"} 1.0");
        }
    }

    private static void publish(TestServer server, String prefix, int count) {
        List<String> orders = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            orders.add("{\"order_id\": \"" + prefix + i + "\", \"total\": " + (i + 1) + "}");
        }
        TestServer.Response answer = server.postJson("/streams/orders", "[" + String.join(",", orders) + "]");
        assertThat(answer.status()).as(String.valueOf(answer.body())).isEqualTo(200);
    }

    /** Copies the warehouse's files of a stopped server from one directory to another. */
    private static void copyWarehouse(Path from, Path to) throws IOException {
        for (String name : List.of("warehouse.duckdb", "warehouse.duckdb.wal")) {
            Files.deleteIfExists(to.resolve(name));
            if (Files.exists(from.resolve(name))) {
                Files.copy(from.resolve(name), to.resolve(name), StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }
}
