package dev.interlace.integration.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.inject.Module;
import dev.interlace.runtime.Interlace;
import dev.interlace.runtime.cli.CliHarness;
import dev.interlace.runtime.cli.Main;
import dev.interlace.runtime.ops.EpochMicros;
import dev.interlace.runtime.testing.FaultModules;
import java.time.Instant;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** {@code interlace logs api} and {@code interlace logs sys} against a real server. */
class LogsCommandTest extends ServerCommandTest {

    private static final Pattern SYS_FOOTER = Pattern.compile("\\((\\d+) of (\\d+) records; completeness: store\\)\n$");


    @Test
    void logsApiListsPublishesAndRefusedRequestsNewestFirstWithFiltersAndAnHonestFooter() throws Exception {
        try (Interlace server = start(List.of(), "--refused-requests", "2")) {
            String url = server.uri().toString();
            Instant before = Instant.now().minusMillis(1);
            for (int i = 0; i < 3; i++) {
                assertThat(publish(server, "orders", "ok-" + i, "{\"order_id\":\"o" + i + "\"}")).isEqualTo(200);
            }
            assertThat(publish(server, "clicks", "ok-clicks", "[{\"click_id\":\"c1\",\"url\":\"/\","
                    + "\"at\":\"2026-11-29T08:00:00Z\"},{\"click_id\":\"c2\",\"url\":\"/\"}]")).isEqualTo(200);
            assertThat(publish(server, "orders", "bad-1", "not json")).isEqualTo(400);
            assertThat(publish(server, "nope", "bad-2", "{}")).isEqualTo(404);
            assertThat(publish(server, "orders", "bad-3", "{\"order_id\": 1}")).isEqualTo(422);
            Instant after = Instant.now().plusMillis(1);
            JsonNode all = get(server, "/logs/api");
            String since = all.get("ring").get("since").asText();

            assertThat(run("logs", "api", "--server", url)).isZero();
            List<String> lines = stdout().lines().toList();
            assertThat(lines.get(0)).matches("received_at +\\| request_id +\\| method \\| path +\\| status \\|"
                    + " outcome +\\| duration_ms \\| source");
            assertThat(lines).as("newest first; bad-1 was dropped from the ring of 2").hasSize(2 + 6 + 1);
            assertThat(lines.subList(2, 8).stream().map(line -> line.split(" \\| ")[1].strip()).toList())
                    .containsExactly("bad-3", "bad-2", "ok-clicks", "ok-2", "ok-1", "ok-0");
            assertThat(lines.get(2)).matches("\\S+Z +\\| bad-3 +\\| POST +\\| /streams/orders +\\| 422 +\\|"
                    + " schema_violation +\\| \\S+ +\\| ring");
            assertThat(lines.get(3)).matches("\\S+Z +\\| bad-2 +\\| POST +\\| /streams/nope +\\| 404 +\\|"
                    + " unknown_stream +\\| \\S+ +\\| ring");
            assertThat(lines.get(4)).matches("\\S+Z +\\| ok-clicks +\\| POST +\\| /streams/clicks +\\| 200 +\\|"
                    + " 1 accepted, 0 deduplicated, 1 quarantined +\\| \\S+ +\\| store");
            assertThat(lines.get(7)).matches("\\S+Z +\\| ok-0 +\\| POST +\\| /streams/orders +\\| 200 +\\|"
                    + " 1 accepted, 0 deduplicated, 0 quarantined +\\| \\S+ +\\| store");
            assertThat(lines.get(8)).isEqualTo("(6 of 6 requests; completeness: ring — refused requests kept in"
                    + " memory since " + since + ", 1 dropped)");

            assertThat(run("logs", "api", "--status", "200", "--stream", "orders", "--server", url)).isZero();
            assertThat(stdout()).contains("| ok-0 ").contains("| ok-1 ").contains("| ok-2 ")
                    .doesNotContain("ok-clicks").doesNotContain("bad-")
                    .endsWith("\n(3 of 3 requests; completeness: store)\n");

            assertThat(run("logs", "api", "--status", "422", "--server", url)).isZero();
            assertThat(stdout()).contains("| bad-3 ").doesNotContain("bad-2").doesNotContain("ok-")
                    .endsWith("\n(1 of 1 requests; completeness: ring — refused requests kept in memory since "
                            + since + ", 1 dropped)\n");

            assertThat(run("logs", "api", "--request-id", "ok-1", "--server", url)).isZero();
            assertThat(stdout().lines().toList()).hasSize(4);
            assertThat(stdout()).contains("| ok-1 ").contains("\n(1 of 1 requests; ");

            assertThat(run("logs", "api", "--status", "200", "--limit", "1", "--server", url)).isZero();
            assertThat(stdout()).contains("| ok-clicks ").doesNotContain("ok-2")
                    .endsWith("\n(1 of 4 requests; completeness: store)\n");

            assertThat(run("logs", "api", "--since", before.toString(), "--until", Long.toString(EpochMicros.of(after)),
                    "--server", url)).isZero();
            assertThat(stdout()).contains("\n(6 of 6 requests; ");
            assertThat(run("logs", "api", "--until", before.toString(), "--server", url)).isZero();
            assertThat(stdout()).contains("\n(0 of 0 requests; ").doesNotContain("ok-");

            assertThat(run("logs", "api", "--stream", "orders", "--json", "--server", url)).isZero();
            assertThat(withoutRequestId(CliHarness.JSON.readTree(stdout()))).as("--json prints the server's answer")
                    .isEqualTo(withoutRequestId(get(server, "/logs/api?stream=orders")));

            assertThat(run("logs", "api", "--status", "abc", "--server", url)).isEqualTo(Main.FAILED);
            assertThat(stderr()).isEqualTo("interlace logs: invalid_parameter: status must be an HTTP status code, e.g."
                    + " 200 or 429\n");
            assertThat(run("logs", "api", "--since", "yesterday", "--server", url)).isEqualTo(Main.FAILED);
            assertThat(stderr()).contains("invalid_parameter: since must be RFC 3339");
        }
    }

