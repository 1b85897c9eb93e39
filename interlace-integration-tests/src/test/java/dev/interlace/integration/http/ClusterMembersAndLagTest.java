package dev.interlace.integration.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.inject.Module;
import dev.interlace.integration.OrdersStream;
import dev.interlace.integration.kafka.NodeFixtures;
import dev.interlace.log.kafka.testing.KafkaCluster;
import dev.interlace.runtime.Interlace;
import dev.interlace.runtime.stream.StreamCatalog;
import dev.interlace.runtime.testing.Eventually;
import dev.interlace.runtime.testing.FaultModules;
import dev.interlace.runtime.warehouse.Warehouse;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka-log clusters in one JVM. Two ingest nodes (one stream, so one of them sequences nothing) and two warehouse
 * replicas, one of which cannot commit (it stays at watermark 0): {@code GET /cluster} lists all four with their
 * roles; a warehouse route answered by the lagging replica, directly or forwarded to it, names its lag in
 * {@code Interlace-Warehouse-Lag}, and one answered by the caught-up replica carries none. And a replica that comes
 * back after the log was trimmed past its watermark: its flush stops, it gives its lease up, queries go to the other.
 */
class ClusterMembersAndLagTest {

    private static final StreamCatalog ORDERS = StreamCatalog.of(List.of(OrdersStream.DESCRIPTOR));
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private static final String COUNT = "SELECT count(*) FROM streams.orders";

    @TempDir
    Path directory;

    private final String prefix = "members-" + UUID.randomUUID().toString().substring(0, 8) + ".";

    @Test
    void everyMemberIsListedAndEveryWarehouseAnswerNamesItsLag() throws Exception {
        Path secret = NodeFixtures.clusterSecret(directory, "a cluster secret of at least thirty-two bytes");
        try (Interlace ingest = start("ingest", secret, "ingest");
                Interlace idle = start("idle", secret, "ingest")) {
            CompletableFuture<Interlace> laggingStart = CompletableFuture.supplyAsync(() -> start("lagging", secret,
                    "warehouse", neverCommits()));
            try (Interlace current = start("current", secret, "warehouse");
                    Interlace lagging = laggingStart.join()) {
                StringBuilder orders = new StringBuilder("[");
                for (int i = 0; i < 10; i++) {
                    orders.append(i == 0 ? "" : ",").append("{\"order_id\": \"o").append(i)
                            .append("\", \"total\": 1}");
                }
                HttpResponse<String> published = post(ingest, "/streams/orders", "application/json",
                        orders.append("]").toString());
                assertThat(published.statusCode()).as(published.body()).isEqualTo(200);

                // The lagging replica learns how far the other flushed from its lease renewals (every 5 s).
                HttpResponse<String> behind = Eventually.get("the lagging replica names its lag",
                        Duration.ofSeconds(60), () -> post(lagging, "/sql", "text/plain", COUNT),
                        answer -> "orders=10".equals(lag(answer)));
                assertThat(behind.statusCode()).isEqualTo(200);
                assertThat(behind.body()).contains("[[0]]");

                HttpResponse<String> caughtUp = post(current, "/sql", "text/plain", COUNT);
                assertThat(caughtUp.body()).contains("[[10]]");
                assertThat(lag(caughtUp)).as("the caught-up replica lags nobody").isNull();
                HttpResponse<String> forwarded = post(ingest, "/sql", "text/plain", COUNT);
                assertThat(forwarded.body()).as("the most caught-up answers").contains("[[10]]");
                assertThat(lag(forwarded)).isNull();

                // Asked of a replica: neither ingest node is the one answering.
                JsonNode cluster = TestServer.JSON.readTree(get(current, "/cluster").body());
                List<String> nodes = new ArrayList<>();
                for (JsonNode node : cluster.get("nodes")) {
                    nodes.add(node.get("url").asText() + " " + node.get("role").asText() + " "
                            + node.get("sequences").size());
                }
                String sequencer = cluster.get("streams").get("orders").get("sequencer").asText();
                Interlace sequencing = sequencer.equals(url(ingest)) ? ingest : idle;
                Interlace notSequencing = sequencing == ingest ? idle : ingest;
                assertThat(nodes).as(cluster.toString()).containsExactlyInAnyOrder(
                        url(sequencing) + " ingest 1", url(notSequencing) + " ingest 0",
                        url(current) + " warehouse 0", url(lagging) + " warehouse 0");

                current.close();
                // Only the lagging replica is left: the ingest node's forward carries that replica's lag.
                HttpResponse<String> relayed = Eventually.get("the ingest node forwards to the lagging replica",
                        Duration.ofSeconds(60), () -> post(ingest, "/sql", "text/plain", COUNT),
                        answer -> answer.statusCode() == 200 && answer.body().contains("[[0]]"));
                assertThat(relayed.headers().firstValue("Interlace-Served-By")).contains(url(lagging));
                assertThat(lag(relayed)).isEqualTo("orders=10");
            }
        }
    }

