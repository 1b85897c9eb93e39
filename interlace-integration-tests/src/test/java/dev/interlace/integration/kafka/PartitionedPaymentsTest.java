package dev.interlace.integration.kafka;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.interlace.integration.http.RebuiltStream;
import dev.interlace.log.kafka.testing.KafkaCluster;
import dev.interlace.runtime.Interlace;
import dev.interlace.runtime.stream.StreamCatalog;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the tests of a partitioned stream on in-process Kafka nodes start from: a {@code payments} stream of two
 * partitions keyed by {@code payment_id}, compiled for the test, the shared broker with a topic prefix of the test's
 * own, a cluster secret in the test's directory, nodes started in this JVM (so that a test reads their metrics and
 * catalog directly) and a JSON {@code GET}.
 */
abstract class PartitionedPaymentsTest {

    static final ObjectMapper JSON = new ObjectMapper();
    private static final String SECRET = "the secret these test nodes share, longer than 32 bytes";

    @TempDir
    Path directory;

    final HttpClient http = HttpClient.newHttpClient();
    private final String bootstrap = KafkaCluster.shared().bootstrap();
    private final String prefix;

    /** {@code test} starts the topic prefix ({@link NodeFixtures#prefix}). */
    PartitionedPaymentsTest(String test) {
        this.prefix = NodeFixtures.prefix(test);
    }

    /** The {@code payments} stream compiled in {@code packageName}, and the cluster secret file written. */
    StreamCatalog paymentsCatalog(String packageName) throws IOException {
        String source = """
                package %s;

                import dev.interlace.annotations.Stream;

                @Stream(name = "payments",
                        schema = {"payment_id string not null", "amount bigint"},
                        idempotencyKey = "payment_id",
                        partitions = 2)
                public final class Payments {}
                """.formatted(packageName);
        NodeFixtures.clusterSecret(directory, SECRET);
        return StreamCatalog.of(List.of(RebuiltStream.compile(directory.resolve("build"), packageName, "Payments",
                source)));
    }

    /** A node of {@code role} on the Kafka log, with its data in the sub-directory {@code name}, and no models. */
    Interlace node(StreamCatalog catalog, String name, String role, String... flags) throws IOException {
        List<String> args = new ArrayList<>(List.of("--data-dir",
                Files.createDirectories(directory.resolve(name)).toString(), "--cluster-secret-file",
                directory.resolve("cluster.secret").toString(), "--role", role));
        args.addAll(List.of(flags));
        return NodeFixtures.inProcessNode(catalog, bootstrap, prefix, args);
    }

    /** The URLs of the nodes sequencing the partitions of {@code stream} (its {@code GET}); none until all have one. */
    static Set<String> sequencers(JsonNode stream) {
        Set<String> holders = new HashSet<>();
        for (JsonNode partition : stream.path("by_partition")) {
            if (!partition.path("sequencer").isTextual()) {
                return Set.of();
            }
            holders.add(partition.get("sequencer").asText());
        }
        return holders;
    }

    /** {@code GET path} on {@code node}, its body as JSON. */
    JsonNode get(URI node, String path) {
        return NodeFixtures.getJson(http, node, path);
    }
}
