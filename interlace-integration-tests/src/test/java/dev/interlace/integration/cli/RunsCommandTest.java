package dev.interlace.integration.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.runtime.Interlace;
import dev.interlace.runtime.testing.Eventually;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@code interlace run} and {@code interlace runs} against a real server with the example models. */
class RunsCommandTest extends ServerCommandTest {

    @Test
    void runQueuesAModelAndRunsListsItWithFilters() throws Exception {
        try (Interlace server = start()) {
            String url = server.uri().toString();
            assertThat(run("run", "revenue_per_day", "--server", url)).isZero();
            String queued = stdout();
            assertThat(queued).startsWith("queued run-");
            String id = queued.substring("queued ".length(), queued.indexOf(' ', "queued ".length()));

            String listing = Eventually.get("the run succeeded", Duration.ofSeconds(20), () -> {
                assertThat(run("runs", "--trigger", "manual", "--server", url)).isZero();
                return stdout();
            }, text -> text.contains("succeeded"));
            assertThat(listing).startsWith("id ").contains(id).contains("manual").contains("succeeded")
                    .contains("(1 of 1 runs)");

            assertThat(run("run", "nope", "--server", url)).isEqualTo(1);
            assertThat(stderr()).contains("unknown_model");
            assertThat(run("runs", "--status", "bogus", "--server", url)).isEqualTo(1);
            assertThat(run("runs", "--colour", "red")).isEqualTo(2);
            assertThat(run("run")).isEqualTo(2);
        }
    }
}
