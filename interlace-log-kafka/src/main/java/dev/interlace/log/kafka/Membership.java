package dev.interlace.log.kafka;

import dev.interlace.runtime.ops.DaemonThreads;
import java.time.Duration;
import java.util.Collection;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * This node's membership of the sequencer group: Kafka's group protocol (classic, cooperative, with
 * {@link StreamSpreadAssignor}) assigns each log stream's event partition to exactly one live member, each stream's
 * partitions spread evenly over the members, and that member runs the log stream's sequencer. A member that
 * stops heartbeating for the session timeout loses its partitions to the others; its sequencer is fenced by the new
 * holder's producer anyway, so a stale member cannot acknowledge even if it has not noticed yet.
 *
 * <p>The consumer only takes part in the group: its partitions are paused and it reads nothing. One thread,
 * {@code interlace-kafka-membership}, owns it. The member's {@code client.id} is the node's advertised URL, which is
 * how other nodes learn who holds a stream.
 */
final class Membership implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(Membership.class.getName());

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Set<String> topics = ConcurrentHashMap.newKeySet();
    /** Wakes the member's thread waiting for a first stream to be a member for (or for the close). */
    private final Signal added = new Signal();
    private final Consumer<TopicPartition> assigned;
    private final Consumer<TopicPartition> revoked;
    private final Thread thread;
    private final Duration sessionTimeout;
    /** The group coordinator's answers to this member: heartbeats, joins and syncs. */
    private final Answers coordinator;
    private volatile boolean subscriptionChanged;
    private volatile boolean running = true;

    Membership(String bootstrap, String group, String nodeUrl, Duration sessionTimeout,
            Consumer<TopicPartition> assigned, Consumer<TopicPartition> revoked) {
        Properties properties = new Properties();
        properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        properties.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        properties.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
        properties.put(ConsumerConfig.CLIENT_ID_CONFIG, nodeUrl);
        properties.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, Long.toString(sessionTimeout.toMillis()));
        properties.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, Long.toString(sessionTimeout.toMillis() / 4));
        // Each stream's partitions spread over the nodes; the standard assignor second, which a group whose older
        // members know only it (a rolling upgrade) agrees on meanwhile.
        properties.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG,
                StreamSpreadAssignor.class.getName() + "," + CooperativeStickyAssignor.class.getName());
        properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        this.consumer = new KafkaConsumer<>(properties, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        this.coordinator = new Answers(consumer::metrics, "consumer-coordinator-metrics", "heartbeat-total",
                "join-total", "sync-total");
        this.assigned = assigned;
        this.revoked = revoked;
        this.sessionTimeout = sessionTimeout;
        this.thread = DaemonThreads.thread(this::run, "interlace-kafka-membership");
        this.thread.start();
    }

    /** Asks for {@code topic}'s partition to be assigned to some member (maybe this one). */
    void add(String topic) {
        if (topics.add(topic)) {
            subscriptionChanged = true;
            consumer.wakeup();
            added.raise();
        }
    }

    /**
     * How long the group coordinator has answered none of this member's heartbeats, joins or syncs (they go every
     * quarter of the session timeout); 0 before the node registers a stream, when it is no member yet.
     */
    long silentNanos() {
        return topics.isEmpty() ? 0 : coordinator.silentNanos();
    }

    /**
     * Whether the group coordinator answered this member within the session timeout, so that the partitions the
     * member holds may still be its own. A member cut off from the coordinator keeps its partitions until it hears
     * from the coordinator again, long after the group gave them to others.
     */
    boolean live() {
        return silentNanos() < sessionTimeout.toNanos();
    }

    private void run() {
        ConsumerRebalanceListener listener = new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                coordinator.answered();
                consumer.pause(partitions);
                partitions.forEach(assigned);
            }

            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                partitions.forEach(revoked);
            }

            @Override
            public void onPartitionsLost(Collection<TopicPartition> partitions) {
                partitions.forEach(revoked);
            }
        };
        try {
            while (running) {
                if (subscriptionChanged) {
                    subscriptionChanged = false;
                    consumer.subscribe(Set.copyOf(topics), listener);
                }
                if (topics.isEmpty()) {
                    // No stream registered yet: nothing to be a member for (see add).
                    added.awaitWhile(() -> running && topics.isEmpty());
                    coordinator.answered(); // no member before: the silence counts from the first subscription
                    continue;
                }
                try {
                    consumer.poll(Duration.ofMillis(200));
                } catch (WakeupException wakeup) {
                    // a new topic to subscribe to, or closing
                }
                coordinator.observe();
            }
        } catch (RuntimeException e) {
            if (running) {
                LOG.log(Level.SEVERE, "this node left the sequencer group after a failure", e);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            try {
                consumer.close();
            } catch (RuntimeException e) {
                LOG.log(Level.FINE, "leaving the sequencer group failed", e);
            }
        }
    }

    @Override
    public void close() {
        running = false;
        consumer.wakeup();
        added.raise();
        DaemonThreads.join(thread, Duration.ofSeconds(30));
    }
}
