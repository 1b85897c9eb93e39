package dev.interlace.integration.serve;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.interlace.runtime.testing.Eventually;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code interlace serve} shutting down as a user stops it: every request in flight is answered (a running query is
 * cancelled and answered {@code 503 shutting_down}), and a stop that was asked for exits 0, for SIGTERM and Ctrl-C.
 */
class ShutdownTest {

    private static final Pattern READY = Pattern.compile("interlace listening on (http://127\\.0\\.0\\.1:\\d+)");
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Runs for hours unless cancelled: a cross join of a billion by a million rows. */
    private static final String ENDLESS_QUERY = "{\"sql\": \"SELECT count(*) FROM range(1000000000) a,"
            + " range(1000000) b WHERE a.range + b.range = -1\"}";
    /** Queries the server runs at once (its default); one more is refused as busy. */
    private static final int CONCURRENT_QUERIES = 4;

    @TempDir
    Path dataDirectory;

    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private Process serve() throws IOException {
        // SIGINT at its default, as a terminal's Ctrl-C finds it: a build started in the background of a
        // non-interactive shell has it ignored, children inherit that, and a JVM keeps ignoring an ignored SIGINT.
        List<String> command = new ArrayList<>(List.of("env", "--default-signal=INT",
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                System.getProperty("java.class.path"), "dev.interlace.runtime.cli.Main", "serve", "--port", "0",
                "--data-dir", dataDirectory.toString()));
        return new ProcessBuilder(command).redirectErrorStream(true).start();
    }

    /** Reads the child's output until the ready line; the rest is drained in the background. */
    private static URI awaitReady(Process process) throws IOException {
        BufferedReader reader = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8));
        String line;
        while ((line = reader.readLine()) != null) {
            Matcher ready = READY.matcher(line);
            if (ready.find()) {
                Thread drain = new Thread(() -> reader.lines().forEach(ignored -> { }), "child-output");
                drain.setDaemon(true);
                drain.start();
                return URI.create(ready.group(1));
            }
        }
        throw new AssertionError("interlace serve ended without a ready line");
    }

    private HttpRequest sql(URI base, String body) {
        return HttpRequest.newBuilder(base.resolve("/sql")).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
    }

    /**
     * Sends {@value #CONCURRENT_QUERIES} endless queries and waits until the server refuses one more query as busy:
     * then every query slot holds one of them (the probe is the only other query, and it was refused). A long query
     * refused as busy because a probe held a slot at that moment is sent again.
     */
    private List<CompletableFuture<HttpResponse<String>>> startEndlessQueries(URI base) throws Exception {
        List<CompletableFuture<HttpResponse<String>>> queries = new ArrayList<>();
        for (int i = 0; i < CONCURRENT_QUERIES; i++) {
            queries.add(client.sendAsync(sql(base, ENDLESS_QUERY), HttpResponse.BodyHandlers.ofString()));
        }
        Eventually.until("the endless queries all run at once", Duration.ofSeconds(60), () -> {
            for (int i = 0; i < queries.size(); i++) {
                if (queries.get(i).isDone()) {
                    HttpResponse<String> early = queries.get(i).get();
                    assertThat(early.statusCode()).as("an endless query answered early: %s", early.body())
                            .isEqualTo(503);
                    assertThat(JSON.readTree(early.body()).path("error").asText()).isEqualTo("busy");
                    queries.set(i, client.sendAsync(sql(base, ENDLESS_QUERY), HttpResponse.BodyHandlers.ofString()));
                }
            }
            HttpResponse<String> probe = client.send(sql(base, "{\"sql\": \"SELECT 1\"}"),
                    HttpResponse.BodyHandlers.ofString());
            return probe.statusCode() == 503 && JSON.readTree(probe.body()).path("error").asText().equals("busy");
        });
        return queries;
    }

    @Test
    void sigtermCancelsRunningQueriesAnswersThem503ShuttingDownAndExitsZero() throws Exception {
        Process server = serve();
        try {
            URI base = awaitReady(server);
            List<CompletableFuture<HttpResponse<String>>> queries = startEndlessQueries(base);

            server.destroy(); // SIGTERM

            for (CompletableFuture<HttpResponse<String>> query : queries) {
                HttpResponse<String> answer = query.get(60, TimeUnit.SECONDS);
                assertThat(answer.statusCode()).isEqualTo(503);
                assertThat(answer.headers().firstValue("Content-Type")).hasValue("application/json");
                assertThat(answer.headers().firstValue("Retry-After")).hasValue("1");
                JsonNode body = JSON.readTree(answer.body());
                assertThat(body.get("error").asText()).isEqualTo("shutting_down");
                assertThat(body.get("message").asText()).contains("the query was cancelled");
                assertThat(body.get("request_id").asText())
                        .isEqualTo(answer.headers().firstValue("X-Request-Id").orElseThrow());
            }
            assertThat(server.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(server.exitValue()).isZero();
        } finally {
            server.destroyForcibly();
        }
    }

    @Test
    void ctrlCStopsTheServerCleanlyWithExitCodeZero() throws Exception {
        Process server = serve();
        try {
            URI base = awaitReady(server);
            HttpResponse<String> publish = client.send(HttpRequest.newBuilder(base.resolve("/streams/orders"))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"order_id\": \"o1\"}")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(publish.statusCode()).isEqualTo(200);

            Process interrupt = new ProcessBuilder("kill", "-INT", Long.toString(server.pid())).start();
            assertThat(interrupt.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(interrupt.exitValue()).isZero();

            assertThat(server.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(server.exitValue()).isZero();
        } finally {
            server.destroyForcibly();
        }
    }
}
