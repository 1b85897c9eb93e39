package dev.interlace.integration.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.inject.Module;
import dev.interlace.runtime.Interlace;
import dev.interlace.runtime.cli.CliHarness;
import dev.interlace.runtime.cli.Main;
import dev.interlace.runtime.testing.Eventually;
import dev.interlace.runtime.testing.FaultModules;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** {@code interlace correlate} against a real server with the example streams and models. */
class CorrelateCommandTest extends ServerCommandTest {

    private static final String CLICKS = "[{\"click_id\":\"c1\",\"url\":\"/a\",\"at\":\"2026-11-29T08:00:00Z\"},"
            + "{\"click_id\":\"c2\",\"url\":\"/b\",\"at\":\"2026-11-29T08:00:01Z\"},"
            + "{\"click_id\":\"bad\",\"url\":\"/c\"}]";


    @Test
    void reportsAPublishItsEventsFlushesRunAndQuarantineWithCompletenessPerSection() throws Exception {
        try (Interlace server = start()) {
            String url = server.uri().toString();
            assertThat(publish(server, "clicks", "req-first", CLICKS)).isEqualTo(200);
            JsonNode story = awaitStory(url, "req-first");
            JsonNode flushes = story.get("flushes").get("items");
            assertThat(flushes.size()).as("the events' flush and the quarantine's in %s", flushes)
                    .isGreaterThanOrEqualTo(2);
            String eventsFlush = null;
            for (JsonNode flush : flushes) {
                if (flush.get("target").asText().equals("events")) {
                    eventsFlush = flush.get("flush_id").asText();
                }
            }
            JsonNode run = story.get("runs").get("items").get(0);
            JsonNode quarantined = story.get("quarantine").get("items").get(0);

            assertThat(run("correlate", "req-first", "--server", url)).isZero();
            String report = stdout();
            assertThat(report).startsWith("request req-first\n")
                    .containsPattern("\npublish \\(store\\)\n  POST /streams/clicks: 200, received \\S+Z, committed"
                            + " \\S+Z \\([0-9.]+ ms\\)\n  2 accepted, 0 deduplicated, 1 quarantined\n")
                    .contains("\nevents (clicks)\n  offsets 1..2: 2 events, 2 materialised, 0 pending\n")
                    .contains("\ndeduplicated (0; completeness: store)\n  none\n")
                    .contains("\nflushes (" + flushes.size() + " of " + flushes.size() + "; completeness: store)\n"
                            + "  flush_id ")
                    .contains("\nruns (1 of 1; completeness: store)\n  run_id ")
                    .contains("\nquarantine (1 of 1; completeness: store)\n  seq " + quarantined.get("seq").asLong()
                            + " (ingested " + quarantined.get("ingested_at").asText() + "): at: "
                            + quarantined.get("errors").get(0).get("reason").asText() + "\n")
                    .endsWith("\ncompleteness: store — flushes " + flushes.size() + " of " + flushes.size()
                            + ", runs 1 of 1, quarantine 1 of 1\n")
                    .doesNotContain("refused");
            for (JsonNode flush : flushes) {
                assertThat(report).containsPattern("\n  " + Pattern.quote(flush.get("flush_id").asText())
                        + " +\\| " + flush.get("target").asText() + " +\\| " + flush.get("first_offset").asLong()
                        + "\\.\\." + flush.get("last_offset").asLong() + " +\\| " + flush.get("rows").asLong()
                        + " +\\| " + Pattern.quote(flush.get("committed_at").asText()) + " +\\| "
                        + flush.get("trace_count").asLong() + " +\\| NULL\n");
            }
            assertThat(report).containsPattern("\n  " + Pattern.quote(run.get("run_id").asText())
                    + " +\\| succeeded \\| " + Pattern.quote(run.get("trigger").asText()) + " +\\| "
                    + Pattern.quote(eventsFlush) + " +\\| " + run.get("trace_count").asLong() + "\n");
            assertThat(report.indexOf("\npublish ")).isLessThan(report.indexOf("\nevents "));
            assertThat(report.indexOf("\nflushes ")).isLessThan(report.indexOf("\nruns "));
            assertThat(report.indexOf("\nruns ")).isLessThan(report.indexOf("\nquarantine "));

            assertThat(run("correlate", "req-first", "--json", "--server", url)).isZero();
            assertThat(CliHarness.JSON.readTree(stdout())).as("--json prints the server's answer")
                    .isEqualTo(get(server, "/correlate?request_id=req-first"));

            // A retry of the good clicks is deduplicated: the report names the request that first wrote them.
            assertThat(publish(server, "clicks", "req-retry", CLICKS.replace(",{\"click_id\":\"bad\",\"url\":\"/c\"}",
                    ""))).isEqualTo(200);
            assertThat(run("correlate", "req-retry", "--server", url)).isZero();
            assertThat(stdout()).startsWith("request req-retry\n")
                    .contains("\n  0 accepted, 2 deduplicated, 0 quarantined\n")
                    .contains("\nevents (clicks)\n  none accepted by this request\n")
                    .contains("\ndeduplicated (2; completeness: store)\n  first written by req-first: offsets 1, 2\n")
                    .containsPattern("\n  " + Pattern.quote(eventsFlush) + " +\\| events ")
                    .contains("\nquarantine (0 of 0; completeness: store)\n  none\n");

            // By an event's idempotency key: the request that wrote it.
            assertThat(run("correlate", "--stream", "clicks", "--key", "c2", "--server", url)).isZero();
            assertThat(stdout()).startsWith("request req-first\n  found by key c2 of clicks: the event at offset 2"
                    + " was first written by this request\n")
                    .contains("\n  2 accepted, 0 deduplicated, 1 quarantined\n");
        }
    }

