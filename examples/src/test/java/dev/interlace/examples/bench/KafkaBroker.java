package dev.interlace.examples.bench;

import dev.interlace.log.kafka.testing.KafkaCluster;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;

/**
 * The broker side of the Kafka benchmark ({@code examples/bench/kafka-publish.sh}), run on the examples' test class
 * path, which holds the {@code kafka_2.13} jars and the {@link KafkaCluster} harness.
 *
 * <ul>
 *   <li>{@code start}: a one-node KRaft cluster (broker and controller in one child JVM, with Kafka's own
 *       production JVM options rather than the tests' quick-start ones), prints {@code bootstrap HOST:PORT} and runs
 *       until it is terminated (SIGTERM stops the broker and deletes its data);</li>
 *   <li>{@code topic-config BOOTSTRAP TOPIC KEY=VALUE}: sets one setting of an existing topic (as
 *       {@code kafka-configs --alter --add-config} does) and prints the setting as the broker then reports it.</li>
 * </ul>
 */
public final class KafkaBroker {

    /** What {@code kafka-server-start.sh} gives a broker by default (heap, G1 and its pause goal). */
    private static final List<String> PRODUCTION_JVM_OPTIONS = List.of("-Xms1g", "-Xmx1g", "-XX:+UseG1GC",
            "-XX:MaxGCPauseMillis=20", "-XX:InitiatingHeapOccupancyPercent=35", "-XX:+ExplicitGCInvokesConcurrent");

    private KafkaBroker() {}

    public static void main(String[] args) throws Exception {
        if (args.length == 1 && args[0].equals("start")) {
            KafkaCluster cluster = KafkaCluster.start(1, PRODUCTION_JVM_OPTIONS);
            System.out.println("bootstrap " + cluster.bootstrap());
            System.out.flush();
            // The harness's shutdown hook stops the broker and deletes its directory when this JVM is terminated.
            Thread.currentThread().join();
        } else if (args.length == 4 && args[0].equals("topic-config")) {
            String[] setting = args[3].split("=", 2);
            System.out.println(setTopicConfig(args[1], args[2], setting[0], setting[1]));
        } else {
            System.err.println("usage: KafkaBroker start | topic-config BOOTSTRAP TOPIC KEY=VALUE");
            System.exit(2);
        }
    }

    private static String setTopicConfig(String bootstrap, String topic, String key, String value) throws Exception {
        Properties properties = new Properties();
        properties.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(properties)) {
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
