package dev.interlace.benchmarks;

import dev.interlace.log.kafka.testing.KafkaCluster;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The broker side of the Kafka benchmark ({@code interlace-benchmarks/scripts/kafka-publish.sh}), run on the
 * benchmarks' class path, which holds the {@code kafka_2.13} jars and the {@link KafkaCluster} harness.
 *
 * <ul>
 *   <li>{@code start [KEY=VALUE...]}: a one-node KRaft cluster (broker and controller in one child JVM, with Kafka's
 *       own production JVM options rather than the tests' quick-start ones; the broker settings given written over
 *       the harness's), prints {@code bootstrap HOST:PORT} and runs until it is terminated (SIGTERM stops the broker
 *       and deletes its data);</li>
 *   <li>{@code topic-config BOOTSTRAP TOPIC KEY=VALUE}: sets one setting of an existing topic (as
 *       {@code kafka-configs --alter --add-config} does) and prints the setting as the broker then reports it;</li>
 *   <li>{@code transaction-latency BOOTSTRAP COUNT [KEY=VALUE]}: the floor under a publish on the Kafka log, without
 *       Interlace: {@code COUNT} transactions one after the other, each one small record to a stream-like topic and
 *       one to a publishes-like topic (what a single-event publish writes) with the sequencer's producer settings,
 *       the setting given (e.g. {@code flush.messages=1}) on the first topic; prints their p50, p90 and p99.</li>
 * </ul>
 */
public final class KafkaBroker {

    /** What {@code kafka-server-start.sh} gives a broker by default (heap, G1 and its pause goal). */
    private static final List<String> PRODUCTION_JVM_OPTIONS = List.of("-Xms1g", "-Xmx1g", "-XX:+UseG1GC",
            "-XX:MaxGCPauseMillis=20", "-XX:InitiatingHeapOccupancyPercent=35", "-XX:+ExplicitGCInvokesConcurrent");

    private KafkaBroker() {}

    public static void main(String[] args) throws Exception {
        if (args.length >= 1 && args[0].equals("start")) {
            Map<String, String> settings = new HashMap<>();
            for (int i = 1; i < args.length; i++) {
                String[] pair = args[i].split("=", 2);
                if (pair.length != 2) {
                    System.err.println("a broker setting is KEY=VALUE, not " + args[i]);
                    System.exit(2);
                }
                settings.put(pair[0], pair[1]);
            }
            KafkaCluster cluster = KafkaCluster.start(1, PRODUCTION_JVM_OPTIONS, settings);
            System.out.println("bootstrap " + cluster.bootstrap());
            System.out.flush();
            // The harness's shutdown hook stops the broker and deletes its directory when this JVM is terminated.
            Thread.currentThread().join();
        } else if (args.length == 4 && args[0].equals("topic-config")) {
            String[] setting = args[3].split("=", 2);
            System.out.println(setTopicConfig(args[1], args[2], setting[0], setting[1]));
        } else if ((args.length == 3 || args.length == 4) && args[0].equals("transaction-latency")) {
            System.out.println(transactionLatency(args[1], Integer.parseInt(args[2]),
                    args.length == 4 ? args[3] : null));
        } else {
            System.err.println("usage: KafkaBroker start [KEY=VALUE...] | topic-config BOOTSTRAP TOPIC KEY=VALUE"
                    + " | transaction-latency BOOTSTRAP COUNT [KEY=VALUE]");
            System.exit(2);
        }
    }

    private static String transactionLatency(String bootstrap, int count, String setting) throws Exception {
        String name = "latency-" + UUID.randomUUID().toString().substring(0, 8);
        Map<String, String> configs = new HashMap<>();
        if (setting != null) {
            String[] pair = setting.split("=", 2);
            configs.put(pair[0], pair[1]);
        }
        try (Admin admin = admin(bootstrap)) {
            admin.createTopics(List.of(new NewTopic(name + ".events", 1, (short) 1).configs(configs),
                    new NewTopic(name + ".publishes", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        Properties properties = new Properties();
        properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        properties.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, name);
        properties.put(ProducerConfig.ACKS_CONFIG, "all");
        properties.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        properties.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        long[] nanos = new long[count];
        byte[] value = "{\"order_id\":\"1b4e28ba-2fa1-4d2b-a8b6-5f8c4f0a9e11\",\"total\":49.5}"
                .getBytes(StandardCharsets.UTF_8);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(properties, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            producer.initTransactions();
            for (int i = -count / 10; i < count; i++) {
                long started = System.nanoTime();
                producer.beginTransaction();
                byte[] key = Integer.toString(i).getBytes(StandardCharsets.UTF_8);
                producer.send(new ProducerRecord<>(name + ".events", key, value));
                producer.send(new ProducerRecord<>(name + ".publishes", key, value));
                producer.commitTransaction();
                if (i >= 0) {
                    nanos[i] = System.nanoTime() - started;
                }
            }
        }
        Arrays.sort(nanos);
        return String.format(Locale.ROOT, "%d transactions%s: p50 %.2f ms, p90 %.2f ms, p99 %.2f ms", count,
                setting == null ? "" : " (" + setting + ")", nanos[count / 2] / 1e6, nanos[count * 9 / 10] / 1e6,
                nanos[count * 99 / 100] / 1e6);
    }

    private static Admin admin(String bootstrap) {
        Properties properties = new Properties();
        properties.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        return Admin.create(properties);
    }

    private static String setTopicConfig(String bootstrap, String topic, String key, String value) throws Exception {
        try (Admin admin = admin(bootstrap)) {
            ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
            Map<ConfigResource, Collection<AlterConfigOp>> change = Map.of(resource,
                    List.of(new AlterConfigOp(new ConfigEntry(key, value), AlterConfigOp.OpType.SET)));
            admin.incrementalAlterConfigs(change).all().get(30, TimeUnit.SECONDS);
            ConfigEntry entry = admin.describeConfigs(List.of(resource)).all().get(30, TimeUnit.SECONDS)
                    .get(resource).get(key);
            return topic + " " + key + "=" + entry.value() + " (" + entry.source() + ")";
        }
    }
}