    @Test
    void aRefusedRequestIsReportedFromTheRingAsNotStored() throws Exception {
        try (Interlace server = start()) {
            String url = server.uri().toString();
            assertThat(publish(server, "orders", "req-bad", "{\"order_id\": 5}")).isEqualTo(422);
            JsonNode story = get(server, "/correlate?request_id=req-bad");

            assertThat(run("correlate", "req-bad", "--server", url)).isZero();
            assertThat(stdout()).isEqualTo("request req-bad\n\n"
                    + "refused (from the in-memory ring of refused requests: nothing of this request was stored)\n"
                    + "  POST /streams/orders: 422 schema_violation, received "
                    + story.get("refused").get("received_at").asText() + " ("
                    + story.get("refused").get("duration_ms").asText() + " ms)\n"
                    + "  " + story.get("refused").get("message").asText() + "\n\n"
                    + "completeness: ring — refused requests kept in memory since "
                    + story.get("ring").get("since").asText() + " (at most 10000), 0 dropped; no events, flushes,"
                    + " runs or quarantine to show\n");
            assertThat(story.get("refused").get("message").asText()).contains("nothing was stored");
        }
    }

    @Test
    void aRetryOfARefusedRequestShowsTheRefusalAsWellAndFailedFlushAttemptsShowTheirError() throws Exception {
        AtomicBoolean warehouseFailing = new AtomicBoolean(true);
        Module fault = FaultModules.failingWarehouseWhile(warehouseFailing::get);
        try (Interlace server = start(List.of(fault), "--max-pending", "1")) {
            String url = server.uri().toString();
            assertThat(publish(server, "orders", "p1", "{\"order_id\":\"a\"}")).isEqualTo(200);
            assertThat(publish(server, "orders", "req-again", "{\"order_id\":\"b\"}")).as("max-pending 1")
                    .isEqualTo(429);
            awaitStory(url, "p1", "a failed flush attempt", story -> story.get("flushes").get("count").asInt() > 0);
            warehouseFailing.set(false);
            JsonNode first = awaitStory(url, "p1", "materialised", story -> story.get("events").get("pending")
                    .asLong() == 0);
            assertThat(publish(server, "orders", "req-again", "{\"order_id\":\"b\"}")).as("the retry")
                    .isEqualTo(200);

            String error = null;
            for (JsonNode flush : first.get("flushes").get("items")) {
                error = flush.get("error").isNull() ? error : flush.get("error").asText();
            }
            assertThat(error).as("a failed attempt's error in %s", first).contains("test fault");
            int flushes = first.get("flushes").get("count").asInt();
            assertThat(run("correlate", "p1", "--server", url)).isZero();
            assertThat(stdout()).contains("\n  offsets 1..1: 1 event, 1 materialised, 0 pending\n")
                    .contains("\nflushes (" + flushes + " of " + flushes + "; completeness: store)\n")
                    .containsPattern("\n  flush-\\S+ +\\| events \\| 1\\.\\.1 +\\| 1 +\\| NULL +\\| 1 +\\| "
                            + Pattern.quote(error) + "\n")
                    .containsPattern("\n  flush-\\S+ +\\| events \\| 1\\.\\.1 +\\| 1 +\\| \\S+Z +\\| 1 +\\| NULL\n")
                    .doesNotContain("refused");

            JsonNode refusal = get(server, "/correlate?request_id=req-again").get("refused");
            assertThat(run("correlate", "req-again", "--server", url)).isZero();
            assertThat(stdout()).startsWith("request req-again\n\npublish (store)\n  POST /streams/orders: 200, ")
                    .contains("\n  1 accepted, 0 deduplicated, 0 quarantined\n\n"
                            + "refused as well (from the in-memory ring of refused requests)\n"
                            + "  POST /streams/orders: 429 backpressure, received "
                            + refusal.get("received_at").asText()
                            + " (" + refusal.get("duration_ms").asText() + " ms)\n"
                            + "  " + refusal.get("message").asText() + "\n\nevents (orders)\n")
                    .containsPattern("\ncompleteness: store — flushes \\d+ of \\d+, runs \\d+ of \\d+,"
                            + " quarantine 0 of 0\n$");
        }
    }

