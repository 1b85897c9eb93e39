package dev.interlace.integration.http;

import static dev.interlace.integration.ApiAnswer.assertError;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.interlace.client.ErrorCode;
import dev.interlace.integration.OrdersStream;
import dev.interlace.integration.decoding.EvolvingStream;
import dev.interlace.runtime.auth.KeyFile;
import dev.interlace.runtime.auth.Scope;
import dev.interlace.runtime.stream.StreamCatalog;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code GET /streams/{name}/quarantine} and {@code POST /streams/{name}/quarantine/replay} over real HTTP: paging
 * and counts, faithful events, every refused parameter and body, unknown entries, duplicates, concurrent replays and
 * backpressure. Replays that accept need a schema that accepts what was quarantined, so those tests quarantine with
 * the example {@code clicks} stream and replay after a restart with {@code referrer} declared.
 */
class QuarantineApiTest {

    @TempDir
    static Path build;
    private static StreamCatalog withReferrer;

    @TempDir
    Path data;

    @BeforeAll
    static void rebuildClicksWithAReferrerColumn() {
        withReferrer = StreamCatalog.of(List.of(OrdersStream.DESCRIPTOR, RebuiltStream.compile(build, "replay.v2",
                "Clicks", QuarantineReplayTest.CLICKS_WITH_REFERRER), EvolvingStream.DESCRIPTOR));
    }

    @Test
    void theListPagesThroughTheQuarantineWithEventsExactlyAsSentAndHonestCounts() {
        try (TestServer api = TestServer.start(data)) {
            List<String> sent = new ArrayList<>();
            for (int i = 1; i <= 5; i++) {
                sent.add("{\"click_id\":\"c" + i + "\",\"url\":\"/\",\"at\":\"2026-12-01T09:00:00Z\",\"price\":49.50,"
                        + "\"big\":123456789012345678901234567890,\"n\":" + i + "}");
            }
            String requestId = api.post("/streams/clicks", "application/x-ndjson", String.join("\n", sent)).body()
                    .get("request_id").asText();

            JsonNode page = api.get("/streams/clicks/quarantine?limit=2").body();
            assertThat(page.get("items")).hasSize(2);
            assertThat(page.get("next_after").asLong()).isEqualTo(2);
            assertThat(page.get("count").asLong()).isEqualTo(2);
            assertThat(page.get("total").asLong()).isEqualTo(5);
            assertThat(page.get("completeness").asText()).isEqualTo("store");
            JsonNode item = page.get("items").get(0);
            assertThat(item.get("seq").asLong()).isEqualTo(1);
            assertThat(item.get("event").toString()).as("numbers as sent").isEqualTo(sent.get(0));
            assertThat(item.get("request_id").asText()).isEqualTo(requestId);
            assertThat(item.get("received_at").asText()).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{6}Z");
            assertThat(item.get("errors").toString()).contains("price", "big", "\"n\"");
            assertThat(item.get("replayed_offset").isNull()).isTrue();

            JsonNode next = api.get("/streams/clicks/quarantine?after=2&limit=2").body();
            assertThat(next.get("items")).extracting(entry -> entry.get("seq").asLong()).containsExactly(3L, 4L);
            JsonNode end = api.get("/streams/clicks/quarantine?after=5").body();
            assertThat(end.get("items")).isEmpty();
            assertThat(end.get("next_after").asLong()).isEqualTo(5);
            assertThat(end.get("total").asLong()).isEqualTo(5);
            assertThat(api.get("/streams/orders/quarantine").body().get("total").asLong()).isZero();
        }
    }

    @Test
    void listParametersAreCheckedLikeEveryList() {
        try (TestServer api = TestServer.start(data)) {
            for (String query : List.of("?nope=1", "?limit=0", "?limit=1001", "?after=-1", "?after=x")) {
                TestServer.Response refused = api.get("/streams/clicks/quarantine" + query);
                assertThat(refused.status()).as(query).isEqualTo(400);
                assertThat(refused.body().get("error").asText()).isEqualTo("invalid_parameter");
            }
            TestServer.Response unknown = api.get("/streams/nope/quarantine");
            assertError(unknown, 404, ErrorCode.UNKNOWN_STREAM);
        }
    }