    @Test
    void aReplicaBackAfterTheLogWasTrimmedPastItStopsAndLeavesTheStreamToTheOthers() throws Exception {
        Path secret = NodeFixtures.clusterSecret(directory, "a cluster secret of at least thirty-two bytes");
        try (Interlace ingest = start("ingest", secret, "ingest");
                Interlace current = start("current", secret, "warehouse")) {
            Interlace away = start("away", secret, "warehouse");
            try (away) {
                publish(ingest, "a");
                for (Interlace replica : List.of(current, away)) {
                    Eventually.get("both replicas flushed", Duration.ofSeconds(60), () -> stream(replica),
                            stream -> stream.get("watermark").asLong() == 10);
                }
            }
            publish(ingest, "b");
            Eventually.get("the other replica flushed", Duration.ofSeconds(60), () -> stream(current),
                    stream -> stream.get("watermark").asLong() == 20);
            // What the retention sweep does once the replica that went away no longer counts.
            assertThat(ingest.instance(dev.interlace.runtime.log.EventLog.class).trim("orders", 15)).isEqualTo(15);

            try (Interlace back = start("away", secret, "warehouse")) {
                JsonNode stopped = Eventually.get("the returning replica stops", Duration.ofSeconds(60),
                        () -> stream(back), stream -> stream.get("flush_state").asText().equals("stopped"));
                assertThat(stopped.get("watermark").asLong()).isEqualTo(10);
                assertThat(stopped.get("flush_error").asText()).contains("through offset 10",
                        "the log's first is 16");
                HttpResponse<String> ready = get(back, "/health/ready");
                assertThat(ready.statusCode()).isEqualTo(503);
                assertThat(ready.body()).contains("flush_stopped: stream orders");

                // It gave its lease up: it is no live replica, and queries go to the one that flushes.
                JsonNode cluster = Eventually.get("the stopped replica is not live", Duration.ofSeconds(60),
                        () -> TestServer.JSON.readTree(get(ingest, "/cluster").body()),
                        answer -> StreamSupport.stream(answer.get("replicas").spliterator(), false)
                                .anyMatch(replica -> !replica.get("live").asBoolean()
                                        && replica.get("streams").get("orders").get("watermark").asLong() == 10));
                assertThat(StreamSupport.stream(cluster.get("replicas").spliterator(), false)
                        .filter(replica -> replica.get("live").asBoolean())
                        .map(replica -> replica.get("node").asText())).as(cluster.toString())
                        .containsExactly(url(current));
                HttpResponse<String> answer = post(ingest, "/sql", "text/plain", COUNT);
                assertThat(answer.body()).contains("[[20]]");
                assertThat(answer.headers().firstValue("Interlace-Served-By")).contains(url(current));
                // Even asked directly: it flushes nothing, so it sends queries to the replica that does.
                HttpResponse<String> direct = post(back, "/sql", "text/plain", COUNT);
                assertThat(direct.body()).contains("[[20]]");
                assertThat(direct.headers().firstValue("Interlace-Served-By")).contains(url(current));
            }
        }
    }

    private static void publish(Interlace ingest, String prefix) {
        StringBuilder orders = new StringBuilder("[");
        for (int i = 0; i < 10; i++) {
            orders.append(i == 0 ? "" : ",").append("{\"order_id\": \"").append(prefix).append(i)
                    .append("\", \"total\": 1}");
        }
        HttpResponse<String> published = post(ingest, "/streams/orders", "application/json",
                orders.append("]").toString());
        assertThat(published.statusCode()).as(published.body()).isEqualTo(200);
    }

    private static JsonNode stream(Interlace node) throws IOException {
        return TestServer.JSON.readTree(get(node, "/streams/orders").body());
    }

    /** A node on the Kafka log serving only the orders stream, so that one of two ingest nodes sequences nothing. */
    private Interlace start(String name, Path secret, String role, Module... overrides) {
        try {
            return NodeFixtures.inProcessNode(ORDERS, KafkaCluster.shared().bootstrap(), prefix, List.of("--data-dir",
                    directory.resolve(name).toString(), "--cluster-secret-file", secret.toString(), "--role", role,
                    "--flush-delay-ms", "10"), overrides);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A warehouse whose commits always fail (a test fault): its replica holds its leases and stays at 0. */
    private static Module neverCommits() {
        return FaultModules.failingWarehouse();
    }

    private static String url(Interlace node) {
        String uri = node.uri().toString();
        return uri.endsWith("/") ? uri.substring(0, uri.length() - 1) : uri;
    }

    private static String lag(HttpResponse<String> answer) {
        return answer.headers().firstValue("Interlace-Warehouse-Lag").orElse(null);
    }

    private static HttpResponse<String> get(Interlace node, String path) {
        return send(HttpRequest.newBuilder(node.uri().resolve(path)).GET().build());
    }

    private static HttpResponse<String> post(Interlace node, String path, String contentType, String body) {
        return send(HttpRequest.newBuilder(node.uri().resolve(path)).header("Content-Type", contentType)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build());
    }

    private static HttpResponse<String> send(HttpRequest request) {
        try {
            return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
