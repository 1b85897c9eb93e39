package dev.interlace.integration.http;

import static dev.interlace.integration.ApiAnswer.assertError;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.interlace.client.ErrorCode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Reading a stream over HTTP and consumer groups with leases, fencing tokens and commits. */
class ConsumersApiTest {

    @TempDir
    Path dataDirectory;

    @Test
    void eventsAreReadInOrderAfterAnOffsetWithALongPollForTheNext() throws Exception {
        try (TestServer api = TestServer.start(dataDirectory)) {
            api.postJson("/streams/orders", "[{\"order_id\":\"a\"},{\"order_id\":\"b\"},{\"order_id\":\"c\"}]");
            JsonNode page = api.get("/streams/orders/events?after=1&limit=1").body();
            assertThat(page.get("count").asInt()).isEqualTo(1);
            assertThat(page.get("events").get(0).get("offset").asLong()).isEqualTo(2);
            assertThat(page.get("events").get(0).get("event").get("order_id").asText()).isEqualTo("b");
            assertThat(page.get("next_after").asLong()).isEqualTo(2);
            assertThat(page.get("head").asLong()).isEqualTo(3);
            assertThat(page.get("earliest").asLong()).isEqualTo(1);
            assertThat(page.get("total").asLong()).as("events after offset 1").isEqualTo(2);
            assertThat(page.get("completeness").asText()).isEqualTo("store");

            CompletableFuture<TestServer.Response> poll = CompletableFuture.supplyAsync(
                    () -> api.get("/streams/orders/events?after=3&wait_ms=10000"));
            assertThat(poll).failsWithin(Duration.ofMillis(200)).withThrowableOfType(TimeoutException.class);
            api.postJson("/streams/orders", "{\"order_id\":\"d\"}");
            JsonNode woken = poll.get().body();
            assertThat(woken.get("events").get(0).get("offset").asLong()).isEqualTo(4);

            assertThat(api.get("/streams/orders/events?after=4&wait_ms=50").body().get("count").asInt()).isZero();
            assertThat(api.get("/streams/orders/events?limit=0").status()).isEqualTo(400);
            assertThat(api.get("/streams/nope/events").status()).isEqualTo(404);
        }
    }

    @Test
    void aPageOfLargeEventsEndsWithTheOneThatReaches8MiBAndTheNextPageGoesOn() {
        String large = "x".repeat(5 << 20);
        try (TestServer api = TestServer.start(dataDirectory)) {
            for (String id : List.of("a", "b", "c")) {
                assertThat(api.postJson("/streams/orders", "{\"order_id\":\"" + id + "\",\"meta\":\"" + large
                        + "\"}").status()).isEqualTo(200);
            }
            JsonNode first = api.get("/streams/orders/events?after=0&limit=1000").body();
            assertThat(first.get("count").asInt()).as("5 MiB and 5 MiB reach 8 MiB").isEqualTo(2);
            assertThat(first.get("next_after").asLong()).isEqualTo(2);
            assertThat(first.get("total").asLong()).isEqualTo(3);
            assertThat(first.get("events").get(1).get("event").get("meta").asText()).hasSize(5 << 20);
            JsonNode second = api.get("/streams/orders/events?after=2&limit=1000").body();
            assertThat(second.get("count").asInt()).isEqualTo(1);
            assertThat(second.get("events").get(0).get("event").get("order_id").asText()).isEqualTo("c");
        }
    }

