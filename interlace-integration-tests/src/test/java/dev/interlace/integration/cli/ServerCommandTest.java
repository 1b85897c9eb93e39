package dev.interlace.integration.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.inject.Module;
import dev.interlace.runtime.Interlace;
import dev.interlace.runtime.cli.CliHarness;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the CLI tests against a real server share: a data directory per test, the command line with its output
 * captured (each {@link #run} starts with empty output) and a server on that directory and an ephemeral port.
 */
abstract class ServerCommandTest {

    @TempDir
    Path dataDirectory;

    final CliHarness cli = new CliHarness();

    /** Runs {@code interlace <args>}; returns its exit status, its output in {@link #stdout()}/{@link #stderr()}. */
    int run(String... args) {
        return cli.run(args);
    }

    String stdout() {
        return cli.stdout();
    }

    String stderr() {
        return cli.stderr();
    }

    /** A server on {@link #dataDirectory} with extra flags. */
    Interlace start(String... flags) {
        return start(List.of(), flags);
    }

    /** A server on {@link #dataDirectory} with binding overrides and extra flags. */
    Interlace start(List<Module> overrides, String... flags) {
        return CliHarness.start(dataDirectory, overrides, flags);
    }

    /** Publishes {@code body} as JSON under {@code requestId}; returns the status. */
    int publish(Interlace server, String stream, String requestId, String body) throws Exception {
        return cli.publish(server, stream, requestId, body);
    }

    /** {@code GET path}, which must answer 200; its JSON body. */
    JsonNode get(Interlace server, String path) throws Exception {
        return cli.get(server, path);
    }
}
