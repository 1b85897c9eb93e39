package dev.interlace.integration.kafka;

import dev.interlace.log.kafka.testing.KafkaCluster;
import java.util.function.Supplier;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Brokers of a test class's own, for the tests that kill, freeze or cut off brokers (the broker the other tests share
 * must stay whole): started before the class's first test and closed after its last. {@link #restoredAfterEach}
 * brokers are also made whole between tests: every broker a test left dead is restarted and the replicas are in sync
 * again before the next test starts (after the test's own {@code @AfterEach} stopped its nodes).
 */
final class OwnBrokers implements BeforeAllCallback, AfterEachCallback, AfterAllCallback {

    private final Supplier<KafkaCluster> start;
    private final boolean restoreAfterEach;
    private KafkaCluster cluster;

    private OwnBrokers(Supplier<KafkaCluster> start, boolean restoreAfterEach) {
        this.start = start;
        this.restoreAfterEach = restoreAfterEach;
    }

    /** The brokers {@code start} starts, as the tests leave them. */
    static OwnBrokers started(Supplier<KafkaCluster> start) {
        return new OwnBrokers(start, false);
    }

    /** The brokers {@code start} starts, with the dead ones restarted after each test. */
    static OwnBrokers restoredAfterEach(Supplier<KafkaCluster> start) {
        return new OwnBrokers(start, true);
    }

    /** The running brokers. */
    KafkaCluster cluster() {
        return cluster;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        cluster = start.get();
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        if (restoreAfterEach) {
            cluster.restart(cluster.nodes().stream().filter(broker -> !broker.alive())
                    .toArray(KafkaCluster.Node[]::new));
            cluster.awaitInSync();
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (cluster != null) {
            cluster.close();
        }
    }
}
