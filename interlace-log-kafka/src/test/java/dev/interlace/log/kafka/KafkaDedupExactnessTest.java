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
 * in a sealed segment (as a key whose hash another stored key shares has). Publishing them must accept every one as
 * new (the events refute the candidates), and a retry must then find each at its new offset; so too on a node whose
 * copy of the keys does not reach the candidates, where a retry's candidates are refuted by events read from the
 * topic on the publishing thread ({@link SettledRetries}).
 */
class KafkaDedupExactnessTest extends SharedBrokerTest {

    private static final int STORED = 100;
    /** Half again as many events as a node's tailer reads of a topic ({@link Tailer#RECENT}). */
    private static final int OLD_HISTORY = 12_288;

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

    @Test
    void aCandidateOlderThanTheNodesCopyOfTheKeysIsRefutedByItsEventInTheTopic() throws Exception {
        try (KafkaStreamLog creator = open(false)) {
            creator.register(orders);
        }
        writeEventsWithLyingKeyBlocks(OLD_HISTORY, 512);

        try (KafkaStreamLog log = open(true)) {
            log.register(orders);
            assertThat(log.tailerReads()[0]).as("records the tailer read").isLessThan(OLD_HISTORY - 1000);
            long next = OLD_HISTORY + 1;
            for (int i = 1; i <= 1000; i += 37) {
                AppendResult.EntryResult entry = entry(appendUntilServed(log, "lure-" + i));
                assertThat(entry.status()).as("lure-%d, whose candidate is old event %d", i, i)
                        .isEqualTo(AppendResult.Status.ACCEPTED);
                assertThat(entry.offset()).isEqualTo(next++);
            }
            assertThat(log.tailerReads()[1]).as("old candidates read from the topic, found by search").isPositive();
            next = OLD_HISTORY + 1;
            for (int i = 1; i <= 1000; i += 37) {
                AppendResult.EntryResult entry = entry(log.append(request("lure-" + i)).get(30, TimeUnit.SECONDS));
                assertThat(entry.status()).as("lure-%d again", i).isEqualTo(AppendResult.Status.DUPLICATE);
                assertThat(entry.offset()).isEqualTo(next++);
            }
        }
    }

    private void writeEventsWithLyingKeyBlocks() {
        writeEventsWithLyingKeyBlocks(STORED, 10);
    }

    /**
     * Events 1..{@code events} carrying keys {@code stored-i}, with key blocks that give each offset the hash of
     * {@code lure-i}, written in the stream's transactions (as its sequencer writes them), {@code perTransaction}
     * events a transaction.
     */
    private void writeEventsWithLyingKeyBlocks(int events, int perTransaction) {
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
            for (long first = 1; first <= events; first += perTransaction) {
                producer.beginTransaction();
                long[] pairs = new long[2 * perTransaction];
                for (int i = 0; i < perTransaction; i++) {
                    long offset = first + i;
                    String key = "stored-" + offset;
                    producer.send(new ProducerRecord<>(names.events("orders").topic(), 0, null, Codec.text(key),
                            ("{\"id\":\"" + key + "\"}").getBytes(StandardCharsets.UTF_8),
                            Codec.eventHeaders(offset, offset, "bulk-" + offset, at, "v1")));
                    pairs[2 * i] = offset;
                    pairs[2 * i + 1] = KeyHash.of("lure-" + offset);
                }
                producer.send(blocks.record(pairs, perTransaction, at, first - 1));
                producer.commitTransaction();
            }
        }
    }

    private KafkaStreamLog open(boolean sequences) {
        return KeyedOrders.log(prefix, directory.resolve(sequences ? "node" : "creator"), "node", sequences, 10);
    }
}
