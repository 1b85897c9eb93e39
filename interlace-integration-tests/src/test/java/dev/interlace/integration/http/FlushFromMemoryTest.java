package dev.interlace.integration.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.interlace.integration.ClicksStream;
import dev.interlace.integration.OrdersStream;
import dev.interlace.integration.decoding.AllTypesStream;
import dev.interlace.integration.decoding.EvolvingStream;
import dev.interlace.runtime.stream.StreamCatalog;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The flusher materialises the events this process acknowledged from memory, decoded when they were published, and
 * reads the log only for what memory does not hold: a restart over the same log without its warehouse writes every
 * row again from the log, and both warehouses hold the same rows, cell for cell.
 */
class FlushFromMemoryTest {

    /** The example's streams (its models read them) and two with every column type and undeclared fields. */
    private static final StreamCatalog CATALOG = StreamCatalog.of(List.of(OrdersStream.DESCRIPTOR,
            ClicksStream.DESCRIPTOR, AllTypesStream.DESCRIPTOR, EvolvingStream.DESCRIPTOR));
    private static final List<String> STREAMS = List.of("decoding_all_types", "decoding_evolving");

    @TempDir
    Path first;

    @TempDir
    Path second;

    @Test
    void rowsFlushedFromMemoryAreTheRowsTheLogGivesBack() throws IOException {
        String fromMemory;
        try (TestServer api = TestServer.startWith(first, CATALOG, "--flush-delay-ms", "300")) {
            // A duplicate inside a request takes no offset: the request's accepted events still follow each other.
            assertThat(api.postJson("/streams/decoding_all_types", "[{\"s\":\"a\",\"b\":9007199254740993,"
                    + "\"d\":1.0E-7,\"m\":\"12.5\",\"f\":true,\"t\":\"2026-12-03T10:15:30.123456+02:00\","
                    + "\"day\":\"2026-02-28\",\"j\":{\"k\":[1,{\"z\":null}],\"u\":\"\\u00e9\"},\"class\":\"x\"},"
                    + "{\"s\":\"b\",\"m\":-0.01},{\"s\":\"a\",\"b\":1},{\"s\":\"z\\u00fcrich \\u2713\",\"j\":[]}]")
                    .body().get("accepted").asInt()).isEqualTo(3);
            assertThat(api.postJson("/streams/decoding_all_types", "{\"s\":\"b\"}").body().get("deduplicated")
                    .asInt()).isEqualTo(1);
            api.postJson("/streams/decoding_all_types", "{\"s\":null,\"t\":\"2026-01-01T00:00:00Z\"}");
            api.post("/streams/decoding_evolving", "application/x-ndjson",
                    "{\"s\":\"e1\",\"n\":1,\"size\":3,\"colour\":\"red\"}\n{\"s\":\"e2\",\"n\":2,\"size\":4}\n");
            api.postJson("/streams/decoding_evolving", "{\"n\":3,\"tags\":[\"x\",{\"y\":2}]}");
            for (String stream : STREAMS) {
                assertThat(api.awaitFlushed(stream).get("pending").asLong()).isZero();
            }
            assertThat(fromLog(api, "decoding_all_types")).as("rows read back from the log").isZero();
            assertThat(fromLog(api, "decoding_evolving")).isZero();
            fromMemory = rows(api);
        }
        try (Stream<Path> files = Files.list(first)) {
            for (Path file : files.filter(file -> !file.getFileName().toString().startsWith("warehouse"))
                    .filter(Files::isRegularFile).toList()) {
                Files.copy(file, second.resolve(file.getFileName()));
            }
        }
        try (TestServer api = TestServer.startWith(second, CATALOG)) {
            for (String stream : STREAMS) {
                assertThat(api.awaitFlushed(stream).get("pending").asLong()).isZero();
            }
            assertThat(fromLog(api, "decoding_all_types")).isEqualTo(4);
            assertThat(fromLog(api, "decoding_evolving")).isEqualTo(3);
            assertThat(rows(api)).isEqualTo(fromMemory);
        }
        assertThat(fromMemory).contains("\"a\"", "12.50", "2026-12-03T08:15:30.123456Z", "z\u00fcrich \u2713",
                "\"red\"");
    }

    @Test
    void aBacklogOfLargeEventsIsReadFromTheLogInBatchesBoundedByBytes() throws IOException {
        String large = "x".repeat(20_000);
        try (TestServer api = TestServer.startWith(first, CATALOG)) {
            for (int i = 0; i < 12; i++) {
                assertThat(api.postJson("/streams/decoding_all_types", "{\"s\":\"" + i + large + "\"}").status())
                        .isEqualTo(200);
            }
        }
        try (Stream<Path> files = Files.list(first)) {
            for (Path file : files.filter(file -> !file.getFileName().toString().startsWith("warehouse"))
                    .filter(Files::isRegularFile).toList()) {
                Files.copy(file, second.resolve(file.getFileName()));
            }
        }
        // 64 KiB a batch: three events of 20 kB stay under it, the fourth reaches it and ends the batch.
        try (TestServer api = TestServer.startWith(second, CATALOG, "--flush-batch-bytes", "65536")) {
            assertThat(api.awaitFlushed("decoding_all_types").get("pending").asLong()).isZero();
            assertThat(fromLog(api, "decoding_all_types")).isEqualTo(12);
            JsonNode rows = sql(api, "SELECT count(*), count(DISTINCT _offset), min(length(s)), max(length(s))"
                    + " FROM streams.decoding_all_types");
            assertThat(rows.toString()).isEqualTo("[[12,12,20001,20002]]");
            JsonNode flushes = sql(api, "SELECT count(*), max(\"rows\"), sum(\"rows\") FROM interlace.flushes"
                    + " WHERE stream = 'decoding_all_types' AND target = 'events' AND committed_at IS NOT NULL");
            assertThat(flushes.get(0).get(0).asInt()).as(flushes.toString()).isGreaterThanOrEqualTo(3);
            assertThat(flushes.get(0).get(1).asInt()).as(flushes.toString()).isEqualTo(4);
            assertThat(flushes.get(0).get(2).asInt()).as(flushes.toString()).isEqualTo(12);
        }
    }

    private static JsonNode sql(TestServer api, String query) {
        TestServer.Response response = api.post("/sql", "text/plain", query);
        assertThat(response.status()).as(response.body().toString()).isEqualTo(200);
        return response.body().get("rows");
    }

    /** Every column of both streams' rows, bookkeeping columns included, as the SQL route answers them. */
    private static String rows(TestServer api) {
        StringBuilder all = new StringBuilder();
        for (String stream : STREAMS) {
            TestServer.Response response = api.post("/sql", "text/plain",
                    "SELECT * FROM streams." + stream + " ORDER BY _offset");
            assertThat(response.status()).as(response.body().toString()).isEqualTo(200);
            JsonNode body = response.body();
            assertThat(body.get("rows")).as(stream).hasSize(stream.equals("decoding_all_types") ? 4 : 3);
            all.append(body.get("columns")).append(body.get("rows")).append('\n');
        }
        return all.toString();
    }

    private static double fromLog(TestServer api, String stream) {
        try {
            HttpResponse<String> response = api.client.send(api.request("/metrics").GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            return PrometheusText.parse(response.body()).value("interlace_flush_rows_from_log_total", "stream", stream);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
