package dev.interlace.integration.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.interlace.runtime.cli.Main;
import dev.interlace.runtime.ops.FatalErrors;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Floods a server running in a JVM with a small heap (the way the refused-requests ring once ran a server out of
 * memory), and checks that an out-of-memory error ends a process instead of leaving it half alive.
 */
class SmallHeapFloodTest {

    private static final String HEAP = "-Xmx64m";

    @TempDir
    Path scratch;

    @Test
    void thousandsOfRequestsToHugeUnknownPathsLeaveASmallHeapServerAnswering() throws Exception {
        Process server = new ProcessBuilder(java(), HEAP, "-XX:+UseSerialGC", "-cp",
                System.getProperty("java.class.path"), Main.class.getName(), "serve", "--port", "0", "--data-dir",
                scratch.resolve("data").toString())
                .redirectError(scratch.resolve("stderr.txt").toFile()).start();
        try {
            URI uri = listening(server);
            HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            String longPath = "/" + "p".repeat(7_900); // just under the request-line limit of 8 KiB
            List<CompletableFuture<Void>> senders = new ArrayList<>();
            for (int sender = 0; sender < 8; sender++) {
                senders.add(CompletableFuture.runAsync(() -> {
                    for (int i = 0; i < 500; i++) {
                        int status = send(client, uri.resolve(longPath + "?i=" + i)).statusCode();
                        assertThat(status).isEqualTo(404);
                    }
                }));
            }
            CompletableFuture.allOf(senders.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);

            assertThat(server.isAlive()).isTrue();
            assertThat(send(client, uri.resolve("/health/live")).statusCode()).isEqualTo(200);
            HttpResponse<String> publish = client.send(HttpRequest.newBuilder(uri.resolve("/streams/orders"))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"order_id\":\"after-flood\"}")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(publish.statusCode()).isEqualTo(200);
            JsonNode refusals = TestServer.JSON.readTree(send(client, uri.resolve("/logs/api?status=404&limit=5"))
                    .body());
            assertThat(refusals.get("total").asLong()).isEqualTo(4_000);
            for (JsonNode record : refusals.get("requests")) {
                assertThat(record.get("path").asText().length()).isLessThanOrEqualTo(512);
                assertThat(record.get("message").asText().length()).isLessThanOrEqualTo(512);
            }
        } finally {
            server.destroy();
            if (!server.waitFor(30, TimeUnit.SECONDS)) {
                server.destroyForcibly();
            }
        }
    }

    @Test
    void anOutOfMemoryErrorEndsTheProcessWithStatus3() throws Exception {
        Process child = new ProcessBuilder(java(), "-Xmx32m", "-cp", System.getProperty("java.class.path"),
                RunsOutOfMemory.class.getName()).redirectErrorStream(true).start();
        String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(child.exitValue()).as(output).isEqualTo(FatalErrors.OUT_OF_MEMORY_STATUS);
        assertThat(output).contains("out of memory").doesNotContain("survived");
    }

    /** Runs a thread out of memory with the server's handler installed; prints "survived" if it is still alive. */
    public static final class RunsOutOfMemory {
        public static void main(String[] args) throws InterruptedException {
            FatalErrors.installDefaultHandler();
            Thread hog = new Thread(() -> {
                List<long[]> held = new ArrayList<>();
                while (true) {
                    held.add(new long[1 << 20]);
                }
            }, "hog");
            hog.start();
            hog.join(); // returns only once the hog's uncaught-exception handler has run (and not halted)
            System.out.println("survived");
        }
    }

    private static HttpResponse<String> send(HttpClient client, URI uri) {
        try {
            return client.send(HttpRequest.newBuilder(uri).GET().build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The address a child server prints once it is ready. */
    static URI listening(Process server) throws IOException {
        BufferedReader out = new BufferedReader(new InputStreamReader(server.getInputStream(),
                StandardCharsets.UTF_8));
        String line;
        while ((line = out.readLine()) != null) {
            if (line.startsWith("interlace listening on ")) {
                return URI.create(line.substring("interlace listening on ".length()).strip());
            }
        }
        throw new IllegalStateException("the server exited before it was ready");
    }

    static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }
}
