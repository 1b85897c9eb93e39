package dev.interlace.log.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.log.kafka.testing.BlackholeProxy;
import dev.interlace.log.kafka.testing.KafkaCluster;
import dev.interlace.runtime.log.LogSettings;
import dev.interlace.runtime.log.EventLog;
import dev.interlace.runtime.log.Watermarks;
import dev.interlace.runtime.stream.StreamDescriptor;
import dev.interlace.runtime.testing.Eventually;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Kafka log of a node whose network to the broker is cut ({@link BlackholeProxy} in front of a listener of the
 * broker's own) while nothing is asked of it: its health must say so by itself, not only once a publish stalls.
 */
class KafkaStreamLogPartitionTest {

    private static final StreamDescriptor ORDERS = KeyedOrders.declaredBy(KafkaStreamLogPartitionTest.class);
    private static final Watermarks NOTHING_FLUSHED = KeyedOrders.NOTHING_FLUSHED;

    private static KafkaCluster cluster;

    @TempDir
    Path directory;

    @BeforeAll
    static void startBroker() {
        cluster = KafkaCluster.startWithCutListeners(1);
    }

    @AfterAll
    static void stopBroker() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void anIdleNodeCutOffFromTheBrokerSaysNotReadyWithinTenSecondsNamingWhyAndReadyAgainAfterTheHeal()
            throws Exception {
        String prefix = "cut-" + UUID.randomUUID().toString().substring(0, 8) + ".";
        try (BlackholeProxy proxy = new BlackholeProxy(cluster.cutAdvertisedPort(0), cluster.cutListener(0));
                KafkaStreamLog log = new KafkaStreamLog(new KafkaLogSettings(cluster.cutBootstrap(0), prefix, 1, 1,
                        "http://node.test", Duration.ofSeconds(6), Duration.ofSeconds(5), directory),
                        LogSettings.defaults(1000), NOTHING_FLUSHED, Clock.systemUTC())) {
            log.register(ORDERS);
            assertThat(awaitHealth(log, true, 30)).as("writable before the cut").isNull();

            proxy.cut();
            long cutAt = System.nanoTime();
            EventLog.Health cut = awaitHealth(log, false, 30);
            long notReadyMillis = (System.nanoTime() - cutAt) / 1_000_000;
            System.out.println("[idle-cut] not writable " + notReadyMillis + " ms after the cut: " + cut.problem());
            assertThat(cut.writable()).as("writable during the cut").isFalse();
            assertThat(cut.problem()).contains("has not answered this node");
            assertThat(notReadyMillis).as("not writable within 10 s of the cut").isLessThanOrEqualTo(10_000);

            proxy.heal();
            assertThat(awaitHealth(log, true, 60)).as("writable again after the heal").isNull();
        }
    }

    /**
     * Polls the log's health until it is writable ({@code writable}: then null) or not (then that health), for up to
     * {@code seconds}; the last health when that does not happen.
     */
    private static EventLog.Health awaitHealth(KafkaStreamLog log, boolean writable, int seconds)
            throws InterruptedException {
        EventLog.Health health;
        try {
            health = Eventually.get("the log is " + (writable ? "writable" : "not writable"),
                    Duration.ofSeconds(seconds), log::health, seen -> seen.writable() == writable);
        } catch (AssertionError timedOut) {
            health = log.health();
        }
        return health.writable() == writable && writable ? null : health;
    }
}
