package dev.interlace.log.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.interlace.log.kafka.testing.KafkaCluster;
import dev.interlace.runtime.config.ConfigException;
import dev.interlace.runtime.log.AppendRequest;
import dev.interlace.runtime.log.AppendResult;
import dev.interlace.runtime.log.LogEntry;
import dev.interlace.runtime.log.LogSettings;
import dev.interlace.runtime.log.Watermarks;
import dev.interlace.runtime.stream.StreamDescriptor;
import dev.interlace.runtime.testing.Eventually;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the Kafka log does on the cluster itself: the topics it creates or refuses, and the records it deletes. */
class KafkaStreamLogTest {

    private static final StreamDescriptor ORDERS = KeyedOrders.declaredBy(KafkaStreamLogTest.class);
    private static final Watermarks NOTHING_FLUSHED = KeyedOrders.NOTHING_FLUSHED;

    @TempDir
    Path directory;

    private final String prefix = "log-" + UUID.randomUUID().toString().substring(0, 8) + ".";

    private KafkaStreamLog open() {
        return new KafkaStreamLog(new KafkaLogSettings(KafkaCluster.shared().bootstrap(), prefix, 1, 1,
                "http://node.test", Duration.ofSeconds(6), Duration.ofSeconds(20), directory), LogSettings.defaults(1000),
                NOTHING_FLUSHED, Clock.systemUTC());
    }

    /**
     * Start-up registers every declared stream at once, each stream's highest partition first: every log stream's
     * topics are made and followed, its head answers, the sequencer group gives it a sequencer and an append to it
     * commits; a stream twice in the list, or registered again, is left as it was; and a second node registering them
     * all reads each stream's head from its topic (its tailer follows every one).
     */
    @Test
    void streamsRegisteredTogetherAreEachMadeFollowedAndSequenced(@TempDir Path second) throws Exception {
        StreamDescriptor clicks = KeyedOrders.keyed("clicks", 3, KafkaStreamLogTest.class);
        List<StreamDescriptor> order = new java.util.ArrayList<>(clicks.logStreams());
        java.util.Collections.reverse(order);
        order.add(ORDERS);
        order.add(ORDERS);
        List<String> names = order.stream().map(StreamDescriptor::name).distinct().toList();
        try (KafkaStreamLog log = open(); Admin admin = KafkaCluster.shared().admin()) {
            log.registerAll(order);
            assertThat(log.knownStreams()).containsAll(names);
            assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS)).contains(prefix + "orders",
                    prefix + "clicks", prefix + clicks.logStream(1).name(), prefix + clicks.logStream(2).name());
            assertThat(log.heads()).containsKeys(names.toArray(String[]::new));
            for (String name : names) {
                AppendResult result = Eventually.retrying("stream " + name + " is sequenced", Duration.ofSeconds(60),
                        java.util.concurrent.ExecutionException.class, () -> log.append(new AppendRequest(name,
                                "req-" + UUID.randomUUID(), System.currentTimeMillis() * 1_000, "v1",
                                List.of(new AppendRequest.Event("{\"id\":\"k1\"}".getBytes(StandardCharsets.UTF_8),
                                        "k1")))).get(30, TimeUnit.SECONDS));
                assertThat(KeyedOrders.entry(result).offset()).as(name).isEqualTo(1);
            }

            log.registerAll(List.of(ORDERS));
            log.register(clicks.logStream(2));
            assertThat(log.heads().get("orders").head()).isEqualTo(1);
            assertThat(KeyedOrders.entry(KeyedOrders.appendUntilServed(log, "k2")).offset()).isEqualTo(2);

