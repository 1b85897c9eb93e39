package dev.interlace.integration.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.runtime.Interlace;
import dev.interlace.runtime.cli.CliHarness;
import dev.interlace.runtime.config.ConfigLoader;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code interlace sql} against a real server. */
class SqlCommandTest {

    @TempDir
    Path dataDirectory;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return CliHarness.main(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8)).run(args);
    }

    @Test
    void printsATableOfTheRowsAndJsonOnRequest() throws Exception {
        try (Interlace server = Interlace.builder().config(ConfigLoader.load(new String[] {"--port", "0",
                "--data-dir", dataDirectory.toString()}, Map.of()).config()).start()) {
            HttpClient.newHttpClient().send(HttpRequest.newBuilder(server.uri().resolve("/streams/orders"))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"order_id\":\"o1\",\"total\":49.5}")).build(),
                    HttpResponse.BodyHandlers.discarding());
            server.instance(dev.interlace.runtime.flush.Flusher.class).drain(Duration.ofSeconds(20));

            assertThat(run("sql", "SELECT order_id, total, meta FROM streams.orders", "--server",
                    server.uri().toString())).isZero();
            assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo(
                    "order_id | total | meta\n"
                            + "---------+-------+-----\n"
                            + "o1       | 49.50 | NULL\n"
                            + "(1 row)\n");
            out.reset();
            assertThat(run("sql", "SELECT 1 AS one", "--server=" + server.uri(), "--json")).isZero();
            assertThat(out.toString(StandardCharsets.UTF_8)).contains("\"rows\" : [ [ 1 ] ]");

            assertThat(run("sql", "DELETE FROM streams.orders", "--server", server.uri().toString())).isEqualTo(1);
            assertThat(err.toString(StandardCharsets.UTF_8)).contains("read_only: only queries run here")
                    .as("no key is involved on an open loopback server").doesNotContain("API key");
        }
    }

    @Test
    void usageErrorsExitTwoAndAnUnreachableServerExitsOne() {
        assertThat(run("sql")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("no query given");
        assertThat(run("sql", "SELECT 1", "--color")).isEqualTo(2);
        assertThat(run("sql", "SELECT 1", "--server", "http://127.0.0.1:1")).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("cannot reach http://127.0.0.1:1");
    }

    @Test
    void aTruncatedResultIsPrintedWholeOnStdoutWithAWarningOnStderr() {
        CliHarness cli = new CliHarness();
        try (Interlace server = CliHarness.start(dataDirectory, java.util.List.of())) {
            String url = server.uri().toString();
            assertThat(cli.run("sql", "SELECT range AS n FROM range(10005)", "--server", url)).isZero();
            String table = cli.stdout();
            assertThat(table.lines().filter(line -> line.matches("\\d+\\s*")).count()).isEqualTo(10_000);
            assertThat(table).endsWith("(10000 rows, truncated: the server caps results)\n");
            assertThat(cli.stderr()).isEqualTo("interlace sql: warning: the result is truncated: only its first 10000"
                    + " rows were returned (the server's row or size bound); add LIMIT/OFFSET, select fewer columns or"
                    + " aggregate\n");

            assertThat(cli.run("sql", "SELECT range AS n FROM range(10005)", "--server", url, "--json")).isZero();
            assertThat(cli.stdout()).contains("\"truncated\" : true").doesNotContain("warning");
            assertThat(cli.stderr()).startsWith("interlace sql: warning: the result is truncated");

            assertThat(cli.run("sql", "SELECT range AS n FROM range(10000)", "--server", url)).isZero();
            assertThat(cli.stdout()).endsWith("(10000 rows)\n");
            assertThat(cli.stderr()).isEmpty();
        }
    }
}
