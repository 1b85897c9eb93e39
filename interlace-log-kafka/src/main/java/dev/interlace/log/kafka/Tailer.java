package dev.interlace.log.kafka;

import dev.interlace.runtime.log.LogUnavailableException;
import dev.interlace.runtime.ops.DaemonThreads;
import dev.interlace.runtime.ops.FatalErrors;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Follows the log's topics, read-committed, and hands every record to the log's views: how a node rebuilds its state
 * at start-up and when it takes a stream over, and how it learns what other nodes' sequencers committed. The log's
 * own topics are read from their beginning; a stream's events and quarantine from their newest {@link #RECENT}
 * records only (the positions of older ones are found when a read needs them: {@link PositionSearch}), so that a node
 * registering or taking over a stream of hundreds of millions of events does not read them all. One thread,
 * {@code interlace-kafka-tailer}, owns the consumer.
 */
final class Tailer implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(Tailer.class.getName());
    /**
     * How many of the newest records of a partition followed with {@link #followNewest} are read: the dense window of
     * its positions ({@link EventPositions#DENSE}).
     */
    static final long RECENT = EventPositions.DENSE;
    /** What one fetch brings of a partition at most: four times a reader's ({@link Readers#FETCH_BYTES}). */
    static final int CATCH_UP_FETCH_BYTES = 4 * Readers.FETCH_BYTES;
    /** The records one poll hands out at most (Kafka's default is 500). */
    static final int POLL_RECORDS = 10_000;

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Consumer<ConsumerRecord<byte[], byte[]>> sink;
    /** Runs after the records of each poll went to {@link #sink}. */
    private final Runnable afterPoll;
    private final Set<TopicPartition> wanted = ConcurrentHashMap.newKeySet();
    /** The partitions of {@link #wanted} read from their newest {@link #RECENT} records rather than their beginning. */
    private final Set<TopicPartition> newestOnly = ConcurrentHashMap.newKeySet();
    /** Partitions just assigned that are still to be moved to their newest records (the tailer's thread only). */
    private final Set<TopicPartition> toSeekNewest = new HashSet<>();
    /** How many records the tailer handed to its sink. */
    private final AtomicLong recordsRead = new AtomicLong();
    private final Map<TopicPartition, Long> positions = new ConcurrentHashMap<>();
    private final Thread thread;
    private volatile boolean assignmentChanged;
    private volatile boolean running = true;
    /** Wakes the tailer's thread waiting for something to follow: a partition to follow, or the close. */
    private final Signal followed = new Signal();
    private volatile RuntimeException failure;
    /** The brokers' answers to this node's fetches (every 100 ms while idle: {@code fetch.max.wait.ms}). */
    private final Answers fetches;

    Tailer(String bootstrap, String clientId, Consumer<ConsumerRecord<byte[], byte[]>> sink) {
        this(bootstrap, clientId, sink, () -> { });
    }

    Tailer(String bootstrap, String clientId, Consumer<ConsumerRecord<byte[], byte[]>> sink, Runnable afterPoll) {
        this.afterPoll = afterPoll;
        Properties properties = Topics.committedReader(bootstrap, clientId, 100);
        // Catching up with a backlog at start-up reads every event once, one fetch at a time (the consumer asks a
        // partition for more only once it has handed out what it holds): large fetches, taken in large polls, so that
        // a backlog costs few round trips to the brokers and few rounds of the per-poll work below.
        properties.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, Integer.toString(CATCH_UP_FETCH_BYTES));
        properties.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, Integer.toString(POLL_RECORDS));
        this.consumer = new KafkaConsumer<>(properties, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        this.fetches = new Answers(consumer::metrics, "consumer-fetch-manager-metrics", "fetch-total");
        this.sink = sink;
        this.thread = DaemonThreads.thread(this::run, "interlace-kafka-tailer");
        this.thread.start();
    }

    /** Why the tailer stopped following its topics for good, or null while it follows them. */
    RuntimeException failure() {
        return failure;
    }

    /** Follows {@code partitions} too, from their beginning. */
    void follow(Set<TopicPartition> partitions) {
        follow(partitions, Set.of());
    }

    /**
     * Follows {@code partitions} too, from their beginning, except those of {@code newest}, from their newest
     * {@link #RECENT} records (their beginning when they hold fewer).
     */
    void follow(Set<TopicPartition> partitions, Set<TopicPartition> newest) {
        newestOnly.addAll(newest);
        if (wanted.addAll(partitions)) {
            assignmentChanged = true;
            consumer.wakeup();
            followed.raise();
        }
    }

    /** How many records the tailer has read; for tests and benchmarks. */
    long recordsRead() {
        return recordsRead.get();
    }

    /** How long the brokers have answered none of this node's fetches of the log's topics. */
    long silentNanos() {
        return fetches.silentNanos();
    }

    /**
     * Waits until every partition of {@code ends} has been read up to its end offset, failing once the reads have made
     * no progress for {@code timeout}: a node catching up with hundreds of millions of events may take longer than
     * that as a whole.
     */
    void awaitCaughtUp(Map<TopicPartition, Long> ends, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        long progress = progress(ends);
        synchronized (positions) {
            while (!caughtUp(ends)) {
                long now = progress(ends);
                if (now > progress) {
                    progress = now;
                    deadline = System.nanoTime() + timeout.toNanos();
                }
                if (failure != null) {
                    throw new LogUnavailableException("the log cannot read its topics: " + failure.getMessage(),
                            failure);
                }
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0) {
                    throw new LogUnavailableException("the log did not read its topics up to " + ends + ": no"
                            + " progress for " + timeout.toSeconds() + " s (read up to " + positions + ")");
                }
                positions.wait(Math.max(1, remaining / 1_000_000));
            }
        }
    }

    /** How far the partitions of {@code ends} have been read, summed. */
    private long progress(Map<TopicPartition, Long> ends) {
        long sum = 0;
        for (TopicPartition partition : ends.keySet()) {
            sum += positions.getOrDefault(partition, 0L);
        }
        return sum;
    }

    private boolean caughtUp(Map<TopicPartition, Long> ends) {
        for (Map.Entry<TopicPartition, Long> end : ends.entrySet()) {
            Long position = positions.get(end.getKey());
            if (position == null || position < end.getValue()) {
                return false;
            }
        }
        return true;
    }

    private void run() {
        try {
            while (running) {
                if (assignmentChanged) {
                    assignmentChanged = false;
                    Set<TopicPartition> added = new HashSet<>(wanted);
                    added.removeAll(consumer.assignment());
                    consumer.assign(Set.copyOf(wanted));
                    consumer.seekToBeginning(added);
                    added.retainAll(newestOnly);
                    toSeekNewest.addAll(added);
                }
                if (consumer.assignment().isEmpty()) {
                    followed.awaitWhile(() -> running && !assignmentChanged); // nothing to follow yet
                    continue;
                }
                try {
                    seekToNewest();
                    for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                        sink.accept(record);
                        recordsRead.incrementAndGet();
                    }
                    afterPoll.run();
                    fetches.observe();
                    for (TopicPartition partition : consumer.assignment()) {
                        positions.put(partition, consumer.position(partition, Duration.ofSeconds(10)));
                    }
                } catch (WakeupException wakeup) {
                    continue;
                } catch (org.apache.kafka.common.errors.TimeoutException noLeaderYet) {
                    // A partition just followed has no leader to tell where it starts (a broker died and the
                    // controller has not moved its partitions yet): ask again; whoever waits for the position has
                    // a deadline of its own.
                    LOG.log(Level.FINE, "the position of a followed partition is not known yet", noLeaderYet);
                    continue;
                }
                synchronized (positions) {
                    positions.notifyAll();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException | Error e) {
            FatalErrors.exitIfFatal(e);
            if (running) {
                failure = e instanceof RuntimeException runtime ? runtime
                        : new IllegalStateException("the tailer died: " + e, e);
                LOG.log(Level.SEVERE, "the Kafka log stopped following its topics", e);
                synchronized (positions) {
                    positions.notifyAll();
                }
            }
        } finally {
            consumer.close();
        }
    }

    /**
     * Moves the partitions just assigned that are read from their newest records to the first of their {@link #RECENT}
     * newest (asked again after a wake-up or a time-out: they stay to do until then).
     */
    private void seekToNewest() {
        if (toSeekNewest.isEmpty()) {
            return;
        }
        Set<TopicPartition> newest = Set.copyOf(toSeekNewest);
        Map<TopicPartition, Long> begins = consumer.beginningOffsets(newest, Duration.ofSeconds(30));
        Map<TopicPartition, Long> ends = consumer.endOffsets(newest, Duration.ofSeconds(30));
        for (TopicPartition partition : newest) {
            long from = Math.max(begins.get(partition), ends.get(partition) - RECENT);
            if (from > begins.get(partition)) {
                consumer.seek(partition, from);
            }
        }
        toSeekNewest.clear();
    }

    @Override
    public void close() {
        running = false;
        consumer.wakeup();
        followed.raise();
        DaemonThreads.join(thread, Duration.ofSeconds(10));
    }
}
