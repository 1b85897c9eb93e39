package dev.interlace.log.kafka.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/** The harness starts a real broker that takes transactional writes and serves them to read-committed readers. */
class KafkaClusterTest {

    @Test
    void theSharedBrokerTakesATransactionalWriteAndServesItReadCommitted() throws Exception {
        KafkaCluster cluster = KafkaCluster.shared();
        assertThat(cluster.nodes()).singleElement().satisfies(node -> assertThat(node.alive()).isTrue());
        try (Admin admin = cluster.admin()) {
            admin.createTopics(List.of(new NewTopic("harness-check", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        Map<String, Object> producerSettings = Map.of("bootstrap.servers", cluster.bootstrap(),
                "transactional.id", "harness-check", "acks", "all");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerSettings, new StringSerializer(),
                new StringSerializer())) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>("harness-check", "k", "v"));
            producer.commitTransaction();
        }
        Map<String, Object> consumerSettings = Map.of("bootstrap.servers", cluster.bootstrap(),
                "isolation.level", "read_committed", "enable.auto.commit", "false");
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(consumerSettings, new StringDeserializer(),
                new StringDeserializer())) {
            TopicPartition partition = new TopicPartition("harness-check", 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            List<ConsumerRecord<String, String>> records = new java.util.ArrayList<>();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (records.isEmpty() && System.nanoTime() < deadline) {
                consumer.poll(java.time.Duration.ofMillis(200)).forEach(records::add);
            }
            assertThat(records).extracting(ConsumerRecord::value).containsExactly("v");
        }
    }
}