    @Test
    void badReplayBodiesAreClear400sAndUnknownEntries404sAndNothingIsReplayed() {
        try (TestServer api = TestServer.start(data)) {
            api.post("/streams/clicks", "application/json", "{\"click_id\":\"c1\",\"url\":\"/\",\"at\":\"later\"}");
            Map<String, String> bodies = Map.ofEntries(
                    Map.entry("{\"seqs\": [1]", "malformed_json"),
                    Map.entry("", "invalid_replay"),
                    Map.entry("[1, 2]", "invalid_replay"),
                    Map.entry("{}", "invalid_replay"),
                    Map.entry("{\"dry_run\": true}", "invalid_replay"),
                    Map.entry("{\"seqs\": [1], \"all\": true}", "invalid_replay"),
                    Map.entry("{\"seqs\": []}", "invalid_replay"),
                    Map.entry("{\"seqs\": [0]}", "invalid_replay"),
                    Map.entry("{\"seqs\": [\"1\"]}", "invalid_replay"),
                    Map.entry("{\"seqs\": [1.5]}", "invalid_replay"),
                    Map.entry("{\"seqs\": 1}", "invalid_replay"),
                    Map.entry("{\"seqs\": [1], \"after\": 0}", "invalid_replay"),
                    Map.entry("{\"all\": false}", "invalid_replay"),
                    Map.entry("{\"all\": true, \"after\": -1}", "invalid_replay"),
                    Map.entry("{\"all\": true, \"dry_run\": \"yes\"}", "invalid_replay"),
                    Map.entry("{\"seqs\": [1], \"dryrun\": true}", "invalid_replay"),
                    Map.entry("{\"seqs\": " + seqs(1001) + "}", "invalid_replay"));
            bodies.forEach((body, code) -> {
                TestServer.Response refused = api.postJson("/streams/clicks/quarantine/replay", body);
                assertThat(refused.status()).as(body).isEqualTo(400);
                assertThat(refused.body().get("error").asText()).as(body).isEqualTo(code);
                assertThat(refused.body().get("message").asText()).as(body).isNotBlank();
                assertThat(refused.body().get("request_id").asText()).isNotBlank();
            });

            TestServer.Response unknown = api.postJson("/streams/clicks/quarantine/replay",
                    "{\"seqs\": [1, 9, 7, 9]}");
            assertError(unknown, 404, ErrorCode.UNKNOWN_SEQ);
            assertThat(unknown.body().get("seqs")).extracting(JsonNode::asLong).containsExactly(9L, 7L);
            assertThat(unknown.body().get("message").asText()).contains("1..1");

            TestServer.Response noStream = api.postJson("/streams/nope/quarantine/replay", "{\"all\": true}");
            assertError(noStream, 404, ErrorCode.UNKNOWN_STREAM);

            TestServer.Response stillInvalid = api.postJson("/streams/clicks/quarantine/replay", "{\"seqs\": [1]}");
            assertThat(stillInvalid.status()).isEqualTo(200);
            assertThat(stillInvalid.body().get("invalid").asLong()).isEqualTo(1);
            assertThat(stillInvalid.body().get("results").get(0).get("errors").get(0).get("field").asText())
                    .isEqualTo("at");
            assertThat(api.get("/streams/clicks/quarantine").body().get("total").asLong())
                    .as("no new quarantine entry").isEqualTo(1);
            assertThat(api.head("clicks")).isZero();
        }
    }

