package dev.interlace.integration.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.runtime.Interlace;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@code interlace sql} against a real server. */
class SqlCommandTest extends ServerCommandTest {

    @Test
    void printsATableOfTheRowsAndJsonOnRequest() throws Exception {
        try (Interlace server = start()) {
            HttpClient.newHttpClient().send(HttpRequest.newBuilder(server.uri().resolve("/streams/orders"))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"order_id\":\"o1\",\"total\":49.5}")).build(),
                    HttpResponse.BodyHandlers.discarding());
            server.instance(dev.interlace.runtime.flush.Flusher.class).drain(Duration.ofSeconds(20));

            assertThat(run("sql", "SELECT order_id, total, meta FROM streams.orders", "--server",
                    server.uri().toString())).isZero();
            assertThat(stdout()).isEqualTo(
                    "order_id | total | meta\n"
                            + "---------+-------+-----\n"
                            + "o1       | 49.50 | NULL\n"
                            + "(1 row)\n");
            assertThat(run("sql", "SELECT 1 AS one", "--server=" + server.uri(), "--json")).isZero();
            assertThat(stdout()).contains("\"rows\" : [ [ 1 ] ]");

            assertThat(run("sql", "DELETE FROM streams.orders", "--server", server.uri().toString())).isEqualTo(1);
            assertThat(stderr()).contains("read_only: only queries run here")
                    .as("no key is involved on an open loopback server").doesNotContain("API key");
        }
    }

    @Test
    void usageErrorsExitTwoAndAnUnreachableServerExitsOne() {
        assertThat(run("sql")).isEqualTo(2);
        assertThat(stderr()).contains("no query given");
        assertThat(run("sql", "SELECT 1", "--color")).isEqualTo(2);
        assertThat(run("sql", "SELECT 1", "--server", "http://127.0.0.1:1")).isEqualTo(1);
        assertThat(stderr()).contains("cannot reach http://127.0.0.1:1");
    }

    @Test
    void aTruncatedResultIsPrintedWholeOnStdoutWithAWarningOnStderr() {
        try (Interlace server = start()) {
            String url = server.uri().toString();
            assertThat(run("sql", "SELECT range AS n FROM range(10005)", "--server", url)).isZero();
            String table = stdout();
            assertThat(table.lines().filter(line -> line.matches("\\d+\\s*")).count()).isEqualTo(10_000);
            assertThat(table).endsWith("(10000 rows, truncated: the server caps results)\n");
            assertThat(stderr()).isEqualTo("interlace sql: warning: the result is truncated: only its first 10000"
                    + " rows were returned (the server's row or size bound); add LIMIT/OFFSET, select fewer columns or"
                    + " aggregate\n");

            assertThat(run("sql", "SELECT range AS n FROM range(10005)", "--server", url, "--json")).isZero();
            assertThat(stdout()).contains("\"truncated\" : true").doesNotContain("warning");
            assertThat(stderr()).startsWith("interlace sql: warning: the result is truncated");

            assertThat(run("sql", "SELECT range AS n FROM range(10000)", "--server", url)).isZero();
            assertThat(stdout()).endsWith("(10000 rows)\n");
            assertThat(stderr()).isEmpty();
        }
    }
}
