package dev.interlace.integration.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.interlace.integration.http.QuarantinedVisits;
import dev.interlace.integration.http.RebuiltStream;
import dev.interlace.log.kafka.testing.KafkaCluster;
import dev.interlace.runtime.Interlace;
import dev.interlace.runtime.stream.StreamCatalog;
import dev.interlace.runtime.stream.StreamPartitions;
import dev.interlace.runtime.testing.Eventually;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A quarantine replay into a stream of four partitions on the Kafka log, across two ingest nodes that each sequence
 * some partitions: the quarantine is partition 0's, each entry's event goes to the partition its key hashes to, and
 * each partition's entries are replayed by that partition's sequencer, on the other node when it runs there. Each
 * entry lands once in its key's partition after its head (deduplicated against what was published there), its mark
 * names the partition on every node, a second replay on either node answers {@code already_replayed}, and a
 * re-publish of a replayed key is deduplicated at the replay's offset. When one partition's part is refused (its
 * backlog is full) and another's is replayed, the answer says which partitions were replayed.
 */
class PartitionedReplayKafkaTest {

    private static final String SECRET = "the secret these test nodes share, longer than 32 bytes";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int PARTITIONS = 4;

    @TempDir
    Path directory;

    private final String bootstrap = KafkaCluster.shared().bootstrap();
    private final String prefix = "replay-" + UUID.randomUUID().toString().substring(0, 8) + ".";
    private final HttpClient http = HttpClient.newHttpClient();

    private static String visits(String version, boolean referrer) {
        return """
                package replayed.%s;

                import dev.interlace.annotations.SchemaDrift;
                import dev.interlace.annotations.Stream;

                @Stream(name = "visits", schema = {"visit_id string not null", "page string"%s},
                        idempotencyKey = "visit_id", partitions = %d, onSchemaDrift = SchemaDrift.QUARANTINE)
                public final class Visits {}
                """.formatted(version, referrer ? ", \"referrer string\"" : "", PARTITIONS);
    }

    @Test
    void eachPartitionsEntriesAreReplayedByItsSequencerOnWhicheverNodeItRunsOnceAndMarkedThere() throws Exception {
        Path secret = directory.resolve("cluster.secret");
        Files.writeString(secret, SECRET + "\n");
        Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("rw-------"));
        StreamCatalog before = StreamCatalog.of(List.of(RebuiltStream.compile(directory.resolve("v1"),
                "replayed.v1", "Visits", visits("v1", false))));
        Map<String, long[]> original;
        try (Interlace first = node(before, "first", secret); Interlace second = node(before, "second", secret)) {
            awaitSpread(first, second);
            original = QuarantinedVisits.positions(publish(first.uri(), QuarantinedVisits.stored()));
            assertThat(publish(second.uri(), QuarantinedVisits.quarantined()).get("quarantined").asLong())
                    .isEqualTo(QuarantinedVisits.QUARANTINED);
        }