    @Test
    void anEntryWhoseKeyWasPublishedSinceIsDeduplicatedAgainstTheOriginalAndMarked() {
        try (TestServer before = TestServer.start(data)) {
            publishTwoClicksWithAReferrer(before);
            // The client fixed c1 itself and sent it again without the new field.
            assertThat(before.postJson("/streams/clicks",
                    "{\"click_id\":\"c1\",\"url\":\"/a\",\"at\":\"2026-12-01T09:00:00Z\"}").status()).isEqualTo(200);
        }
        try (TestServer after = TestServer.startWith(data, withReferrer)) {
            JsonNode fromSecond = replay(after, "{\"all\": true, \"after\": 1, \"dry_run\": true}");
            assertThat(fromSecond.get("results")).extracting(result -> result.get("seq").asLong())
                    .containsExactly(2L);
            assertThat(fromSecond.get("next_after").asLong()).isEqualTo(2);
            assertThat(fromSecond.get("more").asBoolean()).isFalse();

            JsonNode replayed = replay(after, "{\"seqs\": [1, 2]}");
            assertThat(replayed.get("results").get(0).get("status").asText()).isEqualTo("deduplicated");
            assertThat(replayed.get("results").get(0).get("offset").asLong()).as("the original").isEqualTo(1);
            assertThat(replayed.get("results").get(1).get("status").asText()).isEqualTo("accepted");
            assertThat(replayed.get("results").get(1).get("offset").asLong()).isEqualTo(2);
            assertThat(replayed.get("deduplicated").asLong()).isEqualTo(1);
            assertThat(replayed.get("accepted").asLong()).isEqualTo(1);
            assertThat(after.get("/streams/clicks/quarantine").body().get("items").get(0).get("replayed_offset")
                    .asLong()).isEqualTo(1);

            JsonNode all = replay(after, "{\"all\": true}");
            assertThat(all.get("results")).as("all: only entries not replayed yet").isEmpty();
            assertThat(all.get("more").asBoolean()).isFalse();
            assertThat(after.head("clicks")).isEqualTo(2);
        }
    }

    @Test
    void aReplayOfAllAppendsAtMostARequestBodysWorthAndSaysWhereToGoOn() {
        String large = "r".repeat(40_000);
        try (TestServer before = TestServer.start(data, "--max-body-bytes", "65536")) {
            for (int i = 1; i <= 3; i++) {
                assertThat(before.postJson("/streams/clicks", "{\"click_id\":\"c" + i + "\",\"url\":\"/\","
                        + "\"at\":\"2026-12-01T09:00:00Z\",\"referrer\":\"" + large + "\"}").body().get("quarantined")
                        .asInt()).isEqualTo(1);
            }
        }
        try (TestServer after = TestServer.startWith(data, withReferrer, "--max-body-bytes", "65536")) {
            // Two entries of 40 kB reach the 64 KiB a publish may carry: the replay ends with the second.
            JsonNode first = replay(after, "{\"all\": true}");
            assertThat(first.get("results")).extracting(result -> result.get("seq").asLong())
                    .containsExactly(1L, 2L);
            assertThat(first.get("accepted").asLong()).isEqualTo(2);
            assertThat(first.get("next_after").asLong()).isEqualTo(2);
            assertThat(first.get("more").asBoolean()).isTrue();

            JsonNode rest = replay(after, "{\"all\": true, \"after\": 2}");
            assertThat(rest.get("results")).extracting(result -> result.get("seq").asLong()).containsExactly(3L);
            assertThat(rest.get("more").asBoolean()).isFalse();
            assertThat(after.head("clicks")).isEqualTo(3);
            JsonNode events = after.get("/streams/clicks/events?after=0").body().get("events");
            assertThat(events).extracting(event -> event.get("event").get("referrer").asText().length())
                    .containsExactly(40_000, 40_000, 40_000);
        }
    }

