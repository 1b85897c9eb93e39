package dev.interlace.integration.http;

import static dev.interlace.integration.ApiAnswer.assertError;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.inject.Module;
import dev.interlace.client.ErrorCode;
import dev.interlace.runtime.ops.EpochMicros;
import dev.interlace.runtime.testing.Eventually;
import dev.interlace.runtime.testing.FaultModules;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** "Where is my event?" ({@code /correlate}), the request and system logs, and health flips with sys records. */
class RecordsApiTest {

    @TempDir
    Path dataDirectory;

    @Test
    void correlateFollowsARequestThroughPublishFlushAndModelRunWithQuarantineAndADeduplicatedRetry() {
        try (TestServer api = TestServer.start(dataDirectory)) {
            String clicks = "[{\"click_id\":\"c1\",\"url\":\"/a\",\"at\":\"2026-11-29T08:00:00Z\"},"
                    + "{\"click_id\":\"c2\",\"url\":\"/b\",\"at\":\"2026-11-29T08:00:01Z\"},"
                    + "{\"click_id\":\"bad\",\"url\":\"/c\"}]";
            TestServer.Response first = publish(api, "/streams/clicks", "req-first", clicks);
            assertThat(first.status()).isEqualTo(200);
            assertThat(first.body().get("quarantined").asInt()).isEqualTo(1);
            api.awaitFlushed("clicks");
            JsonNode story = awaitCorrelation(api, "req-first", body -> body.get("runs").get("count").asInt() > 0
                    && body.get("runs").get("items").get(0).get("status").asText().equals("succeeded"));

            assertThat(story.get("publish").get("accepted").asInt()).isEqualTo(2);
            assertThat(story.get("publish").get("quarantined").asInt()).isEqualTo(1);
            JsonNode events = story.get("events");
            assertThat(events.get("stream").asText()).isEqualTo("clicks");
            assertThat(events.get("first_offset").asLong()).isEqualTo(1);
            assertThat(events.get("last_offset").asLong()).isEqualTo(2);
            assertThat(events.get("count").asLong()).isEqualTo(2);
            assertThat(events.get("materialised").asLong()).isEqualTo(2);

            JsonNode flushes = story.get("flushes");
            assertThat(flushes.get("completeness").asText()).isEqualTo("store");
            List<String> targets = new ArrayList<>();
            String eventsFlush = null;
            for (JsonNode flush : flushes.get("items")) {
                targets.add(flush.get("target").asText());
                assertThat(flush.get("flush_id").asText()).startsWith("flush-");
                assertThat(flush.get("committed_at").asText()).endsWith("Z");
                if (flush.get("target").asText().equals("events")) {
                    eventsFlush = flush.get("flush_id").asText();
                    assertThat(flush.get("first_offset").asLong()).isLessThanOrEqualTo(1);
                    assertThat(flush.get("last_offset").asLong()).isGreaterThanOrEqualTo(2);
                }
            }
            assertThat(targets).as("the events' flush and the quarantine's").contains("events", "quarantine");
            assertThat(flushes.get("total").asLong()).isEqualTo(flushes.get("count").asLong());

            JsonNode run = story.get("runs").get("items").get(0);
            assertThat(run.get("run_id").asText()).startsWith("run-");
            assertThat(run.get("triggered_by").asText()).as("the run links to the flush that triggered it")
                    .isEqualTo(eventsFlush);
            JsonNode shownRun = api.get("/runs/" + run.get("run_id").asText()).body();
            assertThat(shownRun.get("models").toString()).contains("clicks_enriched");

            JsonNode quarantine = story.get("quarantine");
            assertThat(quarantine.get("count").asInt()).isEqualTo(1);
            assertThat(quarantine.get("items").get(0).get("errors").toString()).contains("at");
            assertThat(story.get("counts").get("quarantine").asInt()).isEqualTo(1);
            assertThat(story.get("totals").get("flushes").asLong()).isEqualTo(flushes.get("total").asLong());
            assertThat(story.get("completeness").asText()).isEqualTo("store");

            // A retry of the good clicks is deduplicated: it links to the request that first wrote them.
            TestServer.Response retry = publish(api, "/streams/clicks", "req-retry", clicks.replace(
                    ",{\"click_id\":\"bad\",\"url\":\"/c\"}", ""));
            assertThat(retry.body().get("deduplicated").asInt()).isEqualTo(2);
            JsonNode retried = api.get("/correlate?request_id=req-retry").body();
            assertThat(retried.get("events").get("count").asInt()).isZero();
            assertThat(retried.get("deduplicated").get("count").asInt()).isEqualTo(2);
            JsonNode original = retried.get("deduplicated").get("first_written_by").get(0);
            assertThat(original.get("request_id").asText()).isEqualTo("req-first");
            assertThat(original.get("offsets").toString()).isEqualTo("[1,2]");
            assertThat(retried.get("flushes").get("items").get(0).get("flush_id").asText())
                    .as("where the original events went").isEqualTo(eventsFlush);

            // By idempotency key.
            JsonNode byKey = api.get("/correlate?stream=clicks&key=c2").body();
            assertThat(byKey.get("key").get("offset").asLong()).isEqualTo(2);
            assertThat(byKey.get("request_id").asText()).isEqualTo("req-first");

            TestServer.Response unknown = api.get("/correlate?request_id=never-sent");
            assertError(unknown, 404, ErrorCode.UNKNOWN_REQUEST);
            assertThat(api.get("/correlate?stream=clicks&key=nope").status()).isEqualTo(404);
            assertThat(api.get("/correlate").status()).isEqualTo(400);
            assertThat(api.get("/correlate?request_id=x&colour=red").body().get("error").asText())
                    .isEqualTo("invalid_parameter");
        }
    }

