package dev.interlace.integration.http;

import static dev.interlace.integration.ApiAnswer.assertError;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.interlace.client.ErrorCode;
import dev.interlace.integration.ClicksStream;
import dev.interlace.integration.OrdersStream;
import dev.interlace.runtime.log.SqliteStreamLog;
import dev.interlace.runtime.log.StreamLog;
import dev.interlace.runtime.stream.StreamCatalog;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code GET /streams}, {@code GET /streams/{name}}, health, routing, the log's settings and restarts. */
class StreamsApiTest {

    @TempDir
    Path dataDirectory;

    @Test
    void listingStreamsGivesEveryDeclaredStreamWithCountAndTotal() {
        try (TestServer api = TestServer.start(dataDirectory)) {
            JsonNode body = api.get("/streams").body();
            List<String> names = new ArrayList<>();
            body.get("streams").forEach(stream -> names.add(stream.get("name").asText()));
            assertThat(names).containsExactly("clicks", "decoding_evolving", "orders");
            assertThat(body.get("count").asInt()).isEqualTo(3);
            assertThat(body.get("total").asInt()).isEqualTo(3);
        }
    }

    @Test
    void aStreamDescribesItsSchemaPositionsAndRecentEventsNewestFirst() {
        try (TestServer api = TestServer.start(dataDirectory)) {
            StringBuilder batch = new StringBuilder("[");
            for (int i = 1; i <= 25; i++) {
                batch.append(i == 1 ? "" : ",").append("{\"order_id\":\"o").append(i).append("\",\"total\":\"")
                        .append(i).append(".5\"}");
            }
            api.postJson("/streams/orders", batch.append("]").toString());

            JsonNode orders = api.get("/streams/orders").body();
            assertThat(orders.get("name").asText()).isEqualTo("orders");
            assertThat(orders.get("table").asText()).isEqualTo("streams.orders");
            assertThat(orders.get("schema").toString()).isEqualTo("{\"order_id\":\"string not null\","
                    + "\"total\":\"decimal(12,2)\",\"placed_at\":\"timestamp\",\"meta\":\"json\"}");
            assertThat(orders.get("idempotency_key").asText()).isEqualTo("order_id");
            assertThat(orders.get("retention").asText()).isEqualTo("7d");
            assertThat(orders.get("retention_ms").asLong()).isEqualTo(604_800_000L);
            assertThat(orders.get("on_schema_drift").asText()).isEqualTo("reject");
            assertThat(orders.get("head").asLong()).isEqualTo(25);
            assertThat(orders.get("pending").asLong()).isEqualTo(25 - orders.get("watermark").asLong());
            assertThat(orders.get("flush_state").asText()).isIn("idle", "flushing");
            assertThat(orders.get("quarantined").asLong()).isZero();
            assertThat(orders.get("declared").asBoolean()).isTrue();
            JsonNode flushed = api.awaitFlushed("orders");
            assertThat(flushed.get("watermark").asLong()).isEqualTo(25);
            assertThat(flushed.get("pending").asLong()).isZero();
            JsonNode recent = orders.get("recent");
            assertThat(recent).hasSize(20);
            assertThat(recent.get(0).get("offset").asLong()).isEqualTo(25);
            assertThat(recent.get(19).get("offset").asLong()).isEqualTo(6);
            assertThat(recent.get(0).get("event").get("order_id").asText()).isEqualTo("o25");
            assertThat(recent.get(0).get("event").get("total").asText()).isEqualTo("25.5");
            assertThat(recent.get(0).get("ingested_at").asText()).matches("\\d{4}-\\d\\d-\\d\\dT.*Z");

            JsonNode clicks = api.get("/streams/clicks").body();
            assertThat(clicks.get("on_schema_drift").asText()).isEqualTo("quarantine");
            assertThat(clicks.get("retention").asText()).isEqualTo("1d");
            assertThat(clicks.get("recent")).isEmpty();
        }
    }

    @Test
    void aStreamThatIsNoLongerDeclaredKeepsItsDataAndShowsDeclaredFalse() {
        try (TestServer api = TestServer.start(dataDirectory)) {
            api.postJson("/streams/decoding_evolving", "{\"s\":\"x\",\"n\":1}");
        }
        StreamCatalog withoutEvolving = StreamCatalog.of(List.of(OrdersStream.DESCRIPTOR, ClicksStream.DESCRIPTOR));
        try (TestServer api = TestServer.startWith(dataDirectory, withoutEvolving)) {
            JsonNode stream = api.get("/streams/decoding_evolving").body();
            assertThat(stream.get("declared").asBoolean()).isFalse();
            assertThat(stream.get("head").asLong()).isEqualTo(1);
            assertThat(api.postJson("/streams/decoding_evolving", "{\"s\":\"x\",\"n\":1}").status()).isEqualTo(404);
        }
    }