        // The schema now declares referrer: the nodes start again with it, and the entries are valid.
        StreamCatalog after = StreamCatalog.of(List.of(RebuiltStream.compile(directory.resolve("v2"),
                "replayed.v2", "Visits", visits("v2", true))));
        try (Interlace first = node(after, "first", secret); Interlace second = node(after, "second", secret)) {
            JsonNode spread = awaitSpread(first, second);
            JsonNode heads = get(first.uri(), "/streams/visits").get("by_partition");
            Set<Integer> elsewhere = new HashSet<>();
            for (JsonNode partition : spread.get("by_partition")) {
                if (!partition.get("sequencer").asText().equals(first.uri().toString())) {
                    elsewhere.add(partition.get("partition").asInt());
                }
            }
            // Some entries go to partitions the node asked does not sequence: their part is replayed on the other.
            Set<Integer> targets = new HashSet<>();
            for (int i = 0; i < 20; i++) {
                targets.add(StreamPartitions.partitionOfKey("q-" + i, PARTITIONS));
            }
            assertThat(targets).as("partitions sequenced by the other node " + elsewhere).containsAnyElementsOf(
                    elsewhere);

            HttpResponse<String> dry = replay(first.uri(), "{\"all\": true, \"dry_run\": true}");
            assertThat(dry.statusCode()).as(dry.body()).isEqualTo(200);
            assertThat(JSON.readTree(dry.body()).get("accepted").asLong()).isEqualTo(20);
            assertThat(get(first.uri(), "/streams/visits").get("by_partition")).as("a dry run writes nothing")
                    .isEqualTo(heads);

            HttpResponse<String> replay = replay(first.uri(), "{\"all\": true}");
            assertThat(replay.statusCode()).as(replay.body()).isEqualTo(200);
            JsonNode body = JSON.readTree(replay.body());
            assertThat(body.get("accepted").asLong()).as(replay.body()).isEqualTo(20);
            assertThat(body.get("deduplicated").asLong()).isEqualTo(2);
            Map<Long, String> placed = QuarantinedVisits.assertReplayed(body.get("results"), heads, original,
                    PARTITIONS);

            // Replayed again, on either node: nothing moves.
            for (Interlace node : List.of(second, first)) {
                HttpResponse<String> again = replay(node.uri(), "{\"seqs\": [1, 2, 3, 4, 5, 21]}");
                assertThat(again.statusCode()).as(again.body()).isEqualTo(200);
                for (JsonNode result : JSON.readTree(again.body()).get("results")) {
                    assertThat(result.get("status").asText()).as(again.body()).isEqualTo("already_replayed");
                    assertThat(result.get("partition").asInt() + ":" + result.get("offset").asLong())
                            .isEqualTo(placed.get(result.get("seq").asLong()));
                }
            }
            // Every node's listing says where each entry went.
            for (Interlace node : List.of(first, second)) {
                JsonNode items = Eventually.get("every mark applied at " + node.uri(), Duration.ofSeconds(30),
                        () -> get(node.uri(), "/streams/visits/quarantine?limit=100").get("items"),
                        listed -> {
                            for (JsonNode item : listed) {
                                if (item.path("replayed_offset").isNull()) {
                                    return false;
                                }
                            }
                            return listed.size() == 22;
                        });
                for (JsonNode item : items) {
                    assertThat(item.get("replayed_partition").asInt() + ":" + item.get("replayed_offset").asLong())
                            .isEqualTo(placed.get(item.get("seq").asLong()));
                }
            }
            // The replayed events are in their partitions' logs: a publish of their keys is deduplicated to them.
            StringBuilder republished = new StringBuilder();
            for (int i = 0; i < 20; i++) {
                republished.append("{\"visit_id\":\"q-").append(i).append("\",\"page\":\"/q\"}\n");
            }
            JsonNode duplicates = publish(second.uri(), republished.toString());
            assertThat(duplicates.get("deduplicated").asLong()).as(duplicates.toString()).isEqualTo(20);
            for (int i = 0; i < 20; i++) {
                JsonNode result = duplicates.get("results").get(i);
                assertThat(result.get("partition").asInt() + ":" + result.get("offset").asLong())
                        .isEqualTo(placed.get(i + 1L));
            }
        }
    }

    @Test
    void aReplayWhosePartsDoNotAllCommitSaysWhichPartitionsWereReplayed() throws Exception {
        Path secret = directory.resolve("cluster.secret");
        Files.writeString(secret, SECRET + "\n");
        Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("rw-------"));
        // Partition full fills up to --max-pending with valid events; partition open has room.
        int full = 1;
        int open = 2;
        List<String> filling = keysOf(full, "fill-", 20);
        List<String> toFull = keysOf(full, "qf-", 3);
        List<String> toOpen = keysOf(open, "qo-", 3);
        StreamCatalog before = StreamCatalog.of(List.of(RebuiltStream.compile(directory.resolve("v1"),
                "replayed.v1", "Visits", visits("v1", false))));
        try (Interlace first = node(before, "first", secret, "20");
                Interlace second = node(before, "second", secret, "20")) {
            awaitSpread(first, second);
            StringBuilder valid = new StringBuilder();
            filling.forEach(key -> valid.append("{\"visit_id\":\"").append(key).append("\",\"page\":\"/\"}\n"));
            JsonNode filled = publish(first.uri(), valid.toString());
            assertThat(filled.get("accepted").asLong() + filled.get("deduplicated").asLong()).isEqualTo(20);
            StringBuilder quarantined = new StringBuilder();
            for (String key : concat(toFull, toOpen)) {
                quarantined.append("{\"visit_id\":\"").append(key).append("\",\"page\":\"/q\",\"referrer\":\"r\"}\n");
            }
            assertThat(publish(second.uri(), quarantined.toString()).get("quarantined").asLong()).isEqualTo(6);
        }
        StreamCatalog after = StreamCatalog.of(List.of(RebuiltStream.compile(directory.resolve("v2"),
                "replayed.v2", "Visits", visits("v2", true))));
        try (Interlace first = node(after, "first", secret, "20");
                Interlace second = node(after, "second", secret, "20")) {
            awaitSpread(first, second);
            HttpResponse<String> replay = replay(first.uri(), "{\"all\": true}");
            assertThat(replay.statusCode()).as(replay.body()).isEqualTo(429);
            JsonNode body = JSON.readTree(replay.body());
            assertThat(body.get("error").asText()).isEqualTo("backpressure");
            assertThat(body.get("replayed_partitions").toString()).as(replay.body()).isEqualTo("[" + open + "]");
            assertThat(body.get("not_replayed_partitions").toString()).isEqualTo("[" + full + "]");
            assertThat(body.get("message").asText()).contains("partitions [" + open + "] were replayed");
            assertThat(replay.headers().firstValue("Retry-After")).isPresent();

            // The open partition's entries were replayed, the full one's not: on both nodes' listings.
            List<Long> openSeqs = new ArrayList<>();
            for (Interlace node : List.of(first, second)) {
                JsonNode items = Eventually.get("the marks applied at " + node.uri(), Duration.ofSeconds(30),
                        () -> get(node.uri(), "/streams/visits/quarantine?limit=100").get("items"), listed -> {
                            int replayed = 0;
                            for (JsonNode item : listed) {
                                replayed += item.path("replayed_offset").isNull() ? 0 : 1;
                            }
                            return replayed == 3;
                        });
                assertThat(items).hasSize(6);
                openSeqs.clear();
                for (JsonNode item : items) {
                    boolean toTheOpenOne = toOpen.contains(item.get("event").get("visit_id").asText());
                    assertThat(item.path("replayed_offset").isNull()).as(item.toString()).isEqualTo(!toTheOpenOne);
                    if (toTheOpenOne) {
                        assertThat(item.get("replayed_partition").asInt()).isEqualTo(open);
                        openSeqs.add(item.get("seq").asLong());
                    }
                }
            }
            // Asked again on the other node, they are already replayed; nothing was appended twice.
            HttpResponse<String> again = replay(second.uri(), "{\"seqs\": " + openSeqs + "}");
            assertThat(again.statusCode()).as(again.body()).isEqualTo(200);
            assertThat(JSON.readTree(again.body()).get("already_replayed").asLong()).as(again.body()).isEqualTo(3);
            JsonNode stream = get(first.uri(), "/streams/visits").get("by_partition");
            assertThat(stream.get(open).get("head").asLong()).isEqualTo(3);
            assertThat(stream.get(full).get("head").asLong()).isEqualTo(20);
        }
    }

    /** {@code count} keys {@code prefix<n>} that hash to {@code partition}. */
    private static List<String> keysOf(int partition, String prefix, int count) {
        List<String> keys = new ArrayList<>();
        for (int n = 0; keys.size() < count; n++) {
            if (StreamPartitions.partitionOfKey(prefix + n, PARTITIONS) == partition) {
                keys.add(prefix + n);
            }
        }
        return keys;
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    /** Waits until every partition has a sequencer and both nodes hold some; the stream as {@code node} says. */
    /**
     * The map of {@code first} once each partition has a sequencer, both nodes sequence some, and both nodes see the
     * same map (right after a rebalance a node may still name the previous holder, and a share forwarded on that
     * view is refused and must be retried).
     */
    private JsonNode awaitSpread(Interlace first, Interlace second) {
        return Eventually.get("each partition sequenced, both nodes agreeing", Duration.ofSeconds(60),
                () -> get(first.uri(), "/streams/visits"), stream -> {
                    List<String> holders = holders(stream);
                    return holders != null && new HashSet<>(holders).size() == 2
                            && holders.equals(holders(get(second.uri(), "/streams/visits")));
                });
    }

    /** The sequencer of each partition, partition 0 first; null while one has none. */
    private static List<String> holders(JsonNode stream) {
        List<String> holders = new ArrayList<>();
        for (JsonNode partition : stream.path("by_partition")) {
            if (!partition.path("sequencer").isTextual()) {
                return null;
            }
            holders.add(partition.get("sequencer").asText());
        }
        return holders.size() == PARTITIONS ? holders : null;
    }

    private Interlace node(StreamCatalog catalog, String name, Path secret) throws IOException {
        return node(catalog, name, secret, "100000");
    }

    private Interlace node(StreamCatalog catalog, String name, Path secret, String maxPending) throws IOException {
        return NodeFixtures.inProcessNode(catalog, bootstrap, prefix, List.of("--data-dir",
                Files.createDirectories(directory.resolve(name)).toString(), "--flush-delay-ms", "10",
                "--cluster-secret-file", secret.toString(), "--role", "ingest", "--max-pending", maxPending));
    }

    /**
     * Publishes {@code body}, retried as a client would while the answer is a 503 (the group may still be moving a
     * partition just after the nodes start): a retry is deduplicated partition by partition, and a request of
     * quarantined events only is one part, partition 0's, stored whole or not at all.
     */
    private JsonNode publish(URI node, String body) throws Exception {
        HttpResponse<String> answer = Eventually.get("a publish answered other than 503", Duration.ofSeconds(60),
                () -> http.send(HttpRequest.newBuilder(node.resolve("/streams/visits?verbose=true"))
                        .header("Content-Type", "application/x-ndjson").POST(HttpRequest.BodyPublishers.ofString(body))
                        .build(), HttpResponse.BodyHandlers.ofString()), sent -> sent.statusCode() != 503);
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        return JSON.readTree(answer.body());
    }

    private HttpResponse<String> replay(URI node, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(node.resolve("/streams/visits/quarantine/replay"))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private JsonNode get(URI node, String path) {
        return NodeFixtures.getJson(http, node, path);
    }
}
