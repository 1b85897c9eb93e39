package dev.interlace.integration.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.interlace.integration.OrdersStream;
import dev.interlace.integration.decoding.EvolvingStream;
import dev.interlace.runtime.stream.StreamCatalog;
import dev.interlace.runtime.stream.StreamDescriptor;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The quarantine's reason to exist, end to end over HTTP: a {@code QUARANTINE} stream keeps aside events carrying a
 * field it does not declare; the developer adds the column to the {@code @Stream} class, rebuilds and restarts (the
 * start-up migration adds the column); a dry run says the events would now be accepted; the replay moves them into
 * the stream and the model downstream; a second replay finds nothing left to do.
 */
public class QuarantineReplayTest {

    /** The example {@code clicks} stream as the developer changes it: one new nullable column, {@code referrer}. */
    public static final String CLICKS_WITH_REFERRER = """
            package replay.v2;

            import dev.interlace.annotations.SchemaDrift;
            import dev.interlace.annotations.Stream;

            @Stream(name = "clicks",
                    schema = {"click_id string not null", "user_id string", "url string not null",
                              "at timestamp not null", "referrer string"},
                    idempotencyKey = "click_id",
                    retention = "1d",
                    onSchemaDrift = SchemaDrift.QUARANTINE)
            public final class Clicks {}
            """;

    private static final String GOOD = "{\"click_id\":\"c1\",\"url\":\"/\",\"at\":\"2026-12-01T09:00:00Z\"}";
    private static final String WITH_REFERRER_2 =
            "{\"click_id\":\"c2\",\"url\":\"/pricing\",\"at\":\"2026-12-01T09:00:01Z\",\"referrer\":\"news\"}";
    private static final String WITH_REFERRER_3 =
            "{\"click_id\":\"c3\",\"url\":\"/docs\",\"at\":\"2026-12-01T09:00:02.50Z\",\"referrer\":\"ad\"}";
    /** A new field and a time without an offset: still invalid after the change. */
    private static final String STILL_BAD =
            "{\"click_id\":\"c4\",\"url\":\"/\",\"at\":\"2026-12-01T09:00:03\",\"referrer\":\"mail\"}";