    @Test
    void aStreamThatIsNoLongerDeclaredReportsTheWarehousesWatermarkAndNoPhantomBacklog() throws Exception {
        try (TestServer api = TestServer.start(dataDirectory)) {
            api.postJson("/streams/decoding_evolving", "[{\"s\":\"a\",\"n\":1},{\"s\":\"b\",\"n\":2}]");
            assertThat(api.awaitFlushed("decoding_evolving").get("watermark").asLong()).isEqualTo(2);
        }
        StreamCatalog withoutEvolving = StreamCatalog.of(List.of(OrdersStream.DESCRIPTOR, ClicksStream.DESCRIPTOR));
        try (TestServer api = TestServer.startWith(dataDirectory, withoutEvolving)) {
            JsonNode stream = api.get("/streams/decoding_evolving").body();
            assertThat(stream.get("declared").asBoolean()).isFalse();
            assertThat(stream.get("head").asLong()).isEqualTo(2);
            assertThat(stream.get("watermark").asLong()).isEqualTo(2);
            assertThat(stream.get("pending").asLong()).isZero();
            JsonNode listed = null;
            for (JsonNode item : api.get("/streams").body().get("streams")) {
                if (item.get("name").asText().equals("decoding_evolving")) {
                    listed = item;
                }
            }
            assertThat(listed).isNotNull();
            assertThat(listed.get("pending").asLong()).isZero();
            JsonNode rows = api.postJson("/sql", "{\"sql\": \"SELECT count(*) AS n FROM streams.decoding_evolving\"}")
                    .body();
            assertThat(rows.get("rows").get(0).get(0).asLong()).isEqualTo(2);
        }
    }

    @Test
    void healthAndRouting() {
        try (TestServer api = TestServer.start(dataDirectory)) {
            assertThat(api.get("/health/live").status()).isEqualTo(200);
            TestServer.Response ready = api.get("/health/ready");
            assertThat(ready.status()).isEqualTo(200);
            assertThat(ready.body().get("status").asText()).isEqualTo("ready");
            TestServer.Response missing = api.get("/nothing/here");
            assertError(missing, 404, ErrorCode.NOT_FOUND);
            TestServer.Response wrongMethod = api.send(api.request("/streams")
                    .DELETE().build());
            assertThat(wrongMethod.status()).isEqualTo(405);
            assertThat(wrongMethod.header("Allow")).isEqualTo("GET");
        }
    }

    @Test
    void theWriterConnectionUsesWalWithSynchronousFull() {
        try (TestServer api = TestServer.start(dataDirectory)) {
            SqliteStreamLog log = (SqliteStreamLog) api.server.instance(StreamLog.class);
            assertThat(log.writerPragma("synchronous")).isEqualTo("2");
            assertThat(log.writerPragma("journal_mode")).isEqualTo("wal");
            assertThat(log.writerPragma("wal_autocheckpoint")).isEqualTo("0");
        }
    }

    @Test
    void eventsOffsetsAndDeduplicationSurviveARestart() {
        try (TestServer api = TestServer.start(dataDirectory)) {
            api.postJson("/streams/orders", "[{\"order_id\":\"a\"},{\"order_id\":\"b\"}]");
            api.postJson("/streams/clicks", "{\"click_id\":\"c\",\"url\":\"/\",\"at\":\"bad\"}");
        }
        try (TestServer api = TestServer.start(dataDirectory)) {
            TestServer.Response retry = api.postJson("/streams/orders", "[{\"order_id\":\"b\"},{\"order_id\":\"c\"}]");
            assertThat(retry.body().get("deduplicated").asInt()).isEqualTo(1);
            assertThat(retry.body().get("last_offset").asLong()).isEqualTo(3);
            assertThat(api.get("/streams/clicks").body().get("quarantined").asLong()).isEqualTo(1);
        }
    }

    @Test
    void aSecondServerOnTheSameDataDirectoryIsRefused() {
        try (TestServer api = TestServer.start(dataDirectory)) {
            assertThatThrownBy(() -> TestServer.start(dataDirectory))
                    .isInstanceOf(UncheckedIOException.class)
                    .hasMessageContaining("is in use by another interlace server");
            assertThat(api.get("/health/live").status()).isEqualTo(200);
        }
    }
}
