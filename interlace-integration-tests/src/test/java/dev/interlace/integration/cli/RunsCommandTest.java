package dev.interlace.integration.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.runtime.Interlace;
import dev.interlace.runtime.cli.CliHarness;
import dev.interlace.runtime.config.ConfigLoader;
import dev.interlace.runtime.testing.Eventually;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code interlace run} and {@code interlace runs} against a real server with the example models. */
class RunsCommandTest {

    @TempDir
    Path dataDirectory;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return CliHarness.main(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8)).run(args);
    }

    @Test
    void runQueuesAModelAndRunsListsItWithFilters() throws Exception {
        try (Interlace server = Interlace.builder().config(ConfigLoader.load(new String[] {"--port", "0",
                "--data-dir", dataDirectory.toString()}, Map.of()).config()).start()) {
            String url = server.uri().toString();
            assertThat(run("run", "revenue_per_day", "--server", url)).isZero();
            String queued = out.toString(StandardCharsets.UTF_8);
            assertThat(queued).startsWith("queued run-");
            String id = queued.substring("queued ".length(), queued.indexOf(' ', "queued ".length()));
            out.reset();

            String listing = Eventually.get("the run succeeded", Duration.ofSeconds(20), () -> {
                out.reset();
                assertThat(run("runs", "--trigger", "manual", "--server", url)).isZero();
                return out.toString(StandardCharsets.UTF_8);
            }, text -> text.contains("succeeded"));
            assertThat(listing).startsWith("id ").contains(id).contains("manual").contains("succeeded")
                    .contains("(1 of 1 runs)");

            assertThat(run("run", "nope", "--server", url)).isEqualTo(1);
            assertThat(err.toString(StandardCharsets.UTF_8)).contains("unknown_model");
            assertThat(run("runs", "--status", "bogus", "--server", url)).isEqualTo(1);
            assertThat(run("runs", "--colour", "red")).isEqualTo(2);
            assertThat(run("run")).isEqualTo(2);
        }
    }
}