    @Test
    void aRetryOfLargeEventsLinksToEveryOriginalThoughTheLogIsReadInPartsOfAtMost8MiB() {
        String large = "x".repeat(5 << 20);
        try (TestServer api = TestServer.start(dataDirectory)) {
            for (String id : List.of("a", "b", "c")) {
                assertThat(publish(api, "/streams/orders", "req-" + id, "{\"order_id\":\"" + id + "\",\"meta\":\""
                        + large + "\"}").status()).isEqualTo(200);
            }
            assertThat(publish(api, "/streams/orders", "req-retry",
                    "[{\"order_id\":\"a\"},{\"order_id\":\"b\"},{\"order_id\":\"c\"}]").body()
                    .get("deduplicated").asInt()).isEqualTo(3);
            JsonNode deduplicated = api.get("/correlate?request_id=req-retry").body().get("deduplicated");
            assertThat(deduplicated.get("first_written_by").findValuesAsText("request_id"))
                    .containsExactlyInAnyOrder("req-a", "req-b", "req-c");
            assertThat(deduplicated.get("trimmed_offsets")).as(deduplicated.toString()).isEmpty();
            assertThat(deduplicated.get("completeness").asText()).isEqualTo("store");
        }
    }

    @Test
    void aRetryLinksOnlyTheFlushesThatHoldItsEventsAndAReusedRequestIdListsEveryPublish() {
        try (TestServer api = TestServer.start(dataDirectory)) {
            assertThat(publish(api, "/streams/orders", "first", "[{\"order_id\":\"a\"},{\"order_id\":\"b\"}]")
                    .status()).isEqualTo(200);
            api.awaitFlushed("orders");
            for (int i = 0; i < 3; i++) { // flushes in between that have nothing to do with the retry
                publish(api, "/streams/orders", "between-" + i, "{\"order_id\":\"m" + i + "\"}");
                api.awaitFlushed("orders");
            }
            // A new event (offset 6) and a duplicate of offset 1, under a request id used twice.
            publish(api, "/streams/orders", "retry", "[{\"order_id\":\"a\"},{\"order_id\":\"new\"}]");
            api.awaitFlushed("orders");
            publish(api, "/streams/orders", "retry", "{\"order_id\":\"new\"}");

            JsonNode story = api.get("/correlate?request_id=retry").body();
            assertThat(story.get("publishes").get("total").asInt()).as("both uses of the id").isEqualTo(2);
            assertThat(story.get("publish").get("accepted").asInt()).as("the story follows the first").isEqualTo(1);
            assertThat(story.get("events").get("first_offset").asLong()).isEqualTo(6);
            JsonNode flushes = story.get("flushes");
            assertThat(flushes.get("total").asLong()).as("%s", flushes).isEqualTo(flushes.get("count").asLong());
            for (JsonNode flush : flushes.get("items")) {
                long first = flush.get("first_offset").asLong();
                long last = flush.get("last_offset").asLong();
                assertThat(first <= 1 && last >= 1 || first <= 6 && last >= 6)
                        .as("flush %s holds offset 1 or 6", flush).isTrue();
            }
            assertThat(flushes.get("count").asInt()).as("the original's flush and the new event's").isEqualTo(2);
            assertThat(story.get("deduplicated").get("first_written_by").get(0).get("request_id").asText())
                    .isEqualTo("first");
            assertThat(story.get("deduplicated").get("completeness").asText()).isEqualTo("store");
        }
    }

