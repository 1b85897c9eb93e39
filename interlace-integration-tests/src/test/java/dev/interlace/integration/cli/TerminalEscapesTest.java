package dev.interlace.integration.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.runtime.Interlace;
import dev.interlace.runtime.cli.CliHarness;
import dev.interlace.runtime.flush.Flusher;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Control characters that clients put in stored data — a refused request's path, a quarantined event's field name, a
 * value — are printed escaped in the CLI's tables, so that what an unauthenticated client sent cannot move the
 * operator's cursor, erase lines or retitle the terminal.
 */
class TerminalEscapesTest {

    /** Erases the whole screen, then the current line, on a VT100-style terminal. */
    private static final String ERASE = "\u001b[2J\u001b[2K";
    private static final String ERASE_ESCAPED = "\\x1b[2J\\x1b[2K";

    @TempDir
    Path dataDirectory;

    private final CliHarness cli = new CliHarness();

    @Test
    void logsApiQuarantineListAndSqlShowControlCharactersEscaped() throws Exception {
        try (Interlace server = CliHarness.start(dataDirectory, List.of())) {
            String url = server.uri().toString();
            refusedWithRawPath(server, "/streams/no" + ERASE + "pe");
            assertThat(cli.publish(server, "clicks", "drifted-1", "{\"click_id\":\"c1\",\"url\":\"/\","
                    + "\"at\":\"2026-12-01T00:00:00Z\",\"" + json(ERASE) + "\":\"bell\\u0007\"}")).isEqualTo(200);
            assertThat(cli.publish(server, "orders", "hostile-1", "{\"order_id\":\"" + json(ERASE) + "\\u009b2J\","
                    + "\"total\":1}")).isEqualTo(200);
            server.instance(Flusher.class).drain(Duration.ofSeconds(20));

            assertThat(cli.run("logs", "api", "--server", url)).as(cli.stderr()).isZero();
            // The HTTP layer refuses a target holding control bytes and records it percent-encoded.
            assertEscaped(cli.stdout()).contains("/streams/no%1B[2J%1B[2Kpe");

            assertThat(cli.run("quarantine", "list", "clicks", "--server", url)).as(cli.stderr()).isZero();
            assertEscaped(cli.stdout()).contains(ERASE_ESCAPED);

            assertThat(cli.run("sql", "SELECT order_id FROM streams.orders", "--server", url)).as(cli.stderr())
                    .isZero();
            assertEscaped(cli.stdout()).contains(ERASE_ESCAPED + "\\x9b2J");
        }
    }

    @Test
    void correlateShowsTheControlCharactersOfAQuarantinedFieldNameEscaped() throws Exception {
        try (Interlace server = CliHarness.start(dataDirectory, List.of())) {
            assertThat(cli.publish(server, "clicks", "drifted-2", "{\"click_id\":\"c2\",\"url\":\"/\","
                    + "\"at\":\"2026-12-01T00:00:00Z\",\"" + json(ERASE) + "\":1}")).isEqualTo(200);

            assertThat(cli.run("correlate", "drifted-2", "--server", server.uri().toString())).as(cli.stderr())
                    .isZero();
            assertEscaped(cli.stdout()).contains(ERASE_ESCAPED);
        }
    }

    @Test
    void aServerErrorMessageOnStderrShowsControlCharactersEscaped() throws Exception {
        try (Interlace server = CliHarness.start(dataDirectory, List.of())) {
            String url = server.uri().toString();
            assertThat(cli.run("sql", "SELECT \"" + ERASE + "\" FROM streams.orders", "--server", url)).isOne();
            assertEscaped(cli.stderr()).contains(ERASE_ESCAPED).startsWith("interlace sql: ");
        }
    }

    @Test
    void jsonOutputAndTailEscapeDelAndC1ControlsAndKeepTheValue() throws Exception {
        String hostile = ERASE + "\u007f\u009b2J\u0085";
        String value = "\u001b[2J\u001b[2K\u007f\u009b2J\u0085";
        try (Interlace server = CliHarness.start(dataDirectory, List.of())) {
            String url = server.uri().toString();
            assertThat(cli.publish(server, "orders", "hostile-2", "{\"order_id\":\"" + json(hostile) + "\","
                    + "\"total\":1}")).isEqualTo(200);
            server.instance(Flusher.class).drain(Duration.ofSeconds(20));

            assertThat(cli.run("tail", "orders", "--server", url)).as(cli.stderr()).isZero();
            String tailed = cli.stdout();
            assertEscaped(tailed).contains("\\u001B[2J", "\\u007F", "\\u009B2J", "\\u0085");
            assertThat(new com.fasterxml.jackson.databind.ObjectMapper().readTree(tailed.lines().findFirst()
                    .orElseThrow()).at("/event/order_id").asText()).as("the same JSON value").isEqualTo(value);

            assertThat(cli.run("sql", "SELECT order_id FROM streams.orders", "--json", "--server", url))
                    .as(cli.stderr()).isZero();
            String json = cli.stdout();
            assertEscaped(json).contains("\\u007F", "\\u009B2J");
            assertThat(new com.fasterxml.jackson.databind.ObjectMapper().readTree(json).at("/rows/0/0").asText())
                    .isEqualTo(value);
        }
    }

    /** Asserts that {@code output} holds no control character but its line ends. */
    private static org.assertj.core.api.AbstractStringAssert<?> assertEscaped(String output) {
        assertThat(output.codePoints().filter(c -> c != '\n' && Character.getType(c) == Character.CONTROL)
                .mapToObj(c -> String.format("U+%04X", c)).toList()).as(output).isEmpty();
        return assertThat(output);
    }

    /** {@code text} as a JSON string's content, control characters as {@code \}{@code uXXXX}. */
    private static String json(String text) {
        StringBuilder escaped = new StringBuilder();
        text.chars().forEach(c -> escaped.append(c < 0x20 ? String.format("\\u%04x", c) : String.valueOf((char) c)));
        return escaped.toString();
    }

    /** Sends a publish whose request target holds raw control bytes (no HTTP client library writes one). */
    private static void refusedWithRawPath(Interlace server, String path) throws Exception {
        try (Socket socket = new Socket(server.uri().getHost(), server.uri().getPort())) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(("POST " + path + " HTTP/1.1\r\nHost: " + server.uri().getAuthority()
                    + "\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}")
                    .getBytes(StandardCharsets.UTF_8));
            out.flush();
            InputStream in = socket.getInputStream();
            String status = new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().findFirst().orElse("");
            assertThat(status).startsWith("HTTP/1.1 4");
        }
    }
}
