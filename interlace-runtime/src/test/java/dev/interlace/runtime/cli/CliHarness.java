package dev.interlace.runtime.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.inject.Module;
import dev.interlace.runtime.Interlace;
import dev.interlace.runtime.config.ConfigLoader;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What CLI tests against a real server share: running a command with its output captured, starting a server on a
 * data directory and an ephemeral port, and publishing to or reading from it over HTTP. Public, with {@code main}
 * factories for {@link Main}'s package-private constructors, for the CLI tests against a whole server in
 * interlace-integration-tests (package {@code dev.interlace.integration.cli}).
 */
public final class CliHarness {

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final HttpClient http = HttpClient.newHttpClient();

    /** How the CLI tests read a server's JSON answers: numbers exactly, as the CLI reads them. */
    public static final ObjectMapper JSON = ServerClient.JSON;

    /** {@code interlace}, run with arguments: what {@link #main} returns. */
    @FunctionalInterface
    public interface CommandLine {
        /** Runs {@code interlace <args>}; returns its exit status. */
        int run(String... args);
    }

    /** The command line writing to {@code out} and {@code err}, with the process's environment. */
    public static CommandLine main(PrintStream out, PrintStream err) {
        return new Main(out, err)::run;
    }

    /** The command line writing to {@code out} and {@code err}, with {@code environment}. */
    public static CommandLine main(PrintStream out, PrintStream err, Map<String, String> environment) {
        return new Main(out, err, environment)::run;
    }

    /** The command line reading {@code stdin}, as on a terminal if {@code terminal}. */
    public static CommandLine main(java.util.function.Supplier<java.io.InputStream> stdin, PrintStream out,
            PrintStream err, Map<String, String> environment, boolean terminal) {
        return new Main(stdin, out, err, environment, terminal)::run;
    }

    /** Runs {@code interlace <args>}; returns its exit status, its output in {@link #stdout()}/{@link #stderr()}. */
    public int run(String... args) {
        return run(System.getenv(), args);
    }

    /** As {@link #run(String...)}, with {@code environment} as the command's environment. */
    public int run(Map<String, String> environment, String... args) {
        out.reset();
        err.reset();
        return new Main(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), environment).run(args);
    }

    /** As {@link #run(String...)}, with {@code stdin} as standard input and, if {@code terminal}, as on a terminal. */
    public int runWithInput(String stdin, boolean terminal, String... args) {
        out.reset();
        err.reset();
        return new Main(() -> new java.io.ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                System.getenv(), terminal).run(args);
    }

    public String stdout() {
        return out.toString(StandardCharsets.UTF_8);
    }

    public String stderr() {
        return err.toString(StandardCharsets.UTF_8);
    }

    /** A server on {@code dataDirectory} and an ephemeral port, with extra flags and binding overrides. */
    public static Interlace start(Path dataDirectory, List<Module> overrides, String... flags) {
        List<String> args = new ArrayList<>(List.of("--port", "0", "--data-dir", dataDirectory.toString()));
        args.addAll(List.of(flags));
        return Interlace.builder().config(ConfigLoader.load(args.toArray(String[]::new), Map.of()).config())
                .override(overrides.toArray(Module[]::new)).start();
    }

    /** Publishes {@code body} as JSON under {@code requestId}; returns the status. */
    public int publish(Interlace server, String stream, String requestId, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(server.uri() + "/streams/" + stream))
                .header("Content-Type", "application/json").header("X-Request-Id", requestId)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString())
                .statusCode();
    }

    /** {@code GET path}, which must answer 200; its JSON body. */
    public JsonNode get(Interlace server, String path) throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(server.uri() + path)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return ServerClient.JSON.readTree(response.body());
    }
}
