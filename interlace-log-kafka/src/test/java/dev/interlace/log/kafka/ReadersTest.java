package dev.interlace.log.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.log.kafka.testing.KafkaCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/**
 * The log's readers read ahead for a read that goes on where the last one ended, within the budgets it was given plus
 * one poll, and the next read takes what was read ahead: every record once, in order.
 */
class ReadersTest {

    private static final int RECORDS = 3_000;
    private static final int VALUE_BYTES = 100;

    @Test
    void aReadAheadStaysWithinItsBudgetsAndTheNextReadTakesItsRecords() throws Exception {
        String bootstrap = KafkaCluster.shared().bootstrap();
        TopicPartition topic = new TopicPartition("readers-" + UUID.randomUUID(), 0);
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap));
                KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of("bootstrap.servers", bootstrap),
                        new ByteArraySerializer(), new ByteArraySerializer())) {
            admin.createTopics(List.of(new NewTopic(topic.topic(), 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            for (int i = 0; i < RECORDS; i++) {
                producer.send(new ProducerRecord<>(topic.topic(), 0, null, new byte[VALUE_BYTES]));
            }
            producer.flush();
        }
        try (Readers readers = new Readers(bootstrap, "readers-test")) {
            List<Long> offsets = new ArrayList<>();
            // The first 100, reading ahead up to 1 000 records.
            scan(readers, topic, 0, new Readers.ReadAhead(1_000, Long.MAX_VALUE), offsets);
            long[] held = readers.heldAhead();
            assertThat(held[0]).as("records read ahead").isBetween(1_000L, 1_000L + Readers.POLL_RECORDS);

            // The next 100, reading ahead up to 100 000 bytes of values.
            scan(readers, topic, 100, new Readers.ReadAhead(100_000, 100_000), offsets);
            held = readers.heldAhead();
            assertThat(held[1]).as("bytes read ahead").isBetween(100_000L,
                    100_000L + (long) Readers.POLL_RECORDS * VALUE_BYTES);

            // The rest, 100 a read, reading ahead 300 records: each read goes on from what the last one left, and the
            // cursor never holds more than the largest budget it was given (1 000 records) plus one poll.
            for (long from = 200; from < RECORDS; from += 100) {
                scan(readers, topic, from, new Readers.ReadAhead(300, Long.MAX_VALUE), offsets);
                assertThat(readers.heldAhead()[0]).isLessThanOrEqualTo(1_000L + Readers.POLL_RECORDS);
            }
            assertThat(offsets).containsExactlyElementsOf(LongStream.range(0, RECORDS).boxed().toList());
        }
    }

    /** Reads the 100 records of {@code topic} from Kafka offset {@code from} into {@code offsets}. */
    private static void scan(Readers readers, TopicPartition topic, long from, Readers.ReadAhead readAhead,
            List<Long> offsets) throws Exception {
        readers.scan(topic, from, from + 100, Duration.ofSeconds(30), readAhead,
                record -> offsets.add(record.offset()));
    }
}