            try (KafkaStreamLog other = KeyedOrders.log(prefix, second, "other", false, 1000)) {
                other.registerAll(order);
                for (String name : names) {
                    assertThat(other.heads().get(name).head()).as(name).isEqualTo(name.equals("orders") ? 2 : 1);
                }
            }
        }
    }

    /**
     * A topic of the streams that exists with the wrong shape refuses the registration before any topic is made: a
     * start-up never leaves partition 0 of a stream without the partitions above it.
     */
    @Test
    void aMisshapenTopicRefusesRegistrationBeforeAnyTopicIsMade() throws Exception {
        StreamDescriptor clicks = KeyedOrders.keyed("clicks", 3, KafkaStreamLogTest.class);
        List<StreamDescriptor> order = new java.util.ArrayList<>(clicks.logStreams());
        java.util.Collections.reverse(order);
        order.add(ORDERS);
        try (KafkaStreamLog log = open(); Admin admin = KafkaCluster.shared().admin()) {
            String misshapen = prefix + clicks.logStream(1).name() + "__keys";
            admin.createTopics(List.of(new NewTopic(misshapen, 2, (short) 1))).all().get(30, TimeUnit.SECONDS);
            assertThatThrownBy(() -> log.registerAll(order)).isInstanceOf(ConfigException.class)
                    .hasMessageContaining(misshapen).hasMessageContaining("has 2 partitions");
            assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS)).doesNotContain(prefix + "orders",
                    prefix + "clicks", prefix + clicks.logStream(1).name(), prefix + clicks.logStream(2).name());
            assertThat(log.knownStreams()).isEmpty();
        }
    }

    @Test
    void streamTopicsHaveOnePartitionAndKeepRecordsUntilTheLogDeletesThem() throws Exception {
        try (KafkaStreamLog log = open(); Admin admin = KafkaCluster.shared().admin()) {
            log.register(ORDERS);
            Map<ConfigResource, Config> configs = admin.describeConfigs(List.of(
                    new ConfigResource(ConfigResource.Type.TOPIC, prefix + "orders"),
                    new ConfigResource(ConfigResource.Type.TOPIC, prefix + "_publishes"),
                    new ConfigResource(ConfigResource.Type.TOPIC, prefix + "_state"))).all().get(30, TimeUnit.SECONDS);
            Config events = configs.get(new ConfigResource(ConfigResource.Type.TOPIC, prefix + "orders"));
            assertThat(events.get("retention.ms").value()).isEqualTo("-1");
            assertThat(events.get("cleanup.policy").value()).isEqualTo("delete");
            assertThat(configs.get(new ConfigResource(ConfigResource.Type.TOPIC, prefix + "_state"))
                    .get("cleanup.policy").value()).isEqualTo("compact");
            assertThat(admin.describeTopics(List.of(prefix + "orders")).allTopicNames().get(30, TimeUnit.SECONDS)
                    .get(prefix + "orders").partitions()).hasSize(1);
        }
    }

    @Test
    void aTopicWithSeveralPartitionsStopsStartUpWithAMessageNamingIt() throws Exception {
        try (Admin admin = KafkaCluster.shared().admin()) {
            admin.createTopics(List.of(new NewTopic(prefix + "orders", 3, (short) 1))).all()
                    .get(30, TimeUnit.SECONDS);
        }
        try (KafkaStreamLog log = open()) {
            assertThatThrownBy(() -> log.register(ORDERS)).isInstanceOf(ConfigException.class)
                    .hasMessageStartingWith("Kafka topic " + prefix + "orders has 3 partitions; the Interlace log"
                            + " needs exactly 1");
        }
    }

    @Test
    void aTopicWithATimeRetentionStopsStartUpWithTheSettingToChange() throws Exception {
        try (Admin admin = KafkaCluster.shared().admin()) {
            admin.createTopics(List.of(new NewTopic(prefix + "orders", 1, (short) 1)
                    .configs(Map.of("retention.ms", "86400000")))).all().get(30, TimeUnit.SECONDS);
        }
        try (KafkaStreamLog log = open()) {
            assertThatThrownBy(() -> log.register(ORDERS)).isInstanceOf(ConfigException.class)
                    .hasMessageContaining("has retention.ms=86400000; the Interlace log needs retention.ms=-1");
        }
    }

    @Test
    void aNodeFencedByAHolderTheGroupDoesNotKnowTakesItsStreamBackWithinFifteenSeconds() throws Exception {
        try (KafkaStreamLog log = open()) {
            log.register(ORDERS);
            AppendResult.Committed first = (AppendResult.Committed) append(log, "a").get(30, TimeUnit.SECONDS);

            // A holder outside the sequencer group takes the stream over — a node cut off from the group that timed
            // its stuck transaction out and started again — and is gone at once: it fences this node's producer.
            Properties properties = new Properties();
            properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KafkaCluster.shared().bootstrap());
            properties.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, prefix + "sequencer.orders");
            try (KafkaProducer<byte[], byte[]> stale = new KafkaProducer<>(properties, new ByteArraySerializer(),
                    new ByteArraySerializer())) {
                stale.initTransactions();
            }

            long fenced = System.nanoTime();
            // no_sequencer while this node's sequencer is fenced
            AppendResult accepted = Eventually.retrying("this node sequences the stream again", Duration.ofSeconds(15),
                    java.util.concurrent.ExecutionException.class, () -> append(log, "b").get(30, TimeUnit.SECONDS));
            assertThat(accepted).as("this node, still assigned the stream, sequences it again within 15 s")
                    .isInstanceOf(AppendResult.Committed.class);
            System.out.printf("[fenced-by-a-stranger] writing again %d ms after the fence%n",
                    (System.nanoTime() - fenced) / 1_000_000);
            AppendResult.Committed retried = (AppendResult.Committed) append(log, "a").get(30, TimeUnit.SECONDS);
            assertThat(retried.entries()).containsExactly(new AppendResult.EntryResult(AppendResult.Status.DUPLICATE,
                    first.entries().get(0).offset()));
            assertThat(((AppendResult.Committed) accepted).entries().get(0).offset())
                    .isEqualTo(first.entries().get(0).offset() + 1);
        }
    }

    private static java.util.concurrent.CompletableFuture<AppendResult> append(KafkaStreamLog log, String id) {
        return log.append(new AppendRequest("orders", "req-" + id + "-" + UUID.randomUUID(), 1L, "v1",
                List.of(new AppendRequest.Event(("{\"id\":\"" + id + "\"}").getBytes(StandardCharsets.UTF_8), id))));
    }

    @Test
    void trimmingDeletesTheRecordsFromTheTopic() throws Exception {
        try (KafkaStreamLog log = open(); Admin admin = KafkaCluster.shared().admin()) {
            log.register(ORDERS);
            for (String id : List.of("a", "b", "c")) {
                AppendResult result = log.append(new AppendRequest("orders", "req-" + id, 1L, "v1",
                        List.of(new AppendRequest.Event(("{\"id\":\"" + id + "\"}").getBytes(StandardCharsets.UTF_8),
                                id)))).get(30, TimeUnit.SECONDS);
                assertThat(result).isInstanceOf(AppendResult.Committed.class);
            }
            TopicPartition events = new TopicPartition(prefix + "orders", 0);
            assertThat(logStart(admin, events)).isZero();

            assertThat(log.trim("orders", 2)).isEqualTo(2);
            long start = logStart(admin, events);
            assertThat(start).as("the records of offsets 1 and 2 are gone from Kafka").isPositive();
            try (KafkaStreamLog reopened = open()) {
                reopened.register(ORDERS);
                assertThat(reopened.read("orders", 0, 10, Duration.ZERO)).extracting(LogEntry::offset)
                        .containsExactly(3L);
                assertThat(reopened.heads().get("orders").earliest()).isEqualTo(3);
            }
        }
    }

    private static long logStart(Admin admin, TopicPartition partition) throws Exception {
        return admin.listOffsets(Map.of(partition, OffsetSpec.earliest())).partitionResult(partition)
                .get(30, TimeUnit.SECONDS).offset();
    }
}
