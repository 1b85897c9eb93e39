package dev.interlace.log.kafka;

import dev.interlace.runtime.log.LogUnavailableException;
import dev.interlace.runtime.log.PublishRecord;
import dev.interlace.runtime.log.PublishRecords;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The publish records of the Kafka log: read on any node from the {@link PublishStore} the tailer keeps from the
 * {@code _publishes} topic, and old ones removed with tombstones. Holds the log's plain producer, which writes what
 * needs no fencing: publish records of retries (for the sequencers) and those tombstones.
 */
final class KafkaPublishRecords implements PublishRecords {

    /** How many old publish records one round of a trim removes: what a trim holds in memory at once. */
    private static final int TRIM_KEYS_PER_ROUND = 10_000;

    private final KafkaLogSettings kafka;
    private final Topics topics;
    private final PublishStore publishes;
    /** Made when first used. */
    private volatile KafkaProducer<byte[], byte[]> plain;

    KafkaPublishRecords(KafkaLogSettings kafka, Topics topics, PublishStore publishes) {
        this.kafka = kafka;
        this.topics = topics;
        this.publishes = publishes;
    }

    @Override
    public PublishRecord.Page publishes(PublishRecord.Filter filter) {
        return publishes.page(filter);
    }

    @Override
    public List<String> traceIds(String stream, long afterOffset, long throughOffset) {
        return publishes.traceIds(stream, afterOffset, throughOffset);
    }

    @Override
    public long trimPublishes(long beforeMicros) {
        long removed = 0;
        while (true) {
            List<String> keys = publishes.keysReceivedBefore(beforeMicros, TRIM_KEYS_PER_ROUND);
            if (keys.isEmpty()) {
                return removed;
            }
            KafkaProducer<byte[], byte[]> producer = plainProducer();
            try {
                List<Future<?>> sends = new ArrayList<>();
                for (String key : keys) {
                    sends.add(producer.send(new ProducerRecord<>(topics.publishes().topic(), 0, Codec.text(key),
                            null)));
                }
                for (Future<?> send : sends) {
                    send.get(SequencerPlacement.OPERATION_SECONDS, TimeUnit.SECONDS);
                }
            } catch (ExecutionException | TimeoutException | KafkaException e) {
                throw new LogUnavailableException("cannot remove old publish records: " + e.getMessage(), e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new LogUnavailableException("interrupted while removing old publish records", e);
            }
            keys.forEach(publishes::remove);
            removed += keys.size();
        }
    }

    /** The log's producer of what needs no fencing. */
    KafkaProducer<byte[], byte[]> plainProducer() {
        KafkaProducer<byte[], byte[]> producer = plain;
        if (producer != null) {
            return producer;
        }
        synchronized (this) {
            if (plain == null) {
                Properties properties = Topics.durableProducer(kafka.bootstrap(), kafka.topicPrefix() + "plain");
                properties.put(ProducerConfig.LINGER_MS_CONFIG, "0");
                // A sequencer's thread sends through it: never block it for long on a cluster that does not answer.
                properties.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "5000");
                properties.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
                properties.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "10000");
                plain = new KafkaProducer<>(properties, new ByteArraySerializer(), new ByteArraySerializer());
            }
            return plain;
        }
    }

    /** Closes the plain producer, if one was made. */
    void close() {
        if (plain != null) {
            plain.close(Duration.ofSeconds(5));
        }
    }
}