    @Test
    void aRefusedRequestIsFoundInTheRingAndSaidToBe() {
        try (TestServer api = TestServer.start(dataDirectory)) {
            TestServer.Response refused = publish(api, "/streams/orders", "req-bad", "{\"order_id\": 5}");
            assertThat(refused.status()).isEqualTo(422);
            JsonNode story = api.get("/correlate?request_id=req-bad").body();
            assertThat(story.get("publish").isNull()).as("nothing was stored").isTrue();
            assertThat(story.get("refused").get("status").asInt()).isEqualTo(422);
            assertThat(story.get("refused").get("error").asText()).isEqualTo("schema_violation");
            assertThat(story.get("completeness").asText()).isEqualTo("ring");
            assertThat(story.get("ring").get("capacity").asInt()).isEqualTo(10_000);
        }
    }

    @Test
    void theApiLogListsPublishesAndRefusedRequestsWithExactFiltersCountsAndTotals() {
        try (TestServer api = TestServer.start(dataDirectory, "--refused-requests", "2")) {
            long before = EpochMicros.of(Instant.now()) - 1;
            for (int i = 0; i < 3; i++) {
                assertThat(publish(api, "/streams/orders", "ok-" + i, "{\"order_id\":\"o" + i + "\"}").status())
                        .isEqualTo(200);
            }
            assertThat(publish(api, "/streams/clicks", "ok-clicks", "{\"click_id\":\"c\",\"url\":\"/\","
                    + "\"at\":\"2026-11-29T08:00:00Z\"}").status()).isEqualTo(200);
            assertThat(publish(api, "/streams/orders", "bad-1", "not json").status()).isEqualTo(400);
            assertThat(publish(api, "/streams/nope", "bad-2", "{}").status()).isEqualTo(404);
            assertThat(publish(api, "/streams/orders", "bad-3", "{\"order_id\": 1}").status()).isEqualTo(422);
            long after = EpochMicros.of(Instant.now()) + 1;

            JsonNode all = api.get("/logs/api").body();
            assertThat(all.get("total").asLong()).as("4 publishes + the 2 refusals the ring still holds")
                    .isEqualTo(6);
            assertThat(all.get("completeness").asText()).isEqualTo("ring");
            assertThat(all.get("ring").get("dropped").asLong()).as("the ring holds 2").isEqualTo(1);
            assertThat(all.get("requests").get(0).get("request_id").asText()).as("newest first").isEqualTo("bad-3");

            JsonNode stored = api.get("/logs/api?status=200&stream=orders").body();
            assertThat(stored.get("count").asInt()).isEqualTo(3);
            assertThat(stored.get("total").asInt()).isEqualTo(3);
            assertThat(stored.get("completeness").asText()).isEqualTo("store");
            assertThat(stored.get("requests").get(0).get("source").asText()).isEqualTo("store");
            assertThat(stored.get("requests").get(0).get("first_offset").asLong()).isEqualTo(3);

            JsonNode limited = api.get("/logs/api?status=200&limit=1").body();
            assertThat(limited.get("count").asInt()).isEqualTo(1);
            assertThat(limited.get("total").asInt()).isEqualTo(4);

            JsonNode unprocessable = api.get("/logs/api?status=422").body();
            assertThat(unprocessable.get("total").asInt()).isEqualTo(1);
            assertThat(unprocessable.get("requests").get(0).get("error").asText()).isEqualTo("schema_violation");
            assertThat(unprocessable.get("requests").get(0).get("source").asText()).isEqualTo("ring");

            assertThat(api.get("/logs/api?request_id=ok-1").body().get("total").asInt()).isEqualTo(1);
            String since = URLEncoder.encode(Instant.ofEpochSecond(0, before * 1000).toString(),
                    StandardCharsets.UTF_8);
            assertThat(api.get("/logs/api?since=" + since + "&until=" + after).body().get("total").asInt())
                    .as("RFC 3339 and epoch µs bounds around everything").isEqualTo(6);
            assertThat(api.get("/logs/api?until=" + before).body().get("total").asInt())
                    .as("half-open: nothing before").isZero();

            JsonNode ringOnly = api.get("/logs/api?source=ring").body();
            assertThat(ringOnly.get("total").asInt()).as("the 2 refusals the ring holds").isEqualTo(2);
            assertThat(ringOnly.get("completeness").asText()).isEqualTo("ring");
            assertThat(api.get("/logs/api?source=store").body().get("total").asInt()).isEqualTo(4);
            assertThat(all.has("nodes")).as("one server: no nodes to name").isFalse();
            assertThat(all.get("requests").get(0).has("node")).isFalse();
            assertThat(api.get("/logs/api?node=http://127.0.0.1:1").status()).as("no other node").isEqualTo(400);

            assertThat(api.get("/logs/api?status=abc").status()).isEqualTo(400);
            assertThat(api.get("/logs/api?since=yesterday").status()).isEqualTo(400);
            assertThat(api.get("/logs/api?limit=0").status()).isEqualTo(400);
            assertThat(api.get("/logs/api?colour=red").status()).isEqualTo(400);
        }
    }

