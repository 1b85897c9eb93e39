package dev.interlace.integration.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.interlace.log.kafka.testing.KafkaCluster;
import dev.interlace.runtime.testing.Eventually;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node whose Kafka cluster stops answering says so within seconds instead of holding its clients: the broker is
 * frozen (SIGSTOP: its connections stay open and nothing comes back, as when the network between them drops every
 * packet), and the node answers publishes {@code 503 log_unavailable} with {@code Retry-After} well within 12 s,
 * reports {@code not_ready} naming the cause within 10 s, and stays live. Once the broker goes on, publishing
 * resumes, and every key acknowledged before, during or after is stored once at the offset its 200 reported.
 */
class UnreachableClusterTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration ANSWERED_WITHIN = Duration.ofSeconds(12);

    private static KafkaCluster cluster;

    @TempDir
    Path directory;

    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final String prefix = "cut-" + UUID.randomUUID().toString().substring(0, 8) + ".";

    @BeforeAll
    static void startBroker() {
        cluster = KafkaCluster.start(1); // of its own: freezing the shared broker would stop the other tests
    }

    @AfterAll
    static void stopBroker() {
        cluster.close();
    }

    @Test
    void aNodeCutOffFromItsBrokersRefusesFastSaysNotReadyAndResumesWithNothingLostOrDoubled() throws Exception {
        KafkaCluster.Node broker = cluster.nodes().get(0);
        try (ServeNode node = ServeNode.start(directory.resolve("node"), cluster.bootstrap(), prefix)) {
            Map<String, Long> acknowledged = new LinkedHashMap<>();
            for (int i = 0; i < 20; i++) {
                publish(node, "before-" + i, acknowledged);
            }
            assertThat(acknowledged).as(node.output()).hasSize(20);

            cluster.suspend(broker);
            long cut = System.nanoTime();
            try {
                int refused = 0;
                List<String> figures = new ArrayList<>();
                for (int i = 0; i < 6; i++) {
                    long asked = System.nanoTime();
                    Answer answer = publish(node, "during-" + i, acknowledged);
                    Duration took = Duration.ofNanos(System.nanoTime() - asked);
                    assertThat(answer).as("publish %d during the cut answered within 12 s", i).isNotNull();
                    assertThat(took).as("publish %d during the cut", i).isLessThan(ANSWERED_WITHIN);
                    figures.add(answer.status() + " in " + took.toMillis() + " ms");
                    if (answer.status() == 503) {
                        assertThat(answer.body().get("error").asText()).isEqualTo("log_unavailable");
                        assertThat(answer.retryAfter()).isNotNull();
                        String message = answer.body().get("message").asText();
                        if (refused == 0) {
                            // The first was in hand, its transaction sent: the cluster may still commit it.
                            assertThat(message).contains("may or may not be stored")
                                    .doesNotContain("nothing was stored");
                            assertThat(answer.body().path("may_be_stored").asBoolean()).as(message).isTrue();
                        } else {
                            // The later ones were refused before anything was sent.
                            assertThat(message).contains("nothing was stored");
                            assertThat(answer.body().path("may_be_stored").isBoolean()).as(message).isTrue();
                            assertThat(answer.body().path("may_be_stored").asBoolean()).as(message).isFalse();
                        }
                        refused++;
                    }
                }
                assertThat(refused).as("publishes refused while the cluster does not answer").isPositive();

                JsonNode ready = awaitReadiness(node, "not_ready", cut, Duration.ofSeconds(10));
                System.out.printf("[unreachable-cluster] publishes during the cut: %s; not_ready %d ms after it%n",
                        figures, (System.nanoTime() - cut) / 1_000_000);
                assertThat(ready.get("reasons").toString()).contains("log_unavailable")
                        .contains("has not answered");
                assertThat(get(node, "/health/live").status()).isEqualTo(200);
                // Reads answer from what the node has, saying what they could not read.
                long asked = System.nanoTime();
                Answer described = get(node, "/streams/orders");
                long describedMillis = (System.nanoTime() - asked) / 1_000_000;
                assertThat(described).as("GET /streams/orders during the cut answered within 12 s").isNotNull();
                assertThat(described.status()).as(described.body().toString()).isEqualTo(200);
                assertThat(described.body().get("head").asLong()).isGreaterThanOrEqualTo(20);
                assertThat(described.body().get("recent_unavailable").asText()).contains("no progress");
                System.out.printf("[unreachable-cluster] GET /streams/orders during the cut: 200 in %d ms%n",
                        describedMillis);
            } finally {
                cluster.resume(broker);
            }

            Answer after;
            try {
                after = Eventually.get("a publish is acknowledged again", Duration.ofSeconds(90),
                        () -> publish(node, "after-" + UUID.randomUUID(), acknowledged),
                        answer -> answer != null && answer.status() == 200);
            } catch (AssertionError e) {
                throw new AssertionError(e.getMessage() + "\n" + node.output(), e);
            }
            assertThat(after).isNotNull();
            assertThat(after.status()).as("publishing resumes once the broker answers: " + node.output())
                    .isEqualTo(200);
            awaitReadiness(node, "ready", System.nanoTime(), Duration.ofSeconds(60));

            // Every acknowledged key is stored once, at its offset: a retry is deduplicated to it.
            for (Map.Entry<String, Long> key : acknowledged.entrySet()) {
                Answer retry = publish(node, key.getKey(), new LinkedHashMap<>());
                assertThat(retry.status()).isEqualTo(200);
                assertThat(retry.body().get("deduplicated").asInt()).as(key.getKey()).isEqualTo(1);
                assertThat(retry.body().get("results").get(0).get("offset").asLong()).as(key.getKey())
                        .isEqualTo(key.getValue());
            }
            JsonNode page = get(node, "/streams/orders/events?after=0&limit=1000").body();
            long head = page.get("head").asLong();
            assertThat(page.get("count").asLong()).as("offsets dense from 1 to the head").isEqualTo(head);
            java.util.Set<String> keys = new java.util.HashSet<>();
            for (JsonNode event : page.get("events")) {
                assertThat(keys.add(event.get("event").get("order_id").asText())).as("stored once: " + event)
                        .isTrue();
            }
            node.stop();
        }
    }

    /** An answer, or null when none came within {@link #ANSWERED_WITHIN} and a few seconds more. */
    private record Answer(int status, JsonNode body, String retryAfter) {}

    /** Publishes the order {@code key}; records its offset in {@code acknowledged} when it is answered 200. */
    private Answer publish(ServeNode node, String key, Map<String, Long> acknowledged) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(node.uri.resolve("/streams/orders?verbose=true"))
                .timeout(ANSWERED_WITHIN.plusSeconds(8)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"order_id\": \"" + key + "\", \"total\": 1}")).build();
        Answer answer = send(request);
        if (answer != null && answer.status() == 200 && answer.body().get("accepted").asInt() == 1) {
            acknowledged.put(key, answer.body().get("results").get(0).get("offset").asLong());
        }
        return answer;
    }

    private Answer get(ServeNode node, String path) throws Exception {
        return send(HttpRequest.newBuilder(node.uri.resolve(path)).timeout(ANSWERED_WITHIN).GET().build());
    }

    private Answer send(HttpRequest request) throws Exception {
        try {
            HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
            return new Answer(response.statusCode(), JSON.readTree(response.body()),
                    response.headers().firstValue("Retry-After").orElse(null));
        } catch (HttpTimeoutException e) {
            return null;
        }
    }

    private JsonNode awaitReadiness(ServeNode node, String status, long sinceNanos, Duration within)
            throws Exception {
        Duration left = within.minusNanos(System.nanoTime() - sinceNanos);
        if (left.isNegative()) {
            throw new AssertionError("readiness did not become " + status + " within " + within);
        }
        return Eventually.get("readiness becomes " + status, left, () -> {
            Answer ready = get(node, "/health/ready");
            return ready == null ? null : ready.body();
        }, body -> body != null && status.equals(body.get("status").asText()));
    }
}