    @Test
    void anUnknownRequestOrKeyPrintsTheServersMessageAndExitsOne() {
        try (Interlace server = start()) {
            String url = server.uri().toString();
            assertThat(run("correlate", "never-sent", "--server", url)).isEqualTo(Main.FAILED);
            assertThat(stdout()).isEmpty();
            assertThat(stderr()).startsWith("interlace correlate: unknown_request: nothing is recorded for request"
                    + " never-sent: no publish record (kept 7d) and not among the refused requests kept in memory");

            assertThat(run("correlate", "--stream", "clicks", "--key", "nope", "--server", url))
                    .isEqualTo(Main.FAILED);
            assertThat(stderr()).startsWith("interlace correlate: unknown_key: no stored event of clicks has key nope");

            assertThat(run("correlate", "--stream", "nope", "--key", "k", "--server", url)).isEqualTo(Main.FAILED);
            assertThat(stderr()).contains("unknown_stream: no stream named nope");
        }
    }

    @Test
    void aMissingOrAmbiguousRequestIsAUsageError() {
        assertThat(run("correlate")).isEqualTo(Main.USAGE);
        assertThat(stderr()).contains("interlace correlate: no request id given")
                .contains("usage: interlace correlate <request-id> | --stream S --key K");
        assertThat(run("correlate", "a", "b")).isEqualTo(Main.USAGE);
        assertThat(stderr()).contains("give one request id");
        assertThat(run("correlate", "--stream", "clicks")).isEqualTo(Main.USAGE);
        assertThat(stderr()).contains("--stream and --key go together");
        assertThat(run("correlate", "req-1", "--stream", "clicks", "--key", "c1")).isEqualTo(Main.USAGE);
        assertThat(stderr()).contains("not both");
        assertThat(run("correlate", "req-1", "--colour", "red")).isEqualTo(Main.USAGE);
        assertThat(stderr()).contains("unknown option --colour");
        assertThat(run("correlate", "req-1", "--server")).isEqualTo(Main.USAGE);
        assertThat(stderr()).contains("--server needs a value");
        assertThat(stdout()).isEmpty();
    }

    /** The correlation once its events and quarantine are flushed and its run has succeeded. */
    private JsonNode awaitStory(String url, String requestId) throws Exception {
        return awaitStory(url, requestId, "flushed, quarantine flushed and a succeeded run", story -> {
            boolean quarantineFlushed = false;
            for (JsonNode flush : story.get("flushes").get("items")) {
                quarantineFlushed |= flush.get("target").asText().equals("quarantine");
            }
            JsonNode runs = story.get("runs").get("items");
            return runs.size() > 0 && runs.get(0).get("status").asText().equals("succeeded")
                    && story.get("events").get("pending").asLong() == 0 && quarantineFlushed;
        });
    }

    /** The correlation once {@code condition} holds, through {@code interlace correlate --json}. */
    private JsonNode awaitStory(String url, String requestId, String description, Predicate<JsonNode> condition)
            throws Exception {
        return Eventually.get(description, Duration.ofSeconds(20), () -> {
            assertThat(run("correlate", requestId, "--json", "--server", url)).isZero();
            return CliHarness.JSON.readTree(stdout());
        }, condition);
    }

}