    @Test
    void aConsumerGroupLeasesCommitsAndIsFencedAfterATakeover() {
        try (TestServer api = TestServer.start(dataDirectory)) {
            api.postJson("/streams/orders", "[{\"order_id\":\"a\"},{\"order_id\":\"b\"},{\"order_id\":\"c\"}]");
            String base = "/streams/orders/consumers/billing";
            TestServer.Response lease = api.postJson(base + "/lease", "{\"owner\":\"w1\",\"ttl_ms\":30000}");
            assertThat(lease.status()).isEqualTo(200);
            String token = "\"" + lease.body().get("token").asText() + "\"";
            assertThat(lease.body().get("committed_offset").asLong()).isZero();
            assertThat(lease.body().get("expires_at").asText()).endsWith("Z");

            TestServer.Response held = api.postJson(base + "/lease", "{\"owner\":\"w2\"}");
            assertError(held, 409, ErrorCode.LEASE_HELD);
            assertThat(held.body().get("holder").asText()).isEqualTo("w1");

            assertThat(api.postJson(base + "/commit", "{\"token\":" + token + ",\"offset\":2}").body()
                    .get("committed_offset").asLong()).isEqualTo(2);
            TestServer.Response regressed = api.postJson(base + "/commit", "{\"token\":" + token + ",\"offset\":1}");
            assertError(regressed, 409, ErrorCode.OFFSET_REGRESSED);
            TestServer.Response beyond = api.postJson(base + "/commit", "{\"token\":" + token + ",\"offset\":9}");
            assertError(beyond, 422, ErrorCode.OFFSET_BEYOND_HEAD);

            JsonNode consumers = api.get("/streams/orders/consumers").body();
            assertThat(consumers.get("count").asInt()).as("billing and the flusher's own group").isEqualTo(2);
            JsonNode group = consumers.get("consumers").get(1);
            assertThat(group.get("group").asText()).isEqualTo("billing");
            assertThat(group.get("committed_offset").asLong()).isEqualTo(2);
            assertThat(group.get("lag").asLong()).isEqualTo(1);
            assertThat(group.get("holder").asText()).isEqualTo("w1");
            assertThat(group.get("lapped").asBoolean()).isFalse();

            assertThat(api.postJson(base + "/release", "{\"token\":" + token + "}").status()).isEqualTo(200);
            TestServer.Response takeover = api.postJson(base + "/lease", "{\"owner\":\"w2\"}");
            String newToken = "\"" + takeover.body().get("token").asText() + "\"";
            assertThat(epoch(newToken)).isGreaterThan(epoch(token));
            assertThat(takeover.body().get("committed_offset").asLong()).isEqualTo(2);
            TestServer.Response stale = api.postJson(base + "/commit", "{\"token\":" + token + ",\"offset\":3}");
            assertError(stale, 409, ErrorCode.STALE_TOKEN);
            assertThat(api.postJson(base + "/commit", "{\"token\":" + newToken + ",\"offset\":3}").status())
                    .isEqualTo(200);

            assertThat(api.postJson("/streams/orders/consumers/bad%20group/lease", "{\"owner\":\"w\"}").status())
                    .isEqualTo(400);
            assertThat(api.postJson(base + "/lease", "{\"ttl_ms\":5}").status()).isEqualTo(400);
            assertThat(api.postJson(base + "/commit", "not json").status()).isEqualTo(400);
        }
    }

    @Test
    void theFlusherHoldsItsOwnGroupWhoseTokenIsRecordedInTheWarehouse() throws Exception {
        try (TestServer api = TestServer.start(dataDirectory)) {
            api.postJson("/streams/orders", "[{\"order_id\":\"a\"},{\"order_id\":\"b\"}]");
            api.awaitFlushed("orders");
            JsonNode flusher = api.get("/streams/orders/consumers").body().get("consumers").get(0);
            assertThat(flusher.get("group").asText()).isEqualTo("__flusher");
            assertThat(flusher.get("holder").asText()).isEqualTo("interlace-flusher");
            assertThat(flusher.get("epoch").asLong()).isEqualTo(1);
            assertThat(flusher.has("token")).as("no listing shows a token").isFalse();
            assertThat(recordedToken(api)).as("streams._watermarks.fencing_token").isEqualTo(1);

            TestServer.Response reserved = api.postJson("/streams/orders/consumers/__flusher/lease",
                    "{\"owner\":\"intruder\"}");
            assertError(reserved, 400, ErrorCode.RESERVED_GROUP);
        }
        // A clean shutdown committed the flushed watermark and released the lease: the next start leases anew.
        try (TestServer api = TestServer.start(dataDirectory)) {
            JsonNode flusher = api.get("/streams/orders/consumers").body().get("consumers").get(0);
            assertThat(flusher.get("committed_offset").asLong()).isEqualTo(2);
            assertThat(flusher.get("lag").asLong()).isZero();
            assertThat(flusher.get("epoch").asLong()).isEqualTo(2);
            assertThat(recordedToken(api)).isEqualTo(2);
            api.postJson("/streams/orders", "{\"order_id\":\"c\"}");
            assertThat(api.awaitFlushed("orders").get("watermark").asLong()).isEqualTo(3);
        }
    }

    /** The fencing epoch of a quoted {@code "<epoch>.<secret>"} token. */
    private static long epoch(String quotedToken) {
        return Long.parseLong(quotedToken.substring(1, quotedToken.indexOf('.')));
    }

    private static long recordedToken(TestServer api) {
        return api.postJson("/sql", "{\"sql\":\"SELECT fencing_token FROM streams._watermarks WHERE stream = 'orders'\"}")
                .body().get("rows").get(0).get(0).asLong();
    }
}
