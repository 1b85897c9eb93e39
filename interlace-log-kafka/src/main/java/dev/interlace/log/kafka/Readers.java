package dev.interlace.log.kafka;

import dev.interlace.runtime.log.LogUnavailableException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads ranges of a topic for the log's readers: a pool of read-committed consumers without a group, each used by
 * one caller at a time (a Kafka consumer is not thread-safe), assigned and positioned per read.
 */
final class Readers implements AutoCloseable {

    private static final Duration READ_TIMEOUT = Duration.ofSeconds(30);

    private final String bootstrap;
    private final String clientId;
    private final ConcurrentLinkedQueue<KafkaConsumer<byte[], byte[]>> idle = new ConcurrentLinkedQueue<>();
    private final List<KafkaConsumer<byte[], byte[]>> all = new java.util.concurrent.CopyOnWriteArrayList<>();
    private volatile boolean closed;

    Readers(String bootstrap, String clientId) {
        this.bootstrap = bootstrap;
        this.clientId = clientId;
    }

    /** The records of {@code partition} from Kafka offset {@code from} through {@code through}, in order. */
    List<ConsumerRecord<byte[], byte[]>> range(TopicPartition partition, long from, long through) {
        return range(partition, from, through, Long.MAX_VALUE);
    }

    /**
     * The records of {@code partition} from Kafka offset {@code from} through {@code through}, in order, ending early
     * with the record whose value brings their values' total to {@code maxBytes}.
     */
    List<ConsumerRecord<byte[], byte[]>> range(TopicPartition partition, long from, long through, long maxBytes) {
        KafkaConsumer<byte[], byte[]> consumer = borrow();
        try {
            consumer.assign(List.of(partition));
            consumer.seek(partition, from);
            List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
            long bytes = 0;
            long deadline = System.nanoTime() + READ_TIMEOUT.toNanos();
            while (bytes < maxBytes && consumer.position(partition) <= through) {
                if (System.nanoTime() > deadline) {
                    throw new LogUnavailableException("reading " + partition.topic() + " from offset " + from
                            + " did not reach offset " + through + " within " + READ_TIMEOUT.toSeconds() + " s");
                }
                // A poll holds what the consumer fetched at once (its fetch sizes bound that); the records after the
                // one that reaches maxBytes are dropped with it.
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(100))) {
                    if (bytes < maxBytes && record.offset() >= from && record.offset() <= through) {
                        records.add(record);
                        bytes += record.value() == null ? 0 : record.value().length;
                    }
                }
            }
            return records;
        } catch (KafkaException e) {
            throw new LogUnavailableException("cannot read " + partition.topic() + ": " + e.getMessage(), e);
        } finally {
            consumer.unsubscribe();
            if (closed) {
                consumer.close();
            } else {
                idle.add(consumer);
            }
        }
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

    /** As {@link #scan(TopicPartition, long, long, RecordVisitor)}, failing once no record came for {@code patience}.
     */
    void scan(TopicPartition partition, long from, long end, Duration patience, RecordVisitor visitor)
            throws java.io.IOException {
        KafkaConsumer<byte[], byte[]> consumer = borrow();
        try {
            consumer.assign(List.of(partition));
            consumer.seek(partition, from);
            long deadline = System.nanoTime() + patience.toNanos();
            while (consumer.position(partition) < end) {
                if (System.nanoTime() > deadline) {
                    throw new LogUnavailableException("reading " + partition.topic() + " from offset " + from
                            + " made no progress towards offset " + end + " for " + patience.toSeconds() + " s");
                }
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(100))) {
                    deadline = System.nanoTime() + patience.toNanos();
                    if (record.offset() >= end || !visitor.record(record)) {
                        return;
                    }
                }
            }
        } catch (KafkaException e) {
            throw new LogUnavailableException("cannot read " + partition.topic() + ": " + e.getMessage(), e);
        } finally {
            consumer.unsubscribe();
            if (closed) {
                consumer.close();
            } else {
                idle.add(consumer);
            }
        }
    }

    /**
     * The first committed record of {@code partition} at or after Kafka offset {@code from} and before {@code end},
     * or null when there is none.
     */
    ConsumerRecord<byte[], byte[]> first(TopicPartition partition, long from, long end) {
        List<ConsumerRecord<byte[], byte[]>> found = new ArrayList<>(1);
        try {
            scan(partition, from, end, record -> {
                found.add(record);
                return false;
            });
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e); // the visitor throws none
        }
        return found.isEmpty() ? null : found.get(0);
    }

    private KafkaConsumer<byte[], byte[]> borrow() {
        if (closed) {
            throw new LogUnavailableException("the log is closed");
        }
        KafkaConsumer<byte[], byte[]> consumer = idle.poll();
        if (consumer != null) {
            return consumer;
        }
        Properties properties = new Properties();
        properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        properties.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId + "-" + all.size());
        properties.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        properties.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        properties.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "50");
        KafkaConsumer<byte[], byte[]> created = new KafkaConsumer<>(properties, new ByteArrayDeserializer(),
                new ByteArrayDeserializer());
        all.add(created);
        return created;
    }

    @Override
    public void close() {
        closed = true;
        KafkaConsumer<byte[], byte[]> consumer;
        while ((consumer = idle.poll()) != null) {
            consumer.close();
        }
    }
}
