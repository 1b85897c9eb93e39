package dev.interlace.integration.http;

import static dev.interlace.integration.ApiAnswer.assertError;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.interlace.client.ErrorCode;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Body, event-count, backlog and disk limits: refused with a clear status, nothing stored. */
class LimitsTest {

    @TempDir
    Path dataDirectory;

    @Test
    void aBodyOverTheLimitIs413EvenWhenItArrivesGzipped() {
        try (TestServer api = TestServer.start(dataDirectory, "--max-body-bytes", "100")) {
            String big = "[" + "{\"order_id\":\"a\"},".repeat(10) + "{\"order_id\":\"b\"}]";
            TestServer.Response plain = api.postJson("/streams/orders", big);
            assertError(plain, 413, ErrorCode.PAYLOAD_TOO_LARGE);
            TestServer.Response gzipped = api.postGzip("/streams/orders", big);
            assertThat(gzipped.status()).isEqualTo(413);
            assertThat(gzipped.body().get("message").asText()).contains("decompressed");
            assertThat(api.postJson("/streams/orders", "{\"order_id\":\"small\"}").status()).isEqualTo(200);
        }
    }

    @Test
    void tooManyEventsInOneRequestIs413() {
        try (TestServer api = TestServer.start(dataDirectory, "--max-events-per-request", "2")) {
            assertThreeEventsAreTooMany(api);
            assertThat(api.head("orders")).isZero();
        }
    }

    @Test
    void aFullBacklogIs429WithRetryAfterAndRetriesOfStoredKeysStillSucceed() {
        try (TestServer api = TestServer.stalled(dataDirectory, "--max-pending", "3", "--ready-flush-failing-ms", "0")) {
            assertThat(api.postJson("/streams/orders", "[{\"order_id\":\"a\"},{\"order_id\":\"b\"}]").status())
                    .isEqualTo(200);
            TestServer.Response over = api.postJson("/streams/orders", "[{\"order_id\":\"c\"},{\"order_id\":\"d\"}]");
            assertError(over, 429, ErrorCode.BACKPRESSURE);
            assertThat(over.header("Retry-After")).isEqualTo("1");
            assertThat(over.body().get("pending").asLong()).isEqualTo(2);
            assertThat(over.body().get("max_pending").asLong()).isEqualTo(3);
            assertThat(over.body().get("message").asText()).isEqualTo("stream orders has 2 events waiting to be"
                    + " materialised (limit 3); nothing was stored, retry later");
            assertThat(api.head("orders")).isEqualTo(2);

            assertThat(api.postJson("/streams/orders", "{\"order_id\":\"c\"}").status()).isEqualTo(200);
            TestServer.Response retry = api.postJson("/streams/orders", "[{\"order_id\":\"a\"},{\"order_id\":\"b\"}]");
            assertThat(retry.status()).isEqualTo(200);
            assertThat(retry.body().get("deduplicated").asInt()).isEqualTo(2);

            JsonNode stream = api.await("orders", body -> body.get("flush_state").asText().equals("failing"));
            assertThat(stream.get("flush_state").asText()).isEqualTo("failing");
            assertThat(stream.get("flush_error").asText()).contains("warehouse unavailable (test fault)");
            assertThat(stream.get("flush_failing_since").asText()).endsWith("Z");
            TestServer.Response ready = api.get("/health/ready");
            assertThat(ready.status()).isEqualTo(503);
            assertThat(ready.body().get("reasons").get(0).asText()).startsWith("flush_failing: stream orders");
        }
    }

    @Test
    void theBacklogDrainsOnceFlushedSoPublishingCanGoOnPastTheLimit() {
        try (TestServer api = TestServer.start(dataDirectory, "--max-pending", "3")) {
            for (int i = 0; i < 5; i++) {
                TestServer.Response response = api.postJson("/streams/orders",
                        "[{\"order_id\":\"a" + i + "\"},{\"order_id\":\"b" + i + "\"}]");
                assertThat(response.status()).isEqualTo(200);
                assertThat(api.awaitFlushed("orders").get("pending").asLong()).isZero();
            }
            assertThat(api.head("orders")).isEqualTo(10);
        }
    }

    @Test
    void aRequestLargerThanTheWholeBacklogLimitIs413NotARetryableError() {
        try (TestServer api = TestServer.start(dataDirectory, "--max-pending", "2")) {
            assertThreeEventsAreTooMany(api);
        }
    }

    @Test
    void freeDiskBelowTheFloorIs503AndNotReady() {
        try (TestServer api = TestServer.start(dataDirectory, "--min-free-disk-bytes",
                Long.toString(Long.MAX_VALUE))) {
            TestServer.Response response = api.postJson("/streams/orders", "{\"order_id\":\"a\"}");
            assertError(response, 503, ErrorCode.LOG_UNAVAILABLE);
            assertThat(response.header("Retry-After")).isEqualTo("5");
            TestServer.Response ready = api.get("/health/ready");
            assertThat(ready.status()).isEqualTo(503);
            assertThat(ready.body().get("reasons").get(0).asText()).startsWith("disk_below_floor");
            assertThat(api.get("/health/live").status()).isEqualTo(200);
            assertThat(api.head("orders")).isZero();
        }
    }

    /** A request of three events is refused whole: 413 {@code too_many_events}. */
    private static void assertThreeEventsAreTooMany(TestServer api) {
        TestServer.Response response = api.postJson("/streams/orders",
                "[{\"order_id\":\"a\"},{\"order_id\":\"b\"},{\"order_id\":\"c\"}]");
        assertError(response, 413, ErrorCode.TOO_MANY_EVENTS);
    }
}