    @Test
    void eventsQuarantinedForANewFieldAreReplayedIntoTheStreamOnceTheColumnIsDeclared(@TempDir Path data,
            @TempDir Path build) throws Exception {
        String quarantinedBy;
        try (TestServer before = TestServer.start(data)) {
            TestServer.Response published = before.post("/streams/clicks", "application/x-ndjson",
                    String.join("\n", GOOD, WITH_REFERRER_2, WITH_REFERRER_3, STILL_BAD));
            assertThat(published.status()).isEqualTo(200);
            assertThat(published.body().get("accepted").asLong()).isEqualTo(1);
            assertThat(published.body().get("quarantined").asLong()).isEqualTo(3);
            quarantinedBy = published.body().get("request_id").asText();

            JsonNode list = before.get("/streams/clicks/quarantine").body();
            assertThat(list.get("items")).hasSize(3);
            assertThat(list.get("total").asLong()).isEqualTo(3);
            JsonNode first = list.get("items").get(0);
            assertThat(first.get("seq").asLong()).isEqualTo(1);
            assertThat(first.get("request_id").asText()).isEqualTo(quarantinedBy);
            assertThat(first.get("event").toString()).as("the event as sent").isEqualTo(WITH_REFERRER_2);
            assertThat(first.get("errors").toString()).contains("referrer");
            assertThat(first.get("replayed_offset").isNull()).isTrue();

            JsonNode unchanged = replay(before, "{\"all\": true, \"dry_run\": true}");
            assertThat(unchanged.get("invalid").asLong()).as("the schema does not know referrer yet").isEqualTo(3);
            before.awaitFlushed("clicks");
        }

        StreamDescriptor clicksWithReferrer = RebuiltStream.compile(build, "replay.v2", "Clicks",
                CLICKS_WITH_REFERRER);
        StreamCatalog rebuilt = StreamCatalog.of(List.of(OrdersStream.DESCRIPTOR, clicksWithReferrer,
                EvolvingStream.DESCRIPTOR));
        try (TestServer after = TestServer.startWith(data, rebuilt)) {
            assertThat(after.get("/streams/clicks").body().get("schema").get("referrer").asText())
                    .as("migrated at start-up").isEqualTo("string");

            JsonNode dryRun = replay(after, "{\"all\": true, \"dry_run\": true}");
            assertThat(statuses(dryRun)).containsExactly("1:accepted", "2:accepted", "3:invalid");
            assertThat(dryRun.get("accepted").asLong()).isEqualTo(2);
            assertThat(dryRun.get("invalid").asLong()).isEqualTo(1);
            assertThat(dryRun.get("dry_run").asBoolean()).isTrue();
            assertThat(dryRun.get("results").get(0).get("offset").isNull()).as("a dry run takes no offset").isTrue();
            assertThat(dryRun.get("results").get(2).get("errors").toString()).contains("\"field\":\"at\"");
            assertThat(after.head("clicks")).as("a dry run writes nothing").isEqualTo(1);

            JsonNode replayed = replay(after, "{\"seqs\": [1, 2, 3]}");
            assertThat(statuses(replayed)).containsExactly("1:accepted", "2:accepted", "3:invalid");
            assertThat(replayed.get("results").get(0).get("offset").asLong()).isEqualTo(2);
            assertThat(replayed.get("results").get(1).get("offset").asLong()).isEqualTo(3);
            assertThat(replayed.get("dry_run").asBoolean()).isFalse();
            String replayId = replayed.get("request_id").asText();

            JsonNode items = after.get("/streams/clicks/quarantine").body().get("items");
            assertThat(items).hasSize(3).as("an invalid entry stays where it is; nothing new is quarantined");
            assertThat(items.get(0).get("replayed_offset").asLong()).isEqualTo(2);
            assertThat(items.get(1).get("replayed_offset").asLong()).isEqualTo(3);
            assertThat(items.get(0).get("replayed_by").asText()).isEqualTo(replayId);
            assertThat(items.get(2).get("replayed_offset").isNull()).isTrue();

            after.awaitFlushed("clicks");
            assertThat(after.server.models().orElseThrow().awaitIdle(Duration.ofSeconds(20))).isTrue();
            assertThat(rows(after, "SELECT click_id, referrer, _offset FROM streams.clicks ORDER BY _offset"))
                    .containsExactly("c1|null|1", "c2|news|2", "c3|ad|3");
            assertThat(rows(after, "SELECT click_id, click_offset FROM clicks_enriched ORDER BY click_offset"))
                    .as("the model downstream").containsExactly("c1|1", "c2|2", "c3|3");

            JsonNode again = replay(after, "{\"seqs\": [1, 2]}");
            assertThat(statuses(again)).containsExactly("1:already_replayed", "2:already_replayed");
            assertThat(again.get("results").get(1).get("offset").asLong()).isEqualTo(3);
            assertThat(again.get("accepted").asLong()).isZero();
            assertThat(after.head("clicks")).isEqualTo(3);

            JsonNode correlation = after.get("/correlate?request_id=" + replayId).body();
            assertThat(correlation.get("events").get("count").asLong()).isEqualTo(2);
            JsonNode from = correlation.get("replayed_from");
            assertThat(from.get("items")).hasSize(2);
            assertThat(from.get("items").get(0).get("seq").asLong()).isEqualTo(1);
            assertThat(from.get("items").get(0).get("request_id").asText()).isEqualTo(quarantinedBy);
            assertThat(from.get("items").get(0).get("replayed_offset").asLong()).isEqualTo(2);
            JsonNode byKey = after.get("/correlate?stream=clicks&key=c3").body();
            assertThat(byKey.get("request_id").asText()).isEqualTo(replayId);
            assertThat(byKey.get("key").get("offset").asLong()).isEqualTo(3);
            assertThat(byKey.get("replayed_from").get("items").get(1).get("seq").asLong())
                    .as("the entry replayed to offset 3").isEqualTo(2);
            assertThat(byKey.get("replayed_from").get("items").get(1).get("replayed_offset").asLong()).isEqualTo(3);
            TestServer.Response originalAnswer = after.get("/correlate?request_id=" + quarantinedBy);
            assertThat(originalAnswer.status()).as(String.valueOf(originalAnswer.body())).isEqualTo(200);
            JsonNode original = originalAnswer.body();
            assertThat(original.has("quarantine")).as(original.toString()).isTrue();
            assertThat(original.get("quarantine").get("items").get(0).get("replayed_offset").asLong())
                    .as("and forward, from the request that was quarantined").isEqualTo(2);
        }
    }

    private static JsonNode replay(TestServer server, String body) {
        TestServer.Response response = server.postJson("/streams/clicks/quarantine/replay", body);
        assertThat(response.status()).as(String.valueOf(response.body())).isEqualTo(200);
        return response.body();
    }

    private static List<String> statuses(JsonNode replay) {
        List<String> statuses = new ArrayList<>();
        replay.get("results").forEach(result -> statuses.add(result.get("seq").asLong() + ":"
                + result.get("status").asText()));
        return statuses;
    }

    private static List<String> rows(TestServer server, String query) {
        TestServer.Response response = server.post("/sql", "text/plain", query);
        assertThat(response.status()).as(String.valueOf(response.body())).isEqualTo(200);
        List<String> rows = new ArrayList<>();
        for (JsonNode row : response.body().get("rows")) {
            List<String> cells = new ArrayList<>();
            row.forEach(cell -> cells.add(cell.isNull() ? "null" : cell.asText()));
            rows.add(String.join("|", cells));
        }
        return rows;
    }
}
