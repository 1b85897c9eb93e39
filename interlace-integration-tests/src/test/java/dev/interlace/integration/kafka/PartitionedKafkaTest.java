package dev.interlace.integration.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import dev.interlace.integration.http.RebuiltStream;
import dev.interlace.log.kafka.testing.KafkaCluster;
import dev.interlace.runtime.Interlace;
import dev.interlace.runtime.config.ConfigLoader;
import dev.interlace.runtime.model.ModelDefinition;
import dev.interlace.runtime.stream.StreamCatalog;
import dev.interlace.runtime.stream.StreamDescriptor;
import dev.interlace.runtime.stream.StreamPartitions;
import dev.interlace.runtime.testing.Eventually;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A stream of two partitions on the Kafka log, two ingest nodes and a warehouse node: the sequencer group gives each
 * node one partition's sequencer, a publish to either node is split and each share appended by its partition's
 * sequencer (the other node's share sent there), a retry on the other node is deduplicated partition by partition,
 * and the warehouse holds every event once with its partition.
 */
class PartitionedKafkaTest {

    private static final String SECRET = "the secret these test nodes share, longer than 32 bytes";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String PAYMENTS = """
            package partitioned.kafka;

            import dev.interlace.annotations.Stream;

            @Stream(name = "payments",
                    schema = {"payment_id string not null", "amount bigint"},
                    idempotencyKey = "payment_id",
                    partitions = 2)
            public final class Payments {}
            """;

    @TempDir
    Path directory;

    private final String bootstrap = KafkaCluster.shared().bootstrap();
    private final String prefix = "part-" + UUID.randomUUID().toString().substring(0, 8) + ".";
    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void eachPartitionHasOneSequencerSpreadOverTheNodesAndEveryEventIsMaterialisedOnce() throws Exception {
        StreamDescriptor payments = RebuiltStream.compile(directory.resolve("build"), "partitioned.kafka",
                "Payments", PAYMENTS);
        StreamCatalog catalog = StreamCatalog.of(List.of(payments));
        Path secret = directory.resolve("cluster.secret");
        Files.writeString(secret, SECRET + "\n");
        Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("rw-------"));
        try (Interlace first = node(catalog, "first", secret, "ingest");
                Interlace second = node(catalog, "second", secret, "ingest");
                Interlace warehouse = node(catalog, "warehouse", secret, "warehouse")) {
            // The group spreads the two partitions' sequencers over the two ingest nodes.
            JsonNode spread = Eventually.get("each partition sequenced, on different nodes", Duration.ofSeconds(60),
                    () -> get(first.uri(), "/streams/payments"), stream -> {
                        Set<String> holders = new HashSet<>();
                        for (JsonNode partition : stream.path("by_partition")) {
                            if (partition.path("sequencer").isNull() || partition.path("sequencer").isMissingNode()) {
                                return false;
                            }
                            holders.add(partition.get("sequencer").asText());
                        }
                        return holders.size() == 2;
                    });
            assertThat(spread.get("by_partition")).hasSize(2);

            Map<String, long[]> stored = new HashMap<>(); // key -> {partition, offset}
            List<Interlace> nodes = List.of(first, second);
            for (int batch = 0; batch < 6; batch++) {
                Interlace node = nodes.get(batch % 2);
                JsonNode answer = publish(node.uri(), batch(batch * 30, batch * 30 + 30));
                assertThat(answer.path("accepted").asLong()).as(answer.toString()).isEqualTo(30);
                for (int i = 0; i < 30; i++) {
                    JsonNode result = answer.get("results").get(i);
                    String key = "p-" + (batch * 30 + i);
                    assertThat(result.get("partition").asInt()).isEqualTo(StreamPartitions.partitionOfKey(key, 2));
                    stored.put(key, new long[] {result.get("partition").asLong(), result.get("offset").asLong()});
                }
            }
            // Dense offsets in each partition, whichever node received the request.
            for (int partition = 0; partition < 2; partition++) {
                int p = partition;
                List<Long> offsets = stored.values().stream().filter(at -> at[0] == p).map(at -> at[1]).sorted()
                        .toList();
                assertThat(offsets).isNotEmpty();
                for (int i = 0; i < offsets.size(); i++) {
                    assertThat(offsets.get(i)).isEqualTo(i + 1L);
                }
            }
            // A retry on the other node: deduplicated in each partition, to the offsets first given.
            JsonNode retried = publish(second.uri(), batch(0, 30));
            assertThat(retried.get("deduplicated").asLong()).as(retried.toString()).isEqualTo(30);
            for (int i = 0; i < 30; i++) {
                JsonNode result = retried.get("results").get(i);
                assertThat(new long[] {result.get("partition").asLong(), result.get("offset").asLong()})
                        .isEqualTo(stored.get("p-" + i));
            }

            // The warehouse holds every event once, in its key's partition, at its offset.
            Eventually.get("the warehouse has every event", Duration.ofSeconds(60),
                    () -> sql(warehouse.uri(), "SELECT count(*) FROM streams.payments"),
                    rows -> rows.get(0).get(0).asLong() == 180);
            JsonNode rows = sql(warehouse.uri(), "SELECT payment_id, _partition, _offset FROM streams.payments");
            assertThat(rows).hasSize(180);
            Set<String> seen = new HashSet<>();
            for (JsonNode row : rows) {
                String key = row.get(0).asText();
                assertThat(seen.add(key)).as(key + " once").isTrue();
                assertThat(new long[] {row.get(1).asLong(), row.get(2).asLong()}).as(key)
                        .isEqualTo(stored.get(key));
            }
        }
    }

    private Interlace node(StreamCatalog catalog, String name, Path secret, String role) throws IOException {
        int port = freePort();
        List<String> args = new ArrayList<>(List.of("--port", Integer.toString(port), "--data-dir",
                Files.createDirectories(directory.resolve(name)).toString(), "--log", "kafka", "--kafka-bootstrap",
                bootstrap, "--kafka-topic-prefix", prefix, "--kafka-replication-factor", "1",
                "--kafka-min-insync-replicas", "1", "--flush-delay-ms", "10", "--cluster-secret-file",
                secret.toString(), "--role", role, "--advertise-url", "http://127.0.0.1:" + port));
        return Interlace.builder().config(ConfigLoader.load(args.toArray(String[]::new), Map.of()).config())
                .catalog(catalog).override(new AbstractModule() {
                    @Provides
                    List<ModelDefinition> definitions() {
                        return List.of();
                    }
                }).start();
    }

    private static String batch(int from, int to) {
        StringBuilder body = new StringBuilder();
        for (int i = from; i < to; i++) {
            body.append("{\"payment_id\":\"p-").append(i).append("\",\"amount\":").append(i).append("}\n");
        }
        return body.toString();
    }

    private JsonNode publish(URI node, String body) throws Exception {
        HttpResponse<String> answer = http.send(HttpRequest.newBuilder(node.resolve("/streams/payments?verbose=true"))
                .header("Content-Type", "application/x-ndjson").POST(HttpRequest.BodyPublishers.ofString(body))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        return JSON.readTree(answer.body());
    }

    private JsonNode get(URI node, String path) {
        try {
            return JSON.readTree(http.send(HttpRequest.newBuilder(node.resolve(path)).build(),
                    HttpResponse.BodyHandlers.ofString()).body());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private JsonNode sql(URI node, String query) {
        try {
            HttpResponse<String> answer = http.send(HttpRequest.newBuilder(node.resolve("/sql"))
                    .header("Content-Type", "text/plain").POST(HttpRequest.BodyPublishers.ofString(query)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
            return JSON.readTree(answer.body()).get("rows");
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
