package dev.interlace.integration.serve;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code interlace serve} as a user runs it: a separate process, the ready line, SIGTERM, the data-dir lock. */
class ServeCommandTest {

    private static final Pattern READY = Pattern.compile("interlace listening on (http://127\\.0\\.0\\.1:(\\d+))");

    @TempDir
    Path dataDirectory;

    private Process serve(String... flags) throws IOException {
        return serve(List.of(), flags);
    }

    private Process serve(List<String> jvmOptions, String... flags) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString()));
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), "dev.interlace.runtime.cli.Main", "serve"));
        command.addAll(List.of(flags));
        return new ProcessBuilder(command).redirectErrorStream(true).start();
    }

    private static String readyLine(Process process) throws IOException {
        BufferedReader reader = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        String line;
        while (System.nanoTime() < deadline && (line = reader.readLine()) != null) {
            if (READY.matcher(line).find()) {
                return line;
            }
        }
        throw new AssertionError("no ready line from interlace serve");
    }

    @Test
    void serveAnswersPublishesThenStopsCleanlyOnSigterm() throws Exception {
        Process server = serve("--port", "0", "--data-dir", dataDirectory.toString());
        try {
            Matcher ready = READY.matcher(readyLine(server));
            assertThat(ready.find()).isTrue();
            URI base = URI.create(ready.group(1));
            HttpClient client = HttpClient.newHttpClient();
            HttpResponse<String> publish = client.send(HttpRequest.newBuilder(base.resolve("/streams/orders"))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"order_id\": \"o1\", \"total\": 49.5}")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(publish.statusCode()).isEqualTo(200);
            assertThat(publish.body()).contains("\"accepted\":1");
            assertThat(client.send(HttpRequest.newBuilder(base.resolve("/health/ready")).build(),
                    HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);

            Process second = serve("--port", "0", "--data-dir", dataDirectory.toString());
            assertThat(second.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(second.exitValue()).isEqualTo(1);
            assertThat(new String(second.getInputStream().readAllBytes(), StandardCharsets.UTF_8))
                    .contains("is in use by another interlace server");

            server.destroy();
            assertThat(server.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(Files.exists(dataDirectory.resolve("log.sqlite-wal"))
                    ? Files.size(dataDirectory.resolve("log.sqlite-wal")) : 0L).isZero();
        } finally {
            server.destroyForcibly();
        }
        Process restarted = serve("--port", "0", "--data-dir", dataDirectory.toString());
        try {
            readyLine(restarted);
        } finally {
            restarted.destroy();
            restarted.waitFor(30, TimeUnit.SECONDS);
        }
    }

    /**
     * DuckDB's and SQLite's drivers unpack their native libraries (70 and 1 MB) into the temporary directory at every
     * start, under new names; a server that ends (SIGTERM here: its shutdown halts the JVM) must not leave those copies
     * behind, or every restart fills the directory (often memory: tmpfs) by as much again.
     */
    @Test
    void aServerLeavesNoCopyOfItsNativeLibrariesInItsTemporaryDirectory(@TempDir Path tmp) throws Exception {
        Process server = serve(List.of("-Djava.io.tmpdir=" + tmp), "--port", "0", "--data-dir",
                dataDirectory.toString());
        try {
            Matcher ready = READY.matcher(readyLine(server));
            assertThat(ready.find()).isTrue();
            HttpResponse<String> publish = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create(ready.group(1)).resolve("/streams/orders")).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"order_id\": \"o1\", \"total\": 1}")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(publish.statusCode()).isEqualTo(200);
            assertThat(libraryCopies(tmp)).as("while serving").isEmpty();
            server.destroy();
            assertThat(server.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(libraryCopies(tmp)).as("once stopped").isEmpty();
        } finally {
            server.destroyForcibly();
        }
    }

    private static List<String> libraryCopies(Path directory) throws IOException {
        try (var files = Files.list(directory)) {
            return files.map(file -> file.getFileName().toString())
                    .filter(name -> name.startsWith("libduckdb_java") || name.contains("libsqlitejdbc")).toList();
        }
    }

    @Test
    void aBadFlagIsAUsageErrorWithExitCodeTwo() throws Exception {
        Process server = serve("--port", "http");
        assertThat(server.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(server.exitValue()).isEqualTo(2);
        assertThat(new String(server.getInputStream().readAllBytes(), StandardCharsets.UTF_8))
                .contains("--port must be a whole number").contains("usage: interlace serve");
    }
}