    @Test
    void chosenEntriesLargerThanABodyAre413AndNothingOfThemIsReplayed() {
        String large = "r".repeat(40_000);
        try (TestServer before = TestServer.start(data, "--max-body-bytes", "65536")) {
            for (int i = 1; i <= 3; i++) {
                before.postJson("/streams/clicks", "{\"click_id\":\"c" + i + "\",\"url\":\"/\","
                        + "\"at\":\"2026-12-01T09:00:00Z\",\"referrer\":\"" + large + "\"}");
            }
        }
        try (TestServer after = TestServer.startWith(data, withReferrer, "--max-body-bytes", "65536")) {
            // Entries 1 and 3 hold 80 kB of events, more than the 64 KiB a publish may carry; read in order, 3 is
            // the first that does not fit.
            TestServer.Response refused = after.postJson("/streams/clicks/quarantine/replay", "{\"seqs\": [3, 1]}");
            assertError(refused, 413, ErrorCode.PAYLOAD_TOO_LARGE);
            assertThat(refused.body().get("seqs")).extracting(JsonNode::asLong).containsExactly(3L);
            assertThat(refused.body().get("message").asText()).contains("65536", "nothing was replayed");
            assertThat(after.postJson("/streams/clicks/quarantine/replay", "{\"seqs\": [1, 2, 3], \"dry_run\": true}")
                    .body().get("seqs")).extracting(JsonNode::asLong).containsExactly(2L, 3L);
            assertThat(after.head("clicks")).isZero();
            assertThat(after.get("/streams/clicks/quarantine").body().get("items"))
                    .allMatch(item -> item.get("replayed_offset").isNull());

            // One at a time they fit, and each is replayed once.
            for (long seq = 1; seq <= 3; seq++) {
                JsonNode replayed = replay(after, "{\"seqs\": [" + seq + "]}");
                assertThat(replayed.get("accepted").asLong()).isEqualTo(1);
            }
            assertThat(after.head("clicks")).isEqualTo(3);
        }
    }

    @Test
    void concurrentReplaysOfTheWholeQuarantineMoveEachEntryExactlyOnce() throws Exception {
        int entries = 30;
        try (TestServer before = TestServer.start(data)) {
            List<String> lines = new ArrayList<>();
            for (int i = 0; i < entries; i++) {
                lines.add("{\"click_id\":\"c" + i + "\",\"url\":\"/\",\"at\":\"2026-12-01T09:00:00Z\","
                        + "\"referrer\":\"r\"}");
            }
            before.post("/streams/clicks", "application/x-ndjson", String.join("\n", lines));
        }
        int replayers = 6;
        try (TestServer after = TestServer.startWith(data, withReferrer)) {
            CyclicBarrier start = new CyclicBarrier(replayers);
            ExecutorService pool = Executors.newFixedThreadPool(replayers);
            try {
                List<Future<JsonNode>> answers = new ArrayList<>();
                for (int i = 0; i < replayers; i++) {
                    String body = i % 2 == 0 ? "{\"all\": true}" : "{\"seqs\": " + seqs(entries) + "}";
                    answers.add(pool.submit(() -> {
                        start.await();
                        return replay(after, body);
                    }));
                }
                long accepted = 0;
                for (Future<JsonNode> answer : answers) {
                    accepted += answer.get().get("accepted").asLong();
                    assertThat(answer.get().get("deduplicated").asLong()).isZero();
                }
                assertThat(accepted).isEqualTo(entries);
            } finally {
                pool.shutdownNow();
            }
            assertThat(after.head("clicks")).isEqualTo(entries);
            JsonNode items = after.get("/streams/clicks/quarantine").body().get("items");
            List<Long> offsets = new ArrayList<>();
            items.forEach(item -> offsets.add(item.get("replayed_offset").asLong()));
            assertThat(offsets).doesNotHaveDuplicates().allMatch(offset -> offset >= 1 && offset <= entries);
        }
    }

