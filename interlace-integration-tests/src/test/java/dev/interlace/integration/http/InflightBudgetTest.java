package dev.interlace.integration.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.interlace.runtime.testing.Pause;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Many clients whose requests together hold far more than a small heap, against a server in a child JVM with its
 * default limits: each request is bounded, and so must their sum be. Every request gets an answer (200, or 503 with
 * {@code Retry-After}), liveness keeps answering, the process lives, and every acknowledged event is stored.
 */
class InflightBudgetTest {

    private static final String HEAP = "-Xmx256m";
    /** An event of about 9 MB: most of the default 10 MiB body limit. */
    private static final int EVENT_BYTES = 9_000_000;

    @TempDir
    Path scratch;

    @RegisterExtension
    final ChildServer server = new ChildServer();
    private final HttpClient client = server.client;

    @Test
    void eightyConcurrentNineMegabytePublishesOnA256MiBHeapAreEachAnsweredAndNoneAcknowledgedIsLost()
            throws Exception {
        URI uri = startServer();
        List<CompletableFuture<String>> publishes = new ArrayList<>();
        try (Liveness liveness = new Liveness(uri)) {
            for (int i = 0; i < 80; i++) {
                publishes.add(answer(client.sendAsync(publish(uri, "big-" + i), HttpResponse.BodyHandlers.ofString()),
                        response -> Integer.toString(response.statusCode())));
            }
            Map<String, Integer> statuses = tally(publishes);

            assertThat(server.isAlive()).as(server.stderr()).isTrue();
            assertThat(statuses.keySet()).as(statuses.toString()).isSubsetOf("200", "503 overloaded");
            assertThat(statuses).containsKey("200");
            assertThat(liveness.failures()).as(server.stderr()).isEmpty();
            JsonNode stream = TestServer.JSON.readTree(get(uri, "/streams/orders").body());
            assertThat(stream.get("head").asLong()).isEqualTo(statuses.get("200").longValue());
        }
    }

    @Test
    void aHundredAndFiftyConcurrentGzipBodiesThatInflateToNineMegabytesOnA256MiBHeapAreEachAnsweredAndNoneLost()
            throws Exception {
        URI uri = startServer();
        byte[] middle = gzip(filler(EVENT_BYTES).getBytes(StandardCharsets.US_ASCII)); // about 9 KB that inflate to 9 MB, shared by every body
        List<CompletableFuture<String>> publishes = new ArrayList<>();
        try (Liveness liveness = new Liveness(uri)) {
            for (int i = 0; i < 150; i++) {
                ByteArrayOutputStream body = new ByteArrayOutputStream();
                body.writeBytes(gzip(("{\"order_id\":\"gzip-" + i + "\",\"meta\":{\"note\":\"")
                        .getBytes(StandardCharsets.UTF_8)));
                body.writeBytes(middle);
                body.writeBytes(gzip("\"}}".getBytes(StandardCharsets.UTF_8)));
                publishes.add(answer(client.sendAsync(HttpRequest.newBuilder(uri.resolve("/streams/orders"))
                        .timeout(Duration.ofSeconds(180)).header("Content-Type", "application/json")
                        .header("Content-Encoding", "gzip")
                        .POST(HttpRequest.BodyPublishers.ofByteArray(body.toByteArray())).build(),
                        HttpResponse.BodyHandlers.ofString()), response -> Integer.toString(response.statusCode())));
            }
            Map<String, Integer> statuses = tally(publishes);

            assertThat(server.isAlive()).as(server.stderr()).isTrue();
            assertThat(statuses.keySet()).as(statuses.toString()).isSubsetOf("200", "503 overloaded");
            assertThat(liveness.failures()).as(server.stderr()).isEmpty();
            JsonNode stream = TestServer.JSON.readTree(get(uri, "/streams/orders").body());
            assertThat(stream.get("head").asLong()).as(statuses.toString())
                    .isEqualTo(statuses.getOrDefault("200", 0).longValue());
            // Bodies inflating at once may each be refused midway (all of them, on two cores); once the flood is
            // over, the same body is stored: the refusals were for the moment, as their Retry-After says.
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            body.writeBytes(gzip("{\"order_id\":\"gzip-after\",\"meta\":{\"note\":\""
                    .getBytes(StandardCharsets.UTF_8)));
            body.writeBytes(middle);
            body.writeBytes(gzip("\"}}".getBytes(StandardCharsets.UTF_8)));
            HttpResponse<String> after = client.send(HttpRequest.newBuilder(uri.resolve("/streams/orders"))
                    .timeout(Duration.ofSeconds(180)).header("Content-Type", "application/json")
                    .header("Content-Encoding", "gzip")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(body.toByteArray())).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(after.statusCode()).as(after.body()).isEqualTo(200);
        }
    }

