package dev.interlace.log.kafka;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * What a stream's topic holds, read as an oracle reads it: every committed event record (read-committed, from the
 * beginning to the end), with the Interlace offset, request id and idempotency key the sequencer wrote.
 */
public final class StreamTopic {

    /** One event record: its Interlace offset, idempotency key, request id and payload as sent. */
    public record Event(long offset, String key, String requestId, String payload) {}

    private StreamTopic() {}

    /** Every event of stream {@code stream} in the topic {@code <prefix><stream>}, in the topic's order. */
    public static List<Event> read(String bootstrap, String prefix, String stream) {
        return read(bootstrap, new TopicPartition(prefix + stream, 0));
    }

    /** Every committed event of the stream topic partition {@code events}, in topic order. */
    public static List<Event> read(String bootstrap, TopicPartition events) {
        Properties properties = new Properties();
        properties.put("bootstrap.servers", bootstrap);
        properties.put("isolation.level", "read_committed");
        properties.put("enable.auto.commit", "false");
        List<Event> read = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(properties, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            consumer.assign(List.of(events));
            consumer.seekToBeginning(List.of(events));
            long end = consumer.endOffsets(List.of(events)).get(events);
            while (consumer.position(events) < end) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    read.add(new Event(Codec.longHeader(record.headers(), Codec.OFFSET), Codec.text(record.key()),
                            Codec.textHeader(record.headers(), Codec.REQUEST),
                            new String(record.value(), StandardCharsets.UTF_8)));
                }
            }
        }
        return read;
    }
}
