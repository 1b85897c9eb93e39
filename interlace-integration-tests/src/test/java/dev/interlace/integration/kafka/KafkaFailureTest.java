package dev.interlace.integration.kafka;

import dev.interlace.integration.crash.Ledger;
import dev.interlace.integration.crash.Load;
import dev.interlace.log.kafka.testing.KafkaCluster;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a failure test of nodes on Kafka (on the shared broker or on brokers of its own, {@link OwnBrokers}) starts
 * from: its brokers, a temporary directory for the nodes' data, a topic prefix no other test uses, a seeded random (the
 * same keys and samples on every run), the nodes and proxies it started (closed after each test), publishers that
 * fail over between the nodes, and the printed phases the takeover figures are read from.
 */
abstract class KafkaFailureTest {

    /** Publishers of a failing-over load. */
    static final int PUBLISHERS = 4;
    /**
     * How long a publisher waits for an answer before it tries another node: longer than a node waits for a
     * takeover under way before it answers {@code no_sequencer} (5 s).
     */
    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(8);

    @TempDir
    Path directory;

    final String prefix;
    final Random random;
    private final Supplier<KafkaCluster> brokers;
    private final List<AutoCloseable> started = new CopyOnWriteArrayList<>();
    private final long startedAt = System.nanoTime();

    /**
     * {@code test} starts the topic prefix ({@link NodeFixtures#prefix}); {@code seed} seeds {@link #random};
     * {@code brokers} gives the cluster once it runs (an {@link OwnBrokers} extension's, or the shared one).
     */
    KafkaFailureTest(String test, long seed, Supplier<KafkaCluster> brokers) {
        this.prefix = NodeFixtures.prefix(test);
        this.random = new Random(seed);
        this.brokers = brokers;
    }

    /** The brokers the test's nodes run on. */
    KafkaCluster cluster() {
        return brokers.get();
    }

    /**
     * Stops the nodes and proxies the test started; brokers a test left dead are brought back afterwards by the
     * {@link OwnBrokers} extension of a test that asks for it.
     */
    @AfterEach
    void closeWhatTheTestStarted() throws Exception {
        for (AutoCloseable closeable : started) {
            closeable.close();
        }
    }

    /** Closes {@code closeable} after the test; returns it. */
    <T extends AutoCloseable> T track(T closeable) {
        started.add(closeable);
        return closeable;
    }

    /**
     * Starts {@link #PUBLISHERS} publishers of fresh keys starting {@code keyPrefix} that retry every failed or
     * unanswered request on another of {@code nodes} ({@link Load#failover}), seeded from {@link #random}.
     */
    Load failover(List<URI> nodes, Ledger ledger, String keyPrefix) {
        return Load.failover(nodes, ledger, keyPrefix, PUBLISHERS, REQUEST_TIMEOUT, random.nextLong());
    }

    /** Prints what the test is at, with the seconds since it started (the takeover figures come from these). */
    void phase(String what) {
        System.out.printf("[%6.1f s] %s%n", (System.nanoTime() - startedAt) / 1e9, what);
    }

    /** The {@link KafkaOracle} of this test's stream on its brokers. */
    KafkaOracle oracle() {
        return new KafkaOracle(cluster().bootstrap(), prefix, random);
    }
}