    @Test
    void queriesWhoseAnswersHoldSixteenMegabytesEachOnA128MiBHeapAreEachAnswered() throws Exception {
        URI uri = startServer("-Xmx128m");
        // 10 000 rows of 1.6 KB: just under /sql's bounds (10 000 rows, 16 MiB), so each answer is whole or
        // refused, in several of DuckDB's chunks of 2 048 rows.
        String sql = "{\"sql\": \"SELECT repeat('x', 1600) || i AS wide FROM range(10000) t(i)\"}";
        List<CompletableFuture<String>> queries = new ArrayList<>();
        try (Liveness liveness = new Liveness(uri)) {
            for (int round = 0; round < 4; round++) {
                List<CompletableFuture<String>> thisRound = new ArrayList<>();
                for (int i = 0; i < 8; i++) {
                    thisRound.add(answer(client.sendAsync(HttpRequest.newBuilder(uri.resolve("/sql"))
                            .timeout(Duration.ofSeconds(180)).header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString(sql)).build(),
                            HttpResponse.BodyHandlers.ofInputStream()), InflightBudgetTest::queryAnswer));
                }
                CompletableFuture.allOf(thisRound.toArray(CompletableFuture[]::new)).get(600, TimeUnit.SECONDS);
                queries.addAll(thisRound);
            }
            Map<String, Integer> statuses = tally(queries);

            assertThat(server.isAlive()).as(server.stderr()).isTrue();
            assertThat(statuses.keySet()).as(statuses.toString()).isSubsetOf("200 with 10000 rows", "503 overloaded",
                    "503 busy");
            assertThat(liveness.failures()).as(server.stderr()).isEmpty();
            HttpResponse<String> small = client.send(HttpRequest.newBuilder(uri.resolve("/sql"))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"sql\": \"SELECT 42 AS answer\"}")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(small.statusCode()).as(small.body()).isEqualTo(200);
        }
    }

    @Test
    void eightHundredConcurrentReadersOfANineMegabyteEventOnA512MiBHeapAreEachAnswered() throws Exception {
        URI uri = startServer("-Xmx512m");
        HttpResponse<String> seeded = client.send(publish(uri, "big"), HttpResponse.BodyHandlers.ofString());
        assertThat(seeded.statusCode()).as(seeded.body()).isEqualTo(200);
        List<CompletableFuture<String>> reads = new ArrayList<>();
        try (Liveness liveness = new Liveness(uri)) {
            for (int i = 0; i < 800; i++) {
                String path = i % 4 == 0 ? "/streams/orders" : "/streams/orders/events?after=0&limit=1";
                reads.add(answer(client.sendAsync(HttpRequest.newBuilder(uri.resolve(path))
                        .timeout(Duration.ofSeconds(180)).GET().build(), HttpResponse.BodyHandlers.ofInputStream()),
                        InflightBudgetTest::readWhole));
            }
            Map<String, Integer> statuses = tally(reads);

            assertThat(server.isAlive()).as(server.stderr()).isTrue();
            assertThat(statuses.keySet()).as(statuses.toString()).isSubsetOf("200 with the event",
                    "503 overloaded");
            assertThat(statuses).containsKey("200 with the event");
            assertThat(liveness.failures()).as(server.stderr()).isEmpty();
        }
    }

    private URI startServer() throws IOException {
        return startServer(HEAP);
    }

    private URI startServer(String heap) throws IOException {
        return server.start(scratch, heap);
    }

    private static HttpRequest publish(URI uri, String orderId) {
        String body = "{\"order_id\":\"" + orderId + "\",\"meta\":{\"note\":\"" + filler(EVENT_BYTES) + "\"}}";
        return HttpRequest.newBuilder(uri.resolve("/streams/orders")).timeout(Duration.ofSeconds(180))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
    }

    /** What a query's answer was: its 10 000 rows whole, a 503 with Retry-After (overloaded or busy), or what else came. */
    private static String queryAnswer(HttpResponse<InputStream> response) {
        String body;
        try (InputStream in = response.body()) {
            body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "failed while reading the body: " + e;
        }
        if (response.statusCode() == 200) {
            try {
                JsonNode answer = TestServer.JSON.readTree(body);
                return "200 with " + answer.get("rows").size() + " rows"
                        + (answer.get("truncated").asBoolean() ? ", truncated" : "");
            } catch (IOException e) {
                return "200 that is not JSON: " + cut(body);
            }
        }
        if (response.statusCode() == 503 && response.headers().firstValue("Retry-After").isPresent()
                && body.contains("\"busy\"")) {
            return "503 busy";
        }
        return describe(response.statusCode(), response.headers().firstValue("Retry-After").orElse(null), body);
    }

    /** Text of about {@code bytes} characters that compresses well. */
    private static String filler(int bytes) {
        return "0123456789abcdef".repeat(bytes / 16);
    }

    /** One gzip member holding {@code bytes}. */
    private static byte[] gzip(byte[] bytes) throws IOException {
        ByteArrayOutputStream compressed = new ByteArrayOutputStream();
        try (GZIPOutputStream out = new GZIPOutputStream(compressed)) {
            out.write(bytes);
        }
        return compressed.toByteArray();
    }

    /** What a read's answer was: a page with the event, or a 503 overloaded with Retry-After, or what else came. */
    private static String readWhole(HttpResponse<InputStream> response) {
        long bytes = 0;
        StringBuilder start = new StringBuilder();
        try (InputStream body = response.body()) {
            byte[] buffer = new byte[64 * 1024];
            int read;
            while ((read = body.read(buffer)) >= 0) {
                if (start.length() < 2_000) {
                    start.append(new String(buffer, 0, Math.min(read, 2_000), StandardCharsets.UTF_8));
                }
                bytes += read;
            }
        } catch (IOException e) {
            return "failed while reading the body: " + e;
        }
        if (response.statusCode() == 200) {
            return bytes > EVENT_BYTES ? "200 with the event" : "200 with " + bytes + " bytes: " + cut(start);
        }
        return describe(response.statusCode(), response.headers().firstValue("Retry-After").orElse(null), start);
    }

    private static String describe(int status, String retryAfter, CharSequence body) {
        if (status == 503 && retryAfter != null && body.toString().contains("\"overloaded\"")) {
            return "503 overloaded";
        }
        return status + " (Retry-After " + retryAfter + "): " + cut(body);
    }

    private static String cut(CharSequence text) {
        return text.length() <= 300 ? text.toString() : text.subSequence(0, 300) + "…";
    }

    /** Each answer described by {@code describe}, or the failure that came instead of an answer. */
    private static <T> CompletableFuture<String> answer(CompletableFuture<HttpResponse<T>> sent,
            java.util.function.Function<HttpResponse<T>, String> describe) {
        return sent.handle((response, failure) -> {
            if (failure != null) {
                return "no answer: " + failure;
            }
            if (response.statusCode() != 200 && response.body() instanceof String text) {
                return describe(response.statusCode(), response.headers().firstValue("Retry-After").orElse(null),
                        text);
            }
            return describe.apply(response);
        });
    }

    private static Map<String, Integer> tally(List<CompletableFuture<String>> answers) throws Exception {
        CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).get(600, TimeUnit.SECONDS);
        Map<String, Integer> counts = new TreeMap<>();
        for (CompletableFuture<String> answer : answers) {
            counts.merge(answer.get(), 1, Integer::sum);
        }
        System.out.println("answers: " + counts); // the mix, for the report; the assertions do not depend on it
        return counts;
    }

    private HttpResponse<String> get(URI uri, String path) throws IOException, InterruptedException {
        return client.send(HttpRequest.newBuilder(uri.resolve(path)).timeout(Duration.ofSeconds(60)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** Asks {@code /health/live} over and over on its own connection while the flood runs; keeps what was not 200. */
    private static final class Liveness implements AutoCloseable {

        private final AtomicBoolean running = new AtomicBoolean(true);
        private final ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
        private final Thread prober;
        /** For the report only: no assertion is made on time. */
        private volatile long slowestNanos;
        private volatile int probes;

        Liveness(URI uri) {
            HttpClient own = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            prober = new Thread(() -> {
                while (running.get()) {
                    try {
                        long sent = System.nanoTime();
                        HttpResponse<String> live = own.send(HttpRequest.newBuilder(uri.resolve("/health/live"))
                                .timeout(Duration.ofSeconds(30)).GET().build(), HttpResponse.BodyHandlers.ofString());
                        probes++;
                        slowestNanos = Math.max(slowestNanos, System.nanoTime() - sent);
                        if (live.statusCode() != 200) {
                            failures.add(live.statusCode() + ": " + live.body());
                        }
                        Pause.millis(200); // the prober's pace
                    } catch (IOException e) {
                        failures.add(e.toString());
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "liveness-prober");
            prober.start();
        }

        List<String> failures() {
            return List.copyOf(failures);
        }

        @Override
        public void close() throws InterruptedException {
            running.set(false);
            prober.interrupt();
            prober.join(60_000);
            System.out.println("liveness: " + probes + " probes, the slowest answered in "
                    + slowestNanos / 1_000_000 + " ms");
        }
    }
}
