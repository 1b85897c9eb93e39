package dev.interlace.log.kafka;

import static dev.interlace.log.kafka.KeyedOrders.appendUntilServed;
import static dev.interlace.log.kafka.KeyedOrders.entry;
import static dev.interlace.log.kafka.KeyedOrders.request;
import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.log.kafka.testing.KafkaCluster;
import dev.interlace.runtime.dedup.KeyHash;
import dev.interlace.runtime.log.AppendResult;
import java.nio.charset.StandardCharsets;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/**
 * The Kafka log's deduplication is exact even when its index is wrong about every key: the key blocks of this stream
 * name, for each stored event, the hash of a key the event does not carry, so that each of those keys has a candidate
 * in a sealed segment. Publishing them must accept every one as new (the events refute the candidates), and a retry
 * must then find each at its new offset.
 */
class KafkaDedupExactnessTest extends SharedBrokerTest {

    private static final int STORED = 100;

    @Test
    void aCandidateForEveryKeyStillAcceptsEachNewKeyAndFindsItAfterwards() throws Exception {
        try (KafkaStreamLog creator = open(false)) {
            creator.register(orders); // creates the stream's topics
        }
        writeEventsWithLyingKeyBlocks();

        try (KafkaStreamLog log = open(true)) {
            log.register(orders);
            AppendResult first = appendUntilServed(log, "lure-1");
            assertThat(entry(first).status()).as("a candidate refuted by its event").isEqualTo(
                    AppendResult.Status.ACCEPTED);
            assertThat(entry(first).offset()).isEqualTo(STORED + 1);
            assertThat(log.dedupStats("orders").orElseThrow().segments()).as("the lies are in sealed segments")
                    .isPositive();
            for (int i = 2; i <= STORED; i++) {
                AppendResult.EntryResult entry = entry(log.append(request("lure-" + i)).get(30, TimeUnit.SECONDS));
                assertThat(entry.status()).as("lure-%d", i).isEqualTo(AppendResult.Status.ACCEPTED);
                assertThat(entry.offset()).isEqualTo(STORED + i);
            }
            for (int i = 1; i <= STORED; i++) {
                AppendResult.EntryResult entry = entry(log.append(request("lure-" + i)).get(30, TimeUnit.SECONDS));
                assertThat(entry.status()).as("lure-%d again", i).isEqualTo(AppendResult.Status.DUPLICATE);
                assertThat(entry.offset()).isEqualTo(STORED + i);
            }
        }
    }

    /**
     * Events 1..100 carrying keys {@code stored-i}, with key blocks that give each offset the hash of {@code lure-i},
     * written in the stream's transactions (as its sequencer writes them), ten events a transaction.
     */
    private void writeEventsWithLyingKeyBlocks() {
        Topics names = new Topics(null, prefix, 1, 1);
        Properties properties = new Properties();
        properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KafkaCluster.shared().bootstrap());
        properties.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, names.transactionalId("orders"));
        properties.put(ProducerConfig.ACKS_CONFIG, "all");
        long at = System.currentTimeMillis() * 1_000;
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(properties, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            producer.initTransactions();
            KeyBlockTopic blocks = new KeyBlockTopic(new StreamView("orders", 0), names, null);
            for (long first = 1; first <= STORED; first += 10) {
                producer.beginTransaction();
                long[] pairs = new long[20];
                for (int i = 0; i < 10; i++) {
                    long offset = first + i;
                    String key = "stored-" + offset;
                    producer.send(new ProducerRecord<>(names.events("orders").topic(), 0, null, Codec.text(key),
                            ("{\"id\":\"" + key + "\"}").getBytes(StandardCharsets.UTF_8),
                            Codec.eventHeaders(offset, offset, "bulk-" + offset, at, "v1")));
                    pairs[2 * i] = offset;
                    pairs[2 * i + 1] = KeyHash.of("lure-" + offset);
                }
                producer.send(blocks.record(pairs, 10, at, first - 1));
                producer.commitTransaction();
            }
        }
    }

    private KafkaStreamLog open(boolean sequences) {
        return KeyedOrders.log(prefix, directory.resolve(sequences ? "node" : "creator"), "node", sequences, 10);
    }
}
