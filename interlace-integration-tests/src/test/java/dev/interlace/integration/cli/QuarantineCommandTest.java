package dev.interlace.integration.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.interlace.integration.OrdersStream;
import dev.interlace.integration.http.QuarantineReplayTest;
import dev.interlace.integration.http.RebuiltStream;
import dev.interlace.runtime.Interlace;
import dev.interlace.runtime.cli.CliHarness;
import dev.interlace.runtime.cli.Main;
import dev.interlace.runtime.config.ConfigLoader;
import dev.interlace.runtime.stream.StreamCatalog;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code interlace quarantine list} and {@code interlace quarantine replay} against a real server: events of the
 * example {@code clicks} stream quarantined for a field it does not declare, replayed after a restart with a
 * rebuilt {@code @Stream} that declares it.
 */
class QuarantineCommandTest {

    @TempDir
    Path dataDirectory;
    @TempDir
    Path build;

    private final CliHarness cli = new CliHarness();

    private static final String WITH_REFERRERS = String.join("\n",
            "{\"click_id\":\"c1\",\"url\":\"/a\",\"at\":\"2026-12-01T09:00:00Z\",\"referrer\":\"news\"}",
            "{\"click_id\":\"c2\",\"url\":\"/b\",\"at\":\"2026-12-01T09:00:01Z\",\"referrer\":\"ad\"}",
            "{\"click_id\":\"c3\",\"url\":\"/c\",\"at\":\"not a time\",\"referrer\":\"mail\"}");

    @Test
    void listShowsEachEntryWithItsErrorsAndPages() throws Exception {
        try (Interlace server = CliHarness.start(dataDirectory, List.of())) {
            String url = server.uri().toString();
            assertThat(cli.runWithInput(WITH_REFERRERS, false, "publish", "clicks", "--server", url)).isZero();
            assertThat(cli.stdout()).contains("quarantined   3");

            assertThat(cli.run("quarantine", "list", "clicks", "--server", url)).isZero();
            assertThat(cli.stdout()).contains("seq", "received_at", "replayed_to", "event", "errors",
                    "referrer: is not a declared column", "at: ", "(3 of 3 entries)");
            assertThat(cli.stdout().lines().filter(line -> line.startsWith("1 ") || line.startsWith("2 ")
                    || line.startsWith("3 "))).hasSize(3);

            assertThat(cli.run("quarantine", "list", "clicks", "--limit", "2", "--server", url)).isZero();
            assertThat(cli.stdout()).contains("(2 of 3 entries; next page: --after 2)");
            assertThat(cli.run("quarantine", "list", "clicks", "--after", "2", "--json", "--server", url)).isZero();
            JsonNode page = CliHarness.JSON.readTree(cli.stdout());
            assertThat(page.get("items")).hasSize(1);
            assertThat(page.get("items").get(0).get("event").get("click_id").asText()).isEqualTo("c3");

            assertThat(cli.run("quarantine", "list", "nope", "--server", url)).isEqualTo(Main.FAILED);
            assertThat(cli.stderr()).contains("unknown_stream");
            assertThat(cli.run("quarantine", "list", "clicks", "--limit", "0", "--server", url))
                    .isEqualTo(Main.FAILED);
            assertThat(cli.stderr()).contains("invalid_parameter");
        }
    }

    @Test
    void replayTriesFirstThenMovesTheEntriesOnceAndCorrelateShowsWhereTheyCameFrom() throws Exception {
        try (Interlace before = CliHarness.start(dataDirectory, List.of())) {
            assertThat(cli.runWithInput(WITH_REFERRERS, false, "publish", "clicks", "--server",
                    before.uri().toString())).isZero();
        }
        StreamCatalog rebuilt = StreamCatalog.of(List.of(OrdersStream.DESCRIPTOR, RebuiltStream.compile(build,
                "replay.v2", "Clicks", QuarantineReplayTest.CLICKS_WITH_REFERRER)));
        try (Interlace after = Interlace.builder().catalog(rebuilt).config(ConfigLoader.load(new String[] {
                "--port", "0", "--data-dir", dataDirectory.toString()}, Map.of()).config()).start()) {
            String url = after.uri().toString();

            assertThat(cli.run("quarantine", "replay", "clicks", "--all", "--dry-run", "--server", url)).isZero();
            assertThat(cli.stdout()).contains("dry run, nothing was written: 2 would be accepted, 0 deduplicated,"
                    + " 1 still invalid");
            assertThat(cli.get(after, "/streams/clicks").get("head").asLong()).isZero();

            assertThat(cli.run("quarantine", "replay", "clicks", "1", "2", "3", "--server", url)).isZero();
            assertThat(cli.stdout()).contains("2 accepted, 0 deduplicated, 1 still invalid");
            assertThat(cli.stdout().lines().filter(line -> line.matches("1 +\\| accepted +\\| 1 +\\|.*")))
                    .as(cli.stdout()).hasSize(1);
            assertThat(cli.stdout().lines().filter(line -> line.matches("3 +\\| invalid +\\| NULL +\\| at: .*")))
                    .as(cli.stdout()).hasSize(1);
            assertThat(cli.get(after, "/streams/clicks").get("head").asLong()).isEqualTo(2);

            assertThat(cli.run("quarantine", "replay", "clicks", "2", "--json", "--server", url)).isZero();
            JsonNode again = CliHarness.JSON.readTree(cli.stdout());
            assertThat(again.get("results").get(0).get("status").asText()).isEqualTo("already_replayed");
            assertThat(again.get("already_replayed").asLong()).isEqualTo(1);

            assertThat(cli.run("quarantine", "list", "clicks", "--json", "--server", url)).isZero();
            String replayId = CliHarness.JSON.readTree(cli.stdout()).get("items").get(0).get("replayed_by").asText();
            assertThat(cli.run("correlate", replayId, "--server", url)).isZero();
            assertThat(cli.stdout()).contains("replayed from the quarantine (2 of 2", "quarantined_by");

            assertThat(cli.run("quarantine", "replay", "clicks", "7", "--server", url)).isEqualTo(Main.FAILED);
            assertThat(cli.stderr()).contains("unknown_seq");
        }
    }

    @Test
    void commandLineMistakesExit2() {
        assertThat(cli.run("quarantine")).isEqualTo(Main.USAGE);
        assertThat(cli.run("quarantine", "purge", "clicks")).isEqualTo(Main.USAGE);
        assertThat(cli.run("quarantine", "list")).isEqualTo(Main.USAGE);
        assertThat(cli.run("quarantine", "replay", "clicks")).isEqualTo(Main.USAGE);
        assertThat(cli.stderr()).contains("give --all or the sequence numbers");
        assertThat(cli.run("quarantine", "replay", "clicks", "--all", "3")).isEqualTo(Main.USAGE);
        assertThat(cli.run("quarantine", "replay", "clicks", "0")).isEqualTo(Main.USAGE);
        assertThat(cli.run("quarantine", "replay", "clicks", "--all", "--force")).isEqualTo(Main.USAGE);
    }
}
