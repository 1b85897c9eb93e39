package dev.interlace.integration.kafka;

import dev.interlace.log.kafka.testing.KafkaCluster;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a test of {@link ServeNode}s on the shared broker starts from: a temporary directory for the nodes' data, the
 * broker's address, a topic prefix no other test uses, and the cluster secret the nodes of one test share.
 */
abstract class KafkaNodeTest {

    static final String CLUSTER_SECRET = "a cluster secret of at least thirty-two bytes";
    static final String TWO_ORDERS = "[{\"order_id\": \"a\", \"total\": 1.50},"
            + " {\"order_id\": \"b\", \"total\": 2.00}]";

    @TempDir
    Path directory;

    final String bootstrap = KafkaCluster.shared().bootstrap();
    final String prefix;

    /** {@code test} starts the topic prefix ({@link NodeFixtures#prefix}). */
    KafkaNodeTest(String test) {
        this.prefix = NodeFixtures.prefix(test);
    }

    /** A node on the broker with its data in {@code data}. */
    ServeNode node(Path data, String... flags) {
        try {
            return ServeNode.start(data, bootstrap, prefix, flags);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A node on the broker with its data in the sub-directory {@code name} of the test's directory. */
    ServeNode node(String name, String... flags) {
        return node(directory.resolve(name), flags);
    }

    /** {@code --cluster-secret-file} and the file holding {@code secret}, written once in the test's directory. */
    String[] clusterFlags(String secret) throws IOException {
        return new String[] {"--cluster-secret-file", NodeFixtures.clusterSecret(directory, secret).toString()};
    }

    /** {@link #clusterFlags(String)} with {@link #CLUSTER_SECRET}. */
    String[] clusterFlags() throws IOException {
        return clusterFlags(CLUSTER_SECRET);
    }
}
