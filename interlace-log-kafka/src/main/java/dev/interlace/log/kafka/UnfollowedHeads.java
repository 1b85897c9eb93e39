package dev.interlace.log.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * The heads of the streams this node's tailer does not follow ({@link StreamView#followed}: on a node without a
 * warehouse, every stream it does not sequence), learned when someone asks: the events topic's stable end (one
 * question to the brokers, for all the streams asked at once), and, when it moved since the last answer, its newest
 * committed records, read back from the end until one is found; the newest event's offset, Kafka offset and arrival
 * are applied to the view as the tailer would have (so that reads find it, and older events by
 * {@link PositionSearch}). A committed transaction holds whole requests, so the newest committed event is the last of
 * its request: the head is exact as of the question.
 *
 * <p>Long polls on such a stream wake as its head moves: a stream a read asked for within {@link #INTEREST_NANOS} is
 * asked again every {@link #ROUND_MILLIS} on the {@code interlace-kafka-heads} thread; nothing is asked of a stream
 * nobody reads.
 */
final class UnfollowedHeads implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(UnfollowedHeads.class.getName());
    /** How long after its last question a stream's head is still followed by rounds (for long polls). */
    static final long INTEREST_NANOS = TimeUnit.SECONDS.toNanos(30);
    /** How often the rounds ask (the tailer's own wait for new records is 100 ms: {@code fetch.max.wait.ms}). */
    static final long ROUND_MILLIS = 100;
    /** How long a question for the heads may take before the heads known are answered (stale, as a tailer's). */
    static final long ANSWER_SECONDS = 2;
    /** How many records the first look back from a topic's end reads; doubled until a committed event is found. */
    private static final long FIRST_LOOK = 16;

    private final Topics topics;
    private final Readers readers;
    /** Told the stream whose head a question moved. */
    private final Consumer<String> appended;
    /** Per stream: the stable end last seen, when it was last asked. */
    private final Map<String, Known> known = new ConcurrentHashMap<>();
    /** How many records the look-backs read; for tests and benchmarks. */
    private final AtomicLong recordsRead = new AtomicLong();
    private final Thread thread;
    private volatile boolean running = true;

    private static final class Known {
        volatile long end = -1;
        /** When a read last asked (none yet: as long ago as the interest lasts). */
        volatile long askedAt = System.nanoTime() - INTEREST_NANOS;
        final StreamView view;

        Known(StreamView view) {
            this.view = view;
        }
    }

    UnfollowedHeads(Topics topics, Readers readers, Consumer<String> appended) {
        this.topics = topics;
        this.readers = readers;
        this.appended = appended;
        this.thread = new Thread(this::rounds, "interlace-kafka-heads");
        this.thread.setDaemon(true);
        this.thread.start();
    }

    /** How many records the look-backs read. */
    long recordsRead() {
        return recordsRead.get();
    }

    /**
     * Brings the heads of those of {@code views} the tailer does not follow up to date (one question for all); with
     * {@code reading}, a read asks (its stream's head is then asked every round for a while, so that long polls wake),
     * else a listing of the heads or a standby or candidacy round.
     */
    void refresh(Collection<StreamView> views, boolean reading) {
        List<StreamView> asked = new ArrayList<>();
        for (StreamView view : views) {
            if (!view.followed()) {
                Known entry = known.computeIfAbsent(view.name, name -> new Known(view));
                if (reading) {
                    entry.askedAt = System.nanoTime();
                }
                asked.add(view);
            }
        }
        update(asked);
    }

    private void update(List<StreamView> views) {
        if (views.isEmpty()) {
            return;
        }
        List<TopicPartition> partitions = new ArrayList<>(views.size());
        views.forEach(view -> partitions.add(topics.events(view.name)));
        Map<TopicPartition, Long> ends;
        try {
            ends = topics.stableEndsWithin(partitions, ANSWER_SECONDS);
        } catch (RuntimeException e) {
            // The cluster does not answer (cut off, brokers gone): the heads known stay, as a tailer's would.
            LOG.log(Level.FINE, "the heads of the streams this node does not follow are not known anew", e);
            return;
        }
        for (StreamView view : views) {
            Known entry = known.get(view.name);
            TopicPartition events = topics.events(view.name);
            long end = ends.getOrDefault(events, -1L);
            if (entry == null || end < 0 || end == entry.end || view.followed()) {
                continue;
            }
            ConsumerRecord<byte[], byte[]> newest;
            try {
                newest = newest(events, end);
            } catch (RuntimeException e) {
                LOG.log(Level.FINE, "the head of " + view.name + " is not known anew", e);
                continue;
            }
            if (newest != null) {
                long before = view.headOffset();
                long offset = Codec.longHeader(newest.headers(), Codec.OFFSET);
                view.applyEvent(offset, newest.offset(), Codec.longHeader(newest.headers(), Codec.AT),
                        Codec.longHeader(newest.headers(), Codec.LAST));
                if (view.headOffset() > before) {
                    appended.accept(view.name);
                }
            }
            entry.end = end;
        }
    }

    /** The newest committed record of {@code events} before Kafka offset {@code end}, or null when none is. */
    private ConsumerRecord<byte[], byte[]> newest(TopicPartition events, long end) {
        long start = -1; // the topic's first stored offset, asked once a look back would reach it
        for (long look = FIRST_LOOK; ; look *= 2) {
            long from = end - look;
            if (start < 0 && from <= 0) {
                start = topics.start(events);
            }
            from = Math.max(from, Math.max(start, 0));
            ConsumerRecord<byte[], byte[]>[] last = lastOf(events, from, end);
            if (last[0] != null || from <= Math.max(start, 0)) {
                return last[0];
            }
        }
    }

    @SuppressWarnings("unchecked")
    private ConsumerRecord<byte[], byte[]>[] lastOf(TopicPartition events, long from, long end) {
        ConsumerRecord<byte[], byte[]>[] last = new ConsumerRecord[1];
        if (from >= end) {
            return last;
        }
        try {
            readers.scan(events, from, end, Duration.ofSeconds(ANSWER_SECONDS), record -> {
                recordsRead.incrementAndGet();
                last[0] = record;
                return true;
            });
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e); // the visitor throws none
        }
        return last;
    }

    private void rounds() {
        while (running) {
            try {
                Thread.sleep(ROUND_MILLIS);
                List<StreamView> interested = new ArrayList<>();
                long now = System.nanoTime();
                for (Known entry : known.values()) {
                    if (now - entry.askedAt < INTEREST_NANOS && !entry.view.followed()) {
                        interested.add(entry.view);
                    }
                }
                update(interested);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                LOG.log(Level.FINE, "a round of the unfollowed streams' heads failed; the next asks again", e);
            }
        }
    }

    @Override
    public void close() {
        running = false;
        thread.interrupt();
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