    @Test
    void aFailingWarehouseFlipsFlushStateAndReadinessAndBackWithOneSysRecordPerTransition() throws Exception {
        AtomicBoolean failing = new AtomicBoolean(false);
        AtomicInteger failedAttempts = new AtomicInteger();
        Module fault = FaultModules.failingWarehouseWhile(() -> {
            if (failing.get()) {
                failedAttempts.incrementAndGet();
                return true;
            }
            return false;
        });
        try (TestServer api = TestServer.startWith(dataDirectory, TestServer.CATALOG, List.of(fault),
                "--ready-flush-failing-ms", "300")) {
            assertThat(api.get("/health/ready").status()).isEqualTo(200);
            failing.set(true);
            assertThat(publish(api, "/streams/orders", "during-failure", "{\"order_id\":\"a\"}").status())
                    .isEqualTo(200);
            JsonNode stream = api.await("orders", body -> body.get("flush_state").asText().equals("failing"));
            assertThat(stream.get("flush_error").asText()).contains("test fault");
            TestServer.Response ready = Eventually.get("/health/ready stops answering 200", Duration.ofSeconds(10),
                    () -> api.get("/health/ready"), response -> response.status() != 200);
            assertThat(ready.status()).as("not ready once failing longer than the threshold").isEqualTo(503);
            assertThat(ready.body().get("reasons").get(0).asText()).startsWith("flush_failing: stream orders");
            int failedSoFar = failedAttempts.get();
            Eventually.until("two more failed attempts", Duration.ofSeconds(30),
                    () -> failedAttempts.get() >= failedSoFar + 2);
            assertThat(failedAttempts.get()).as("two more failed attempts, still one record for the transition")
                    .isGreaterThanOrEqualTo(failedSoFar + 2);

            failing.set(false);
            JsonNode recovered = api.await("orders", body -> body.get("flush_state").asText().equals("idle")
                    && body.get("pending").asLong() == 0);
            assertThat(recovered.get("flush_state").asText()).isEqualTo("idle");
            assertThat(api.get("/health/ready").status()).isEqualTo(200);

            JsonNode failingRecords = api.get("/logs/sys?event=flush_failing&stream=orders").body();
            assertThat(failingRecords.get("total").asInt()).isEqualTo(1);
            assertThat(failingRecords.get("records").get(0).get("id").asText()).startsWith("flush-");
            assertThat(failingRecords.get("records").get(0).get("message").asText()).contains("test fault");
            assertThat(api.get("/logs/sys?event=flush_recovered&stream=orders").body().get("total").asInt())
                    .isEqualTo(1);
            JsonNode startup = api.get("/logs/sys?event=startup").body();
            assertThat(startup.get("total").asInt()).isEqualTo(1);
            assertThat(startup.get("records").get(0).get("id").asText()).startsWith("boot-");
            assertThat(startup.get("completeness").asText()).isEqualTo("store");
            assertThat(api.get("/logs/sys?event=flush_failing&limit=0").status()).isEqualTo(400);

            // The failed attempts are flush records too, with their error; the run names the flush that committed.
            JsonNode story = awaitCorrelation(api, "during-failure", body -> body.get("runs").get("count").asInt() > 0);
            boolean failedAttemptShown = false;
            String committedFlush = null;
            for (JsonNode flush : story.get("flushes").get("items")) {
                failedAttemptShown |= !flush.get("error").isNull() && flush.get("committed_at").isNull();
                if (!flush.get("committed_at").isNull() && flush.get("target").asText().equals("events")) {
                    committedFlush = flush.get("flush_id").asText();
                }
            }
            assertThat(failedAttemptShown).as("a failed attempt in %s", story.get("flushes")).isTrue();
            assertThat(committedFlush).as("the committed flush in %s", story.get("flushes")).isNotNull();
            assertThat(story.get("runs").get("items").get(0).get("triggered_by").asText()).isEqualTo(committedFlush);
        }
        // Shutdown is recorded, and the records survive the restart.
        try (TestServer api = TestServer.start(dataDirectory)) {
            assertThat(api.get("/logs/sys?event=shutdown").body().get("total").asInt()).isEqualTo(1);
            assertThat(api.get("/logs/sys?event=startup").body().get("total").asInt()).isEqualTo(2);
        }
    }