    @Test
    void logsSysListsSystemRecordsWithTheirStreamAndIdAndFilters() throws Exception {
        Module failingWarehouse = FaultModules.failingWarehouse();
        try (Interlace server = start(List.of(failingWarehouse), "--max-pending", "1")) {
            String url = server.uri().toString();
            Instant before = Instant.now().minusMillis(1);
            assertThat(publish(server, "orders", "p1", "{\"order_id\":\"a\"}")).isEqualTo(200);
            assertThat(publish(server, "orders", "p2", "{\"order_id\":\"b\"}")).isEqualTo(429);
            Instant after = Instant.now().plusMillis(1);
            JsonNode backpressure = get(server, "/logs/sys?event=backpressure_on").get("records").get(0);
            JsonNode startup = get(server, "/logs/sys?event=startup").get("records").get(0);
            assertThat(startup.get("id").asText()).startsWith("boot-");

            assertThat(run("logs", "sys", "--event", "backpressure_on", "--server", url)).isZero();
            List<String> lines = stdout().lines().toList();
            assertThat(lines).hasSize(4);
            assertThat(lines.get(0)).matches("at +\\| event +\\| stream \\| id \\| message");
            assertThat(lines.get(2)).isEqualTo(backpressure.get("at").asText() + " | backpressure_on | orders | p2 | "
                    + backpressure.get("message").asText());
            assertThat(lines.get(3)).isEqualTo("(1 of 1 records; completeness: store)");

            assertThat(run("logs", "sys", "--id", "p2", "--stream", "orders", "--server", url)).isZero();
            assertThat(stdout()).contains("| backpressure_on | orders | p2 |")
                    .endsWith("\n(1 of 1 records; completeness: store)\n");

            assertThat(run("logs", "sys", "--event", "startup", "--server", url)).isZero();
            assertThat(stdout()).contains("| startup | NULL   | " + startup.get("id").asText() + " | ")
                    .endsWith("\n(1 of 1 records; completeness: store)\n");

            assertThat(run("logs", "sys", "--server", url)).isZero();
            String everything = stdout();
            Matcher footer = SYS_FOOTER.matcher(everything);
            assertThat(footer.find()).as(everything).isTrue();
            assertThat(footer.group(1)).as("every record is listed").isEqualTo(footer.group(2));
            assertThat(everything.lines().count()).isEqualTo(2 + Long.parseLong(footer.group(1)) + 1);
            List<String> events = everything.lines().skip(2).limit(Long.parseLong(footer.group(1)))
                    .map(line -> line.split(" \\| ")[1].strip()).toList();
            assertThat(events).contains("startup", "backpressure_on");
            assertThat(events.indexOf("backpressure_on")).as("newest first").isLessThan(events.indexOf("startup"));

            assertThat(run("logs", "sys", "--limit", "1", "--server", url)).isZero();
            assertThat(stdout()).containsPattern("\n\\(1 of \\d+ records; completeness: store\\)\n$");
            assertThat(stdout().lines().count()).isEqualTo(4);

            assertThat(run("logs", "sys", "--event", "backpressure_on", "--since", before.toString(), "--until",
                    Long.toString(EpochMicros.of(after)), "--server", url)).isZero();
            assertThat(stdout()).endsWith("\n(1 of 1 records; completeness: store)\n");
            assertThat(run("logs", "sys", "--event", "backpressure_on", "--since", after.toString(), "--server",
                    url)).isZero();
            assertThat(stdout()).endsWith("\n(0 of 0 records; completeness: store)\n");

            assertThat(run("logs", "sys", "--event", "startup", "--json", "--server", url)).isZero();
            assertThat(withoutRequestId(CliHarness.JSON.readTree(stdout()))).as("--json prints the server's answer")
                    .isEqualTo(withoutRequestId(get(server, "/logs/sys?event=startup")));

            assertThat(run("logs", "sys", "--limit", "0", "--server", url)).isEqualTo(Main.FAILED);
            assertThat(stderr()).contains("invalid_parameter: limit must be between 1 and 1000");
        }
    }

