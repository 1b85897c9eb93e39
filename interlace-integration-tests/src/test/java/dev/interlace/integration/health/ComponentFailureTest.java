package dev.interlace.integration.health;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.interlace.integration.crash.ChildJvm;
import dev.interlace.runtime.health.ComponentHealth;
import dev.interlace.runtime.ops.FatalErrors;
import dev.interlace.runtime.testing.Eventually;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A component that fails is never silent: each class of failure, thrown in a child JVM at a test-only fault point,
 * fails {@code /health/live} and {@code /health/ready} naming the component and its cause (or is listed, for a
 * component publishes do not need), leaves a system record, and ends as designed — the component restarts and health
 * recovers, or the process exits with status 4 (3 for out of memory) and a new one finds everything acknowledged.
 */
class ComponentFailureTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** Long enough that the process never exits on its own while a test looks at it. */
    private static final long NEVER_MS = 600_000;
    private static final long WAIT_MS = 90_000;

    @TempDir
    Path scratch;

    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final List<ChildJvm> children = new ArrayList<>();

    @AfterEach
    void stopChildren() {
        children.forEach(ChildJvm::close);
    }

    @Test
    void anErrorInTheFlusherFailsBothHealthRoutesNamingTheFlusherUntilItsRestartSucceeds() throws Exception {
        ChildJvm child = start(ComponentFault.FLUSHER_ERROR, NEVER_MS);
        child.command(ComponentFaultServerMain.ARM);
        assertThat(publish(child, "o-1").statusCode()).isEqualTo(200);

        JsonNode live = awaitHealth(child, "/health/live", 503);
        assertThat(live.get("status").asText()).isEqualTo("component_failed");
        JsonNode failure = live.get("components").get(0);
        assertThat(failure.get("component").asText()).isEqualTo("flusher");
        assertThat(failure.get("stream").asText()).isEqualTo("orders");
        assertThat(failure.get("fate").asText()).isEqualTo("restarting");
        assertThat(failure.get("cause").asText()).contains(ComponentFault.MESSAGE);
        HttpResponse<String> ready = get(child, "/health/ready");
        assertThat(ready.statusCode()).isEqualTo(503);
        assertThat(JSON.readTree(ready.body()).get("reasons").toString())
                .contains("component_failed: flusher (stream orders)").contains(ComponentFault.MESSAGE);
        JsonNode record = awaitRecord(child, "component_failed");
        assertThat(record.get("stream").asText()).isEqualTo("orders");
        assertThat(record.get("message").asText()).contains("flusher").contains(ComponentFault.MESSAGE);

        child.command(ComponentFaultServerMain.DISARM);
        awaitHealth(child, "/health/live", 200);
        assertThat(get(child, "/health/ready").statusCode()).isEqualTo(200);
        awaitRecord(child, "component_recovered");
        assertThat(awaitCount(child, 1)).isEqualTo(1);
        assertThat(child.isAlive()).isTrue();
    }

    @Test
    void aFlusherThatStaysFailedEndsTheProcessWithStatus4AndTheNextLosesNothingAcknowledged() throws Exception {
        Path data = scratch.resolve("data");
        ChildJvm child = start(data, ComponentFault.FLUSHER_ERROR, 3_000);
        child.command(ComponentFaultServerMain.ARM);
        int acknowledged = 0;
        for (int i = 0; i < 20; i++) {
            HttpResponse<String> answer = publish(child, "o-" + i);
            if (answer.statusCode() == 200) {
                acknowledged++;
            } else {
                break; // the process is exiting
            }
        }
        assertThat(acknowledged).isPositive();
        assertThat(child.awaitExit(Duration.ofMillis(WAIT_MS))).isTrue();
        assertThat(child.exitStatus()).isEqualTo(ComponentHealth.EXIT_STATUS);
        assertThat(child.stderr()).contains("flusher (stream orders) failed")
                .contains("exiting with status " + ComponentHealth.EXIT_STATUS);

        ChildJvm next = start(data, ComponentFault.FLUSHER_ERROR, NEVER_MS); // not armed
        assertThat(awaitCount(next, acknowledged)).isEqualTo(acknowledged);
        assertThat(awaitRecord(next, "component_failed").get("message").asText())
                .contains(ComponentFault.MESSAGE);
        assertThat(awaitRecord(next, "component_exit").get("message").asText())
                .contains("exiting with status " + ComponentHealth.EXIT_STATUS);
        assertThat(get(next, "/health/live").statusCode()).isEqualTo(200);
    }

    @Test
    void anErrorInTheLogWriterAnswers503AndFailsHealthUntilTheRestartedWriterCommits() throws Exception {
        ChildJvm child = start(ComponentFault.WRITER_ERROR, NEVER_MS);
        child.command(ComponentFaultServerMain.ARM);
        HttpResponse<String> refused = publish(child, "o-1");
        assertThat(refused.statusCode()).isEqualTo(503);
        assertThat(refused.body()).contains("log_unavailable");

        JsonNode live = awaitHealth(child, "/health/live", 503);
        assertThat(live.get("components").get(0).get("component").asText()).isEqualTo("log-writer");
        assertThat(live.get("components").get(0).get("cause").asText()).contains(ComponentFault.MESSAGE);
        assertThat(get(child, "/health/ready").body()).contains("component_failed: log-writer");
        assertThat(awaitRecord(child, "component_failed").get("message").asText()).contains("log-writer");

        child.command(ComponentFaultServerMain.DISARM);
        assertThat(publish(child, "o-1").statusCode()).isEqualTo(200);
        assertThat(get(child, "/health/live").statusCode()).isEqualTo(200);
        awaitRecord(child, "component_recovered");
        assertThat(awaitCount(child, 1)).isEqualTo(1);
    }

    @Test
    void anErrorInAModelRunIsListedAndRecordedWithoutFailingLivenessAndTheNextRunClearsIt() throws Exception {
        ChildJvm child = start(ComponentFault.MODEL_ERROR, NEVER_MS);
        assertThat(publish(child, "o-1").statusCode()).isEqualTo(200);
        awaitCount(child, 1);
        child.command(ComponentFaultServerMain.ARM);
        assertThat(post(child, "/models/order_sizes/run").statusCode()).isEqualTo(202);

        JsonNode ready = awaitHealthBody(child, "/health/ready", body -> body.get("components").size() > 0);
        JsonNode failure = ready.get("components").get(0);
        assertThat(failure.get("component").asText()).isEqualTo("model-runner");
        assertThat(failure.get("serves_publishes").asBoolean()).isFalse();
        assertThat(failure.get("cause").asText()).contains(ComponentFault.MESSAGE);
        assertThat(ready.get("status").asText()).isEqualTo("ready");
        assertThat(get(child, "/health/live").statusCode()).isEqualTo(200);
        assertThat(awaitRecord(child, "component_failed").get("message").asText()).contains("model-runner");

        child.command(ComponentFaultServerMain.DISARM);
        assertThat(post(child, "/models/order_sizes/run").statusCode()).isEqualTo(202);
        awaitHealthBody(child, "/health/ready", body -> body.get("components").isEmpty());
        awaitRecord(child, "component_recovered");
    }

    @Test
    void anOutOfMemoryErrorInAModelRunEndsTheProcessWithStatus3AndTheNextStartRecordsIt() throws Exception {
        Path data = scratch.resolve("data");
        ChildJvm child = start(data, ComponentFault.MODEL_OUT_OF_MEMORY, NEVER_MS);
        assertThat(publish(child, "o-1").statusCode()).isEqualTo(200);
        awaitCount(child, 1);
        child.command(ComponentFaultServerMain.ARM);
        try {
            assertThat(post(child, "/models/order_sizes/run").statusCode()).isEqualTo(202);
        } catch (IOException endedFirst) {
            // The run starts at once: its out of memory may end the process before the 202 is written.
        }
        assertThat(child.awaitExit(Duration.ofMillis(WAIT_MS))).isTrue();
        assertThat(child.exitStatus()).isEqualTo(FatalErrors.OUT_OF_MEMORY_STATUS);

        ChildJvm next = start(data, ComponentFault.MODEL_OUT_OF_MEMORY, NEVER_MS);
        assertThat(awaitRecord(next, "fatal_exit").get("message").asText()).contains("out of memory")
                .contains("interlace-models");
        assertThat(awaitCount(next, 1)).isEqualTo(1);
    }

    @Test
    void aSealOfDeduplicationKeysThatKeepsFailingFailsHealthNamingTheSealerUntilASealSucceeds() throws Exception {
        ChildJvm child = start(ComponentFault.SEAL_FAILURE, NEVER_MS);
        child.command(ComponentFaultServerMain.ARM);
        int sent = 0;
        JsonNode live = null;
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        while (live == null && System.nanoTime() < deadline) { // a seal starts once the recent keys are full
            publishBatch(child, "a-" + sent, 100);
            sent += 100;
            HttpResponse<String> answer = get(child, "/health/live");
            if (answer.statusCode() == 503) {
                live = JSON.readTree(answer.body());
            }
        }
        assertThat(live).as("/health/live never failed").isNotNull();
        JsonNode failure = live.get("components").get(0);
        assertThat(failure.get("component").asText()).isEqualTo("dedup-sealer");
        assertThat(failure.get("stream").asText()).isEqualTo("orders");
        assertThat(failure.get("cause").asText()).contains(ComponentFault.MESSAGE);
        assertThat(get(child, "/health/ready").body()).contains("component_failed: dedup-sealer (stream orders)");
        assertThat(awaitRecord(child, "component_failed").get("message").asText()).contains("dedup-sealer");

        child.command(ComponentFaultServerMain.DISARM);
        int[] next = {sent};
        Eventually.until("/health/live answers 200 again", Duration.ofMillis(WAIT_MS), () -> {
            if (get(child, "/health/live").statusCode() == 200) {
                return true;
            }
            publishBatch(child, "b-" + next[0], 10); // the seal is retried after a pause, seen on a commit
            next[0] += 10;
            return false;
        });
        assertThat(get(child, "/health/live").statusCode()).isEqualTo(200);
        awaitRecord(child, "component_recovered");
    }

    // ---------------------------------------------------------------- the child and its HTTP

    private ChildJvm start(ComponentFault fault, long exitMs) throws IOException {
        return start(scratch.resolve("data"), fault, exitMs);
    }

    private ChildJvm start(Path data, ComponentFault fault, long exitMs) throws IOException {
        ChildJvm child = ChildJvm.start(ComponentFaultServerMain.class, List.of(data.toString(), fault.name(),
                Long.toString(exitMs)), scratch.resolve("stderr-" + children.size() + ".txt"),
                System.getProperty("java.class.path"), scratch, null);
        children.add(child);
        child.awaitListening();
        return child;
    }

    private HttpResponse<String> publish(ChildJvm child, String orderId) throws IOException, InterruptedException {
        return client.send(HttpRequest.newBuilder(child.uri().resolve("/streams/orders"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"order_id\":\"" + orderId + "\",\"total\":1.5}"))
                .build(), HttpResponse.BodyHandlers.ofString());
    }

    private void publishBatch(ChildJvm child, String prefix, int events) throws IOException, InterruptedException {
        StringBuilder body = new StringBuilder("[");
        for (int i = 0; i < events; i++) {
            body.append(i == 0 ? "" : ",").append("{\"order_id\":\"").append(prefix).append('-').append(i)
                    .append("\"}");
        }
        HttpResponse<String> answer = client.send(HttpRequest.newBuilder(child.uri().resolve("/streams/orders"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.append(']').toString())).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
    }

    private HttpResponse<String> get(ChildJvm child, String path) throws IOException, InterruptedException {
        return client.send(HttpRequest.newBuilder(child.uri().resolve(path)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> post(ChildJvm child, String path) throws IOException, InterruptedException {
        return client.send(HttpRequest.newBuilder(child.uri().resolve(path))
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Polls {@code path} until it answers {@code status}; returns its body. */
    private JsonNode awaitHealth(ChildJvm child, String path, int status) throws Exception {
        HttpResponse<String> answer = Eventually.get(path + " answers " + status, Duration.ofMillis(WAIT_MS),
                () -> get(child, path), response -> response.statusCode() == status);
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(status);
        return JSON.readTree(answer.body());
    }

    /** Polls {@code path} until its body matches {@code test}; returns the body. */
    private JsonNode awaitHealthBody(ChildJvm child, String path, Predicate<JsonNode> test) throws Exception {
        JsonNode body = Eventually.get(path + " answers as expected", Duration.ofMillis(WAIT_MS),
                () -> JSON.readTree(get(child, path).body()), test);
        assertThat(test.test(body)).as(body.toString()).isTrue();
        return body;
    }

    /** Polls {@code GET /logs/sys?event=...} until a record of {@code event} is there; returns the newest. */
    private JsonNode awaitRecord(ChildJvm child, String event) throws Exception {
        JsonNode records = Eventually.get("a " + event + " record", Duration.ofMillis(WAIT_MS),
                () -> JSON.readTree(get(child, "/logs/sys?event=" + event).body()).get("records"), r -> !r.isEmpty());
        assertThat(records).as("no " + event + " record").isNotEmpty();
        return records.get(0);
    }

    /** Polls the warehouse until it holds {@code expected} orders; returns how many it holds. */
    private long awaitCount(ChildJvm child, long expected) throws Exception {
        return Eventually.get("the warehouse holds " + expected + " orders", Duration.ofMillis(WAIT_MS),
                () -> countOrders(child), count -> count >= expected);
    }

    private long countOrders(ChildJvm child) throws IOException, InterruptedException {
        HttpResponse<String> answer = client.send(HttpRequest.newBuilder(child.uri().resolve("/sql"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"sql\":\"SELECT count(*) FROM streams.orders\"}"))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        return JSON.readTree(answer.body()).get("rows").get(0).get(0).asLong();
    }
}