    @Test
    void backpressureOnAndOffAreRecordedOncePerTransition() {
        try (TestServer api = TestServer.stalled(dataDirectory, "--max-pending", "1")) {
            assertThat(publish(api, "/streams/orders", "p1", "{\"order_id\":\"a\"}").status()).isEqualTo(200);
            assertThat(publish(api, "/streams/orders", "p2", "{\"order_id\":\"b\"}").status()).isEqualTo(429);
            assertThat(publish(api, "/streams/orders", "p3", "{\"order_id\":\"c\"}").status()).isEqualTo(429);
            assertThat(publish(api, "/streams/orders", "p4", "{\"order_id\":\"a\"}").status())
                    .as("a retry of a stored key is acknowledged").isEqualTo(200);
            JsonNode on = api.get("/logs/sys?event=backpressure_on").body();
            assertThat(on.get("total").asInt()).isEqualTo(1);
            assertThat(on.get("records").get(0).get("id").asText()).isEqualTo("p2");
            assertThat(api.get("/logs/sys?event=backpressure_off").body().get("records").get(0).get("id").asText())
                    .isEqualTo("p4");
        }
    }

    private static TestServer.Response publish(TestServer api, String path, String requestId, String body) {
        return api.send(api.request(path).header("Content-Type", "application/json").header("X-Request-Id", requestId)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build());
    }

    private static JsonNode awaitCorrelation(TestServer api, String requestId, Predicate<JsonNode> condition) {
        return Eventually.get("the correlation of " + requestId + " shows what is awaited", Duration.ofSeconds(20),
                () -> api.get("/correlate?request_id=" + requestId).body(), condition);
    }
}
