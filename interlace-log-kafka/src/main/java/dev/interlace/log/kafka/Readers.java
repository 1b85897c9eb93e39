package dev.interlace.log.kafka;

import dev.interlace.runtime.log.LogUnavailableException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
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
 * than {@value #FETCH_BYTES} bytes of records after it (a broker still sends a larger first batch whole).
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

    private final String bootstrap;
    private final String clientId;
    private final int fetchBytes;
    /** The readers of point reads: this one's own when its fetches are small already. */
    private final Readers points;
    /** The idle cursors, the most recently used last. */
    private final ArrayDeque<Cursor> idle = new ArrayDeque<>();
    private int created;
    private boolean closed;

    Readers(String bootstrap, String clientId) {
        this(bootstrap, clientId, FETCH_BYTES);
    }

    private Readers(String bootstrap, String clientId, int fetchBytes) {
        this.bootstrap = bootstrap;
        this.clientId = clientId;
        this.fetchBytes = fetchBytes;
        this.points = fetchBytes <= POINT_FETCH_BYTES ? this : new Readers(bootstrap, clientId + "-point",
                POINT_FETCH_BYTES);
    }

    /** The readers of short reads near one position, whose fetches are small (consumers are made when first used). */
    Readers points() {
        return points;
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
                    for (ConsumerRecord<byte[], byte[]> record : cursor.consumer.poll(Duration.ofMillis(100))) {
                        cursor.pending.add(record);
                    }
                    continue;
                }
                deadline = System.nanoTime() + patience.toNanos();
                ConsumerRecord<byte[], byte[]> record = cursor.pending.peekFirst();
                if (record.offset() >= end || !visitor.record(record)) {
                    intact = true;
                    return;
                }
                cursor.pending.pollFirst();
            }
            intact = true;
        } catch (KafkaException e) {
            throw new LogUnavailableException("cannot read " + partition.topic() + ": " + e.getMessage(), e);
        } finally {
            release(cursor, intact);
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
        synchronized (idle) {
            if (closed) {
                throw new LogUnavailableException("the log is closed");
            }
            for (java.util.Iterator<Cursor> it = idle.descendingIterator(); it.hasNext(); ) {
                Cursor candidate = it.next();
                if (partition.equals(candidate.partition) && candidate.resumeAt == from) {
                    it.remove();
                    return candidate;
                }
            }
            cursor = idle.pollFirst();
        }
        if (cursor == null) {
            cursor = new Cursor(consumer());
        }
        try {
            cursor.pending.clear();
            if (!partition.equals(cursor.partition)) {
                cursor.partition = null;
                cursor.consumer.assign(List.of(partition));
                cursor.partition = partition;
            }
            cursor.consumer.seek(partition, from);
            return cursor;
        } catch (KafkaException | IllegalStateException e) {
            release(cursor, false);
            throw new LogUnavailableException("cannot read " + partition.topic() + ": " + e.getMessage(), e);
        }
    }

    /** Returns {@code cursor} to the idle ones; one whose read failed half-way forgets where it was. */
    private void release(Cursor cursor, boolean intact) {
        if (intact) {
            try {
                cursor.resumeAt = cursor.position();
            } catch (KafkaException e) {
                intact = false;
            }
        }
        if (!intact) {
            cursor.resumeAt = -1;
            cursor.pending.clear();
            cursor.partition = null;
            cursor.consumer.unsubscribe();
        }
        synchronized (idle) {
            if (!closed) {
                idle.addLast(cursor);
                return;
            }
        }
        cursor.consumer.close();
    }

    private KafkaConsumer<byte[], byte[]> consumer() {
        Properties properties = new Properties();
        properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        synchronized (idle) {
            properties.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId + "-" + created++);
        }
        properties.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        properties.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        properties.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "50");
        properties.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, Integer.toString(fetchBytes));
        return new KafkaConsumer<>(properties, new ByteArrayDeserializer(), new ByteArrayDeserializer());
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
            cursor.consumer.close();
        }
        if (points != this) {
            points.close();
        }
    }

    /**
     * A consumer, the partition it is assigned (null when none), and the records it polled that no read has taken
     * yet: its position is the first of those, else the consumer's own.
     */
    private static final class Cursor {
        final KafkaConsumer<byte[], byte[]> consumer;
        final ArrayDeque<ConsumerRecord<byte[], byte[]>> pending = new ArrayDeque<>();
        TopicPartition partition;
        /** Where the next read goes on without a seek, as of the end of the last one; -1 when nowhere. */
        long resumeAt = -1;

        Cursor(KafkaConsumer<byte[], byte[]> consumer) {
            this.consumer = consumer;
        }

        long position() {
            return pending.isEmpty() ? consumer.position(partition) : pending.peekFirst().offset();
        }
    }
}