    @Test
    void aReplayOverTheBacklogLimitIs429WithRetryAfterAndReplaysNothing() {
        try (TestServer before = TestServer.start(data)) {
            publishTwoClicksWithAReferrer(before);
            before.awaitFlushed("clicks");
        }
        try (TestServer after = TestServer.startWith(data, withReferrer, "--max-pending", "1")) {
            TestServer.Response refused = after.postJson("/streams/clicks/quarantine/replay", "{\"seqs\": [1, 2]}");
            assertError(refused, 429, ErrorCode.BACKPRESSURE);
            assertThat(refused.header("Retry-After")).isEqualTo("1");
            assertThat(refused.body().get("pending").asLong()).isZero();
            assertThat(refused.body().get("max_pending").asLong()).isEqualTo(1);
            assertThat(refused.body().get("message").asText()).isEqualTo("stream clicks has 0 events waiting to be"
                    + " materialised (limit 1); nothing was replayed, retry later");
            assertThat(after.get("/streams/clicks/quarantine").body().get("items").get(0).get("replayed_offset")
                    .isNull()).isTrue();
            assertThat(after.head("clicks")).isZero();

            assertThat(replay(after, "{\"seqs\": [1]}").get("accepted").asLong()).isEqualTo(1);
        }
    }

    @Test
    void aReplayIsRecordedLikeAPublishWithTheKeyThatSentIt() throws Exception {
        try (TestServer before = TestServer.start(data)) {
            before.post("/streams/clicks", "application/x-ndjson",
                    "{\"click_id\":\"c1\",\"url\":\"/a\",\"at\":\"2026-12-01T09:00:00Z\",\"referrer\":\"x\"}");
        }
        String operator;
        String reader;
        try (KeyFile keys = KeyFile.open(data)) {
            operator = keys.create("operator", List.of(Scope.parse("operate")), 0).secret();
            reader = keys.create("reader", List.of(Scope.parse("read")), 0).secret();
        }
        try (TestServer after = TestServer.startWith(data, withReferrer)) {
            TestServer.Response replayed = after.send(after.request("/streams/clicks/quarantine/replay")
                    .header("Authorization", "Bearer " + operator).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"seqs\": [1]}")).build());
            assertThat(replayed.status()).as(String.valueOf(replayed.body())).isEqualTo(200);
            String requestId = replayed.body().get("request_id").asText();

            JsonNode record = after.send(after.request("/logs/api?request_id=" + requestId)
                    .header("Authorization", "Bearer " + reader).GET().build()).body().get("requests").get(0);
            assertThat(record.get("accepted").asLong()).isEqualTo(1);
            assertThat(record.get("key").get("name").asText()).isEqualTo("operator");

            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            JsonNode system;
            do {
                system = after.send(after.request("/logs/sys?event=quarantine_replay")
                        .header("Authorization", "Bearer " + reader).GET().build()).body();
            } while (system.get("count").asLong() == 0 && System.nanoTime() < deadline);
            assertThat(system.get("records").get(0).get("id").asText()).isEqualTo(requestId);
            assertThat(system.get("records").get(0).get("message").asText()).contains("1 accepted", "key operator");
        }
    }

    private static JsonNode replay(TestServer server, String body) {
        TestServer.Response response = server.postJson("/streams/clicks/quarantine/replay", body);
        assertThat(response.status()).as(String.valueOf(response.body())).isEqualTo(200);
        return response.body();
    }

    /** {@code [1, 2, ..., count]}. */
    private static String seqs(int count) {
        List<String> seqs = new ArrayList<>();
        for (int i = 1; i <= count; i++) {
            seqs.add(Integer.toString(i));
        }
        return "[" + String.join(", ", seqs) + "]";
    }

    /** Publishes clicks c1 and c2, each with a referrer, a field the catalog of {@code before} does not declare. */
    private static void publishTwoClicksWithAReferrer(TestServer before) {
        before.post("/streams/clicks", "application/x-ndjson", String.join("\n",
                "{\"click_id\":\"c1\",\"url\":\"/a\",\"at\":\"2026-12-01T09:00:00Z\",\"referrer\":\"x\"}",
                "{\"click_id\":\"c2\",\"url\":\"/b\",\"at\":\"2026-12-01T09:00:00Z\",\"referrer\":\"y\"}"));
    }
}
