package dev.interlace.log.kafka;

import dev.interlace.runtime.log.LogUnavailableException;
import dev.interlace.runtime.ops.DaemonThreads;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads ranges of a topic for the log's readers: a pool of read-committed consumers without a group, each used by
 * one caller at a time (a Kafka consumer is not thread-safe). A consumer stays assigned where its last read ended,
 * with the records of its last poll that the read did not take, so that a reader going forward batch by batch (the
 * flusher draining a backlog, a client paging through events) continues on the same consumer without a seek, and
 * without throwing away what the consumer had fetched ahead; a read that starts anywhere else takes an idle consumer
 * and seeks it.
 *
 * <p>A read of one record or of a few near one position (a {@link #first} of a position search or of an index run
 * part, a candidate's confirmation) goes through the {@link #points} of the same log instead: consumers that fetch
 * {@value #POINT_FETCH_BYTES} bytes of a partition at a time, so that each such read brings the batch it needs rather
 * than {@value #FETCH_BYTES} bytes of records after it (a broker still sends a larger first batch whole), and decode
 * {@value #POINT_POLL_RECORDS} records a poll.
 *
 * <p>A reader that will go on where its read ended (the flusher draining a backlog) asks for a {@link ReadAhead}: once
 * its read returns, its consumer goes on polling on a thread of its own ({@code interlace-kafka-read-ahead-N}) while the
 * reader works on what it read (decodes it, writes it to the warehouse), so that Kafka's fetching and record parsing
 * overlap with that work instead of following it. A cursor reads ahead at most what the read asked for (records and
 * bytes of keys and values) plus one poll ({@code max.poll.records}); it stops at the end of what the partition holds,
 * and as soon as a read borrows the cursor.
 */
final class Readers implements AutoCloseable {

    private static final Duration READ_TIMEOUT = Duration.ofSeconds(30);
    /**
     * What one fetch brings of a partition at most ({@code max.partition.fetch.bytes}): the consumer asks for more only
     * once it has handed out what it holds, so a larger fetch costs a sequential read fewer round trips.
     */
    static final int FETCH_BYTES = 4 * 1024 * 1024;
    /** What a point read's fetch brings of a partition at most. */
    static final int POINT_FETCH_BYTES = 64 * 1024;

    /** The records a cursor reads ahead beyond a read's own at most: one poll (Kafka's default). */
    static final int POLL_RECORDS = 500;
    /**
     * The records a point read's poll hands out at most. The consumer decodes every record it hands out, headers
     * included: with {@link #POLL_RECORDS}, a retry's confirmation, which wants one record, decoded hundreds after it
     * (a third of its time, most of its garbage).
     */
    static final int POINT_POLL_RECORDS = 16;
    /** How long a poll of a read ahead waits for records. */
    private static final Duration AHEAD_POLL = Duration.ofMillis(50);
    /** How long a read ahead goes on while no record comes though the partition holds more. */
    private static final Duration AHEAD_PATIENCE = Duration.ofSeconds(1);

    private final String bootstrap;
    private final String clientId;
    private final int fetchBytes;
    /** What one poll of its consumers hands out at most ({@code max.poll.records}). */
    private final int pollRecords;
    /** The readers of point reads: this one's own when its fetches are small already. */
    private final Readers points;
    private final ExecutorService ahead;
    /** The idle cursors, the most recently used last. */
    private final ArrayDeque<Cursor> idle = new ArrayDeque<>();
    private int created;
    private boolean closed;

    Readers(String bootstrap, String clientId) {
        this(bootstrap, clientId, FETCH_BYTES, POLL_RECORDS);
    }

    private Readers(String bootstrap, String clientId, int fetchBytes, int pollRecords) {
        this.bootstrap = bootstrap;
        this.clientId = clientId;
        this.fetchBytes = fetchBytes;
        this.pollRecords = pollRecords;
        AtomicInteger threads = new AtomicInteger();
        this.ahead = Executors.newCachedThreadPool(DaemonThreads.numbered("interlace-kafka-read-ahead-"));
        this.points = fetchBytes <= POINT_FETCH_BYTES ? this : new Readers(bootstrap, clientId + "-point",
                POINT_FETCH_BYTES, POINT_POLL_RECORDS);
    }

    /** The readers of short reads near one position, whose fetches are small (consumers are made when first used). */
    Readers points() {
        return points;
    }

    /**
     * How much a cursor reads ahead once a read returns, at most: {@code records} records, {@code bytes} bytes of
     * their keys and values (a read's own budgets, so that a reader going batch by batch finds its next batch read).
     */
    record ReadAhead(int records, long bytes) {
        static final ReadAhead NONE = new ReadAhead(0, 0);
    }

    /** Receives the records of a {@link #scan}, one at a time. */
    interface RecordVisitor {
        /** @return whether to go on */
        boolean record(ConsumerRecord<byte[], byte[]> record) throws java.io.IOException;
    }

    /**
     * Hands {@code visitor} the records of {@code partition} from Kafka offset {@code from} up to (not including)
     * {@code end}, in order, without holding more than one poll of them: how the deduplication index reads a
     * stream's keys, which may be hundreds of millions.
     */
    void scan(TopicPartition partition, long from, long end, RecordVisitor visitor) throws java.io.IOException {
        scan(partition, from, end, READ_TIMEOUT, visitor);
    }

    /**
     * As {@link #scan(TopicPartition, long, long, RecordVisitor)}, failing once no record came for {@code patience}.
     * The record on which {@code visitor} stops stays the consumer's next: a read starting at it (the learned position
     * of the last event read, see {@link EventPositions#learn}) goes on from there.
     */
    void scan(TopicPartition partition, long from, long end, Duration patience, RecordVisitor visitor)
            throws java.io.IOException {
        scan(partition, from, end, patience, ReadAhead.NONE, visitor);
    }

    /**
     * As {@link #scan(TopicPartition, long, long, Duration, RecordVisitor)}; then the cursor reads ahead as
     * {@code readAhead} says, for the read that goes on where this one ended.
     */
    void scan(TopicPartition partition, long from, long end, Duration patience, ReadAhead readAhead,
            RecordVisitor visitor) throws java.io.IOException {
        Cursor cursor = borrow(partition, from);
        boolean intact = false;
        try {
            long deadline = System.nanoTime() + patience.toNanos();
            while (cursor.position() < end) {
                if (System.nanoTime() > deadline) {
                    throw new LogUnavailableException("reading " + partition.topic() + " from offset " + from
                            + " made no progress towards offset " + end + " for " + patience.toSeconds() + " s");
                }
                if (cursor.pending.isEmpty()) {
                    cursor.poll(Duration.ofMillis(100));
                    continue;
                }
                deadline = System.nanoTime() + patience.toNanos();
                ConsumerRecord<byte[], byte[]> record = cursor.pending.peekFirst();
                if (record.offset() >= end || !visitor.record(record)) {
                    intact = true;
                    return;
                }
                cursor.take();
            }
            intact = true;
        } catch (KafkaException e) {
            throw new LogUnavailableException("cannot read " + partition.topic() + ": " + e.getMessage(), e);
        } finally {
            release(cursor, intact, readAhead);
        }
    }

    /**
     * The first committed record of {@code partition} at or after Kafka offset {@code from} and before {@code end},
     * or null when there is none; read through the {@link #points}.
     */
    ConsumerRecord<byte[], byte[]> first(TopicPartition partition, long from, long end) {
        List<ConsumerRecord<byte[], byte[]>> found = new ArrayList<>(1);
        try {
            points.scan(partition, from, end, record -> {
                found.add(record);
                return false;
            });
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e); // the visitor throws none
        }
        return found.isEmpty() ? null : found.get(0);
    }

    /** An idle cursor positioned at {@code from} of {@code partition}, else the least recently used one, sought. */
    private Cursor borrow(TopicPartition partition, long from) {
        Cursor cursor = null;
        boolean resumes = false;
        synchronized (idle) {
            if (closed) {
                throw new LogUnavailableException("the log is closed");
            }
            for (java.util.Iterator<Cursor> it = idle.descendingIterator(); it.hasNext(); ) {
                Cursor candidate = it.next();
                if (partition.equals(candidate.partition) && candidate.resumeAt == from) {
                    it.remove();
                    cursor = candidate;
                    resumes = true;
                    break;
                }
            }
            if (cursor == null) {
                cursor = idle.pollFirst();
            }
        }
        if (cursor == null) {
            cursor = new Cursor(consumer());
        }
        // What it read ahead is kept when the read goes on where the last one ended (and the read ahead did not fail).
        if (!cursor.settle() && resumes) {
            return cursor;
        }
        try {
            cursor.clear();
            if (!partition.equals(cursor.partition)) {
                cursor.partition = null;
                cursor.consumer.assign(List.of(partition));
                cursor.partition = partition;
            }
            cursor.consumer.seek(partition, from);
            return cursor;
        } catch (KafkaException | IllegalStateException e) {
            release(cursor, false, ReadAhead.NONE);
            throw new LogUnavailableException("cannot read " + partition.topic() + ": " + e.getMessage(), e);
        }
    }

    /**
     * Returns {@code cursor} to the idle ones, reading ahead as {@code readAhead} says; one whose read failed half-way
     * forgets where it was.
     */
    private void release(Cursor cursor, boolean intact, ReadAhead readAhead) {
        if (intact) {
            try {
                cursor.resumeAt = cursor.position();
            } catch (KafkaException e) {
                intact = false;
            }
        }
        if (!intact) {
            cursor.forget();
        }
        synchronized (idle) {
            if (!closed) {
                if (intact && readAhead.records() > 0) {
                    cursor.startReadingAhead(ahead, readAhead);
                }
                idle.addLast(cursor);
                return;
            }
        }
        cursor.consumer.close();
    }

    private KafkaConsumer<byte[], byte[]> consumer() {
        String id;
        synchronized (idle) {
            id = clientId + "-" + created++;
        }
        Properties properties = Topics.committedReader(bootstrap, id, 50);
        properties.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, Integer.toString(fetchBytes));
        properties.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, Integer.toString(pollRecords));
        return new KafkaConsumer<>(properties, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /**
     * The most records, and the most bytes of keys and values, an idle cursor holds once its read ahead ended by itself
     * (waiting for that); for tests.
     */
    long[] heldAhead() throws ExecutionException, InterruptedException {
        List<Cursor> cursors;
        synchronized (idle) {
            cursors = new ArrayList<>(idle);
        }
        long[] held = {0, 0};
        for (Cursor cursor : cursors) {
            Future<?> running = cursor.readingAhead;
            if (running != null) {
                running.get();
            }
            held[0] = Math.max(held[0], cursor.pending.size());
            held[1] = Math.max(held[1], cursor.pendingBytes);
        }
        return held;
    }

    @Override
    public void close() {
        List<Cursor> closing;
        synchronized (idle) {
            closed = true;
            closing = new ArrayList<>(idle);
            idle.clear();
        }
        for (Cursor cursor : closing) {
            cursor.settle();
            cursor.consumer.close();
        }
        ahead.shutdownNow();
        if (points != this) {
            points.close();
        }
    }

    /**
     * A consumer, the partition it is assigned (null when none), and the records it polled that no read has taken
     * yet: its position is the first of those, else the consumer's own. One thread uses it at a time: a read that
     * borrowed it, else its read ahead ({@link #settle} hands it back from the one to the other).
     */
    private static final class Cursor {
        final KafkaConsumer<byte[], byte[]> consumer;
        final ArrayDeque<ConsumerRecord<byte[], byte[]>> pending = new ArrayDeque<>();
        /** The bytes of the keys and values of {@link #pending}. */
        long pendingBytes;
        TopicPartition partition;
        /** Where the next read goes on without a seek, as of the end of the last one; -1 when nowhere. */
        long resumeAt = -1;
        /** The read ahead under way or done since the last read, or null. */
        private Future<?> readingAhead;
        /** Tells the read ahead to stop after its current poll. */
        private volatile boolean stopAhead;

        Cursor(KafkaConsumer<byte[], byte[]> consumer) {
            this.consumer = consumer;
        }

        long position() {
            return pending.isEmpty() ? consumer.position(partition) : pending.peekFirst().offset();
        }

        /** Polls once, keeping what came. */
        void poll(Duration timeout) {
            for (ConsumerRecord<byte[], byte[]> record : consumer.poll(timeout)) {
                pending.addLast(record);
                pendingBytes += bytes(record);
            }
        }

        /** Drops the first pending record, which a read took. */
        void take() {
            pendingBytes -= bytes(pending.pollFirst());
        }

        void clear() {
            pending.clear();
            pendingBytes = 0;
        }

        /** Forgets where it was: the next read seeks. */
        void forget() {
            resumeAt = -1;
            clear();
            partition = null;
            consumer.unsubscribe();
        }

        /**
         * Polls on a thread of {@code threads} until {@code readAhead}'s budgets are reached (with at most one poll
         * beyond them), the partition's end is (a poll brings nothing and the consumer's lag is 0), no record came for
         * {@link #AHEAD_PATIENCE}, or {@link #settle} stops it.
         */
        void startReadingAhead(ExecutorService threads, ReadAhead readAhead) {
            stopAhead = false;
            // A failure (the cluster does not answer) is the next read's: it seeks, and fails there if it must.
            readingAhead = threads.submit(() -> {
                long idleSince = System.nanoTime();
                while (!stopAhead && pending.size() < readAhead.records() && pendingBytes < readAhead.bytes()) {
                    int before = pending.size();
                    poll(AHEAD_POLL);
                    if (pending.size() > before) {
                        idleSince = System.nanoTime();
                        continue;
                    }
                    // Nothing came: the end of what is committed (the consumer's lag, as of its last fetch, is 0), else
                    // a fetch slower than the poll's wait (a busy broker): go on, for a while.
                    java.util.OptionalLong lag = consumer.currentLag(partition);
                    if (lag.isPresent() && lag.getAsLong() <= 0
                            || System.nanoTime() - idleSince > AHEAD_PATIENCE.toNanos()) {
                        return;
                    }
                }
            });
        }

        /**
         * Stops the read ahead and waits for its current poll; the cursor is the caller's again.
         *
         * @return whether the read ahead failed: then the caller seeks before reading
         */
        boolean settle() {
            Future<?> running = readingAhead;
            if (running == null) {
                return false;
            }
            readingAhead = null;
            stopAhead = true;
            boolean interrupted = false;
            try {
                while (true) {
                    try {
                        running.get();
                        return false;
                    } catch (InterruptedException e) {
                        interrupted = true; // the consumer is not ours until its poll returned
                    }
                }
            } catch (ExecutionException | java.util.concurrent.CancellationException e) {
                return true;
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        private static long bytes(ConsumerRecord<byte[], byte[]> record) {
            return Math.max(0, record.serializedKeySize()) + Math.max(0, record.serializedValueSize());
        }
    }
}