    @Test
    void logsWithoutApiOrSysOrWithAnotherOptionIsAUsageError() {
        assertThat(run("logs")).isEqualTo(Main.USAGE);
        assertThat(stderr()).contains("interlace logs: say which log first: api (requests) or sys (system records)")
                .contains("usage: interlace logs api [--stream S]").contains(" | sys [--event E]");
        assertThat(run("logs", "--stream", "orders", "api")).isEqualTo(Main.USAGE);
        assertThat(stderr()).contains("say which log first");
        assertThat(run("logs", "http")).isEqualTo(Main.USAGE);
        assertThat(stderr()).contains("unknown log \"http\"; choose api (requests) or sys (system records)");
        assertThat(run("logs", "api", "--event", "startup")).isEqualTo(Main.USAGE);
        assertThat(stderr()).contains("unknown option --event for logs api");
        assertThat(run("logs", "sys", "--request-id", "r1")).isEqualTo(Main.USAGE);
        assertThat(stderr()).contains("unknown option --request-id for logs sys");
        assertThat(run("logs", "api", "--limit")).isEqualTo(Main.USAGE);
        assertThat(stderr()).contains("--limit needs a value");
        assertThat(run("logs", "api", "extra")).isEqualTo(Main.USAGE);
        assertThat(stderr()).contains("unexpected argument extra");
        assertThat(stdout()).isEmpty();
    }

    @Test
    void helpListsCorrelateAndLogs() {
        assertThat(run("help")).isZero();
        assertThat(stdout()).containsPattern("\n  correlate +where is my event\\?")
                .containsPattern("\n  logs +list API requests \\(api\\) or system records \\(sys\\)");
    }

    /** An answer without its own request id, which differs between two requests for the same list. */
    private static JsonNode withoutRequestId(JsonNode answer) {
        com.fasterxml.jackson.databind.node.ObjectNode copy = answer.deepCopy();
        copy.remove("request_id");
        return copy;
    }
}
