package dev.interlace.integration.serve;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.interlace.runtime.health.ComponentHealth;
import dev.interlace.runtime.testing.Eventually;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code interlace serve}, as a user runs it (the jar's main class in a JVM of its own, no test hook), whose
 * deduplication index loses its directory under it: every seal of the orders stream's keys fails for good, so the
 * process says so on both health routes and in a {@code component_failed} record, and 10 s later exits with status 4
 * (docs/operations.md#health); the next start rebuilds the index from the log and has every acknowledged event,
 * each still answered as a duplicate at its offset. When the directory comes back within the grace, the next seal
 * succeeds and the process goes on.
 */
class ComponentExitTest {

    private static final Pattern READY = Pattern.compile("interlace listening on (http://127\\.0\\.0\\.1:\\d+)");
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Keys per publish: a small heap gives the index about 20,000 keys in memory, so a few requests fill it. */
    private static final int BATCH = 2_000;
    private static final long WAIT_SECONDS = 90;

    @TempDir
    Path scratch;

    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final List<Process> processes = new ArrayList<>();

    @AfterEach
    void stopProcesses() throws InterruptedException {
        for (Process process : processes) {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void serveWhoseDedupIndexDirectoryIsRemovedFailsHealthThenExitsWithStatus4AndLosesNothingAcknowledged()
            throws Exception {
        Path data = scratch.resolve("data");
        Path output = scratch.resolve("serve.log");
        Process server = serve(data, output);
        URI base = awaitReady(server, output, 1);
        // The external cause: the index's directory goes (a clean-up script, an operator); the log is untouched.
        deleteRecursively(data.resolve("dedup"));

        Map<String, Long> acknowledged = new LinkedHashMap<>();
        JsonNode live = null;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (live == null && System.nanoTime() < deadline) { // a seal starts once the keys in memory are many
            if (!publish(base, "k" + acknowledged.size(), acknowledged)) {
                break; // exiting already
            }
            HttpResponse<String> answer = get(base, "/health/live");
            if (answer.statusCode() == 503) {
                live = JSON.readTree(answer.body());
            }
        }
        assertThat(live).as("/health/live never failed after %d acknowledged events\n%s", acknowledged.size(),
                Files.readString(output)).isNotNull();
        assertThat(live.get("status").asText()).isEqualTo("component_failed");
        JsonNode failure = live.get("components").get(0);
        assertThat(failure.get("component").asText()).isEqualTo("dedup-sealer");
        assertThat(failure.get("stream").asText()).isEqualTo("orders");
        assertThat(failure.get("cause").asText()).contains("NoSuchFileException").contains("dedup");
        HttpResponse<String> ready = get(base, "/health/ready");
        assertThat(ready.statusCode()).isEqualTo(503);
        assertThat(ready.body()).contains("component_failed: dedup-sealer (stream orders)")
                .contains("NoSuchFileException");
        assertThat(record(base, "component_failed")).contains("dedup-sealer").contains("NoSuchFileException")
                .contains("exits with status " + ComponentHealth.EXIT_STATUS);
        // Publishes are still taken in the grace before the exit: they are durable like any other.
        publish(base, "after-failure-", acknowledged);

        assertThat(server.waitFor(WAIT_SECONDS, TimeUnit.SECONDS)).as("serve exited\n%s", Files.readString(output))
                .isTrue();
        assertThat(server.exitValue()).as(Files.readString(output)).isEqualTo(ComponentHealth.EXIT_STATUS);
        assertThat(Files.readString(output)).contains("dedup-sealer (stream orders) failed")
                .contains("exiting with status " + ComponentHealth.EXIT_STATUS);

        System.out.println("[serve-exit] " + acknowledged.size() + " events acknowledged, /health/live 503 naming "
                + failure.get("cause").asText() + ", exit status " + server.exitValue());
        Process next = serve(data, output);
        URI restarted = awaitReady(next, output, 2);
        assertThat(get(restarted, "/health/live").statusCode()).isEqualTo(200);
        assertThat(record(restarted, "component_exit")).contains("dedup-sealer")
                .contains("exiting with status " + ComponentHealth.EXIT_STATUS);
        JsonNode stream = JSON.readTree(get(restarted, "/streams/orders").body());
        assertThat(stream.get("head").asLong()).isGreaterThanOrEqualTo(acknowledged.size());
        assertRepublishedAsDuplicates(restarted, acknowledged);
        next.destroy();
        assertThat(next.waitFor(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(next.exitValue()).isZero();
    }

    @Test
    void serveWhoseDedupIndexDirectoryComesBackSealsAgainAndKeepsRunning() throws Exception {
        Path data = scratch.resolve("data");
        Path output = scratch.resolve("serve.log");
        Process server = serve(data, output);
        URI base = awaitReady(server, output, 1);
        List<Path> indexes;
        try (Stream<Path> directories = Files.list(data.resolve("dedup"))) {
            indexes = directories.toList();
        }
        deleteRecursively(data.resolve("dedup"));

        Map<String, Long> acknowledged = new LinkedHashMap<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        int live = 200;
        while (live == 200 && System.nanoTime() < deadline) {
            assertThat(publish(base, "k" + acknowledged.size(), acknowledged)).as(Files.readString(output)).isTrue();
            live = get(base, "/health/live").statusCode();
        }
        assertThat(live).as("/health/live after the seal failed").isEqualTo(503);
        // The cause goes away (the directories are back, as after a disk was remounted): the next seal succeeds.
        for (Path index : indexes) {
            Files.createDirectories(index);
        }
        while (live == 503 && System.nanoTime() < deadline) {
            boolean taken = publish(base, "r" + acknowledged.size(), 10, acknowledged);
            assertThat(taken).as("serve took publishes while its sealer recovered\n%s", Files.readString(output))
                    .isTrue();
            live = get(base, "/health/live").statusCode();
        }
        assertThat(live).as("/health/live once a seal succeeded\n%s", Files.readString(output)).isEqualTo(200);
        assertThat(record(base, "component_recovered")).contains("dedup-sealer (stream orders) recovered");
        assertThat(get(base, "/health/ready").statusCode()).isEqualTo(200);
        assertThat(server.isAlive()).isTrue();
        server.destroy();
        assertThat(server.waitFor(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(server.exitValue()).as("a stop asked for\n%s", Files.readString(output)).isZero();
    }

    private Process serve(Path data, Path output) throws IOException {
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                // A small heap: the index keeps fewer keys in memory, so that a seal comes after a few requests.
                "-Xmx64m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                "-Djava.io.tmpdir=" + Files.createDirectories(scratch.resolve("tmp")),
                "-cp", System.getProperty("java.class.path"), "dev.interlace.runtime.cli.Main", "serve",
                "--port", "0", "--data-dir", data.toString());
        Process process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(output.toFile())).start();
        processes.add(process);
        return process;
    }

    /** Waits until {@code output} says for the {@code times}-th time that serve listens; returns where. */
    private static URI awaitReady(Process process, Path output, int times) throws Exception {
        String text = Eventually.get("serve listens (time " + times + ")", Duration.ofSeconds(WAIT_SECONDS), () -> {
            String seen = Files.exists(output) ? Files.readString(output) : "";
            if (listeningAt(seen, times) == null) {
                assertThat(process.isAlive()).as("serve ended before listening\n%s", seen).isTrue();
            }
            return seen;
        }, seen -> listeningAt(seen, times) != null);
        return listeningAt(text, times);
    }

    /** Where serve listens by the {@code times}-th time {@code output} says so; null before. */
    private static URI listeningAt(String output, int times) {
        Matcher ready = READY.matcher(output);
        URI uri = null;
        for (int found = 0; found < times && ready.find(); found++) {
            uri = found == times - 1 ? URI.create(ready.group(1)) : null;
        }
        return uri;
    }

    /**
     * Publishes {@value #BATCH} new orders (keys {@code prefix<n>}) and records the offsets of those accepted; false
     * when the server no longer takes publishes (it is exiting).
     */
    private boolean publish(URI base, String prefix, Map<String, Long> acknowledged) throws Exception {
        return publish(base, prefix, BATCH, acknowledged);
    }

    private boolean publish(URI base, String prefix, int count, Map<String, Long> acknowledged) throws Exception {
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            keys.add(prefix + i);
        }
        HttpResponse<String> answer;
        try {
            answer = client.send(HttpRequest.newBuilder(base.resolve("/streams/orders?verbose=true"))
                    .header("Content-Type", "application/json").timeout(java.time.Duration.ofSeconds(60))
                    .POST(HttpRequest.BodyPublishers.ofString(orders(keys))).build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (IOException gone) {
            return false; // refused, or cut off as the process ended: not acknowledged, so not checked
        }
        if (answer.statusCode() != 200) {
            assertThat(answer.statusCode()).as(answer.body()).isEqualTo(503);
            return false;
        }
        JsonNode results = JSON.readTree(answer.body()).get("results");
        for (int i = 0; i < keys.size(); i++) {
            assertThat(results.get(i).get("status").asText()).as(results.get(i).toString()).isEqualTo("accepted");
            acknowledged.put(keys.get(i), results.get(i).get("offset").asLong());
        }
        return true;
    }

    /** Every acknowledged key published again: answered as a duplicate at the offset it was acknowledged at. */
    private void assertRepublishedAsDuplicates(URI base, Map<String, Long> acknowledged) throws Exception {
        List<String> keys = new ArrayList<>(acknowledged.keySet());
        for (int from = 0; from < keys.size(); from += BATCH) {
            List<String> batch = keys.subList(from, Math.min(keys.size(), from + BATCH));
            HttpResponse<String> answer = client.send(HttpRequest.newBuilder(base.resolve(
                    "/streams/orders?verbose=true")).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(orders(batch))).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
            JsonNode results = JSON.readTree(answer.body()).get("results");
            for (int i = 0; i < batch.size(); i++) {
                assertThat(results.get(i).get("status").asText()).as("%s: %s", batch.get(i), results.get(i))
                        .isEqualTo("duplicate");
                assertThat(results.get(i).get("offset").asLong()).as(batch.get(i))
                        .isEqualTo(acknowledged.get(batch.get(i)));
            }
        }
    }

    private static String orders(List<String> keys) {
        StringBuilder body = new StringBuilder("[");
        for (String key : keys) {
            body.append(body.length() == 1 ? "" : ",").append("{\"order_id\":\"").append(key).append("\"}");
        }
        return body.append(']').toString();
    }

    /** The message of the newest system record of {@code event}, polled for (the records are written in batches). */
    private String record(URI base, String event) throws Exception {
        JsonNode records = Eventually.get("a " + event + " record", Duration.ofSeconds(WAIT_SECONDS),
                () -> JSON.readTree(get(base, "/logs/sys?event=" + event).body()).get("records"), r -> !r.isEmpty());
        return records.get(0).get("message").asText();
    }

    private HttpResponse<String> get(URI base, String path) throws IOException, InterruptedException {
        return client.send(HttpRequest.newBuilder(base.resolve(path)).build(),
                HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    }

    private static void deleteRecursively(Path directory) throws IOException {
        try (Stream<Path> files = Files.walk(directory)) {
            for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(file);
            }
        }
    }
}
