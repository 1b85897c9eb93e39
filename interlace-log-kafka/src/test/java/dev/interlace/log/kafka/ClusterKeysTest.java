package dev.interlace.log.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.interlace.log.kafka.testing.KafkaCluster;
import dev.interlace.runtime.auth.ApiKey;
import dev.interlace.runtime.auth.KeyFile;
import dev.interlace.runtime.auth.Scope;
import dev.interlace.runtime.config.ConfigException;
import dev.interlace.runtime.testing.Eventually;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The API keys of two nodes of one cluster, each with a data directory (and key file) of its own, sharing the keys'
 * topic on the shared one-node Kafka cluster: keys created or revoked with {@code interlace keys} on one node's data
 * directory are accepted or refused by the other, the topic holds hashes and never a secret, and a node without keys
 * of its own is not open while the cluster has keys.
 */
class ClusterKeysTest {

    private static final Duration SEEN_WITHIN = Duration.ofSeconds(10);

    @TempDir
    Path directory;

    private final String prefix = "keys-" + UUID.randomUUID().toString().substring(0, 8) + ".";
    private final List<AutoCloseable> opened = new ArrayList<>();

    @AfterEach
    void closeNodes() throws Exception {
        for (int i = opened.size() - 1; i >= 0; i--) {
            opened.get(i).close();
        }
    }

    /** A node's keys: its key file, kept in step with the cluster's topic. */
    private ClusterKeys node(String name) {
        KeyFile file = KeyFile.open(directory.resolve(name));
        opened.add(file);
        ClusterKeys keys = new ClusterKeys(settings(), file);
        opened.add(keys);
        return keys;
    }

    private KafkaLogSettings settings() {
        return new KafkaLogSettings(KafkaCluster.shared().bootstrap(), prefix, 1, 1, "http://node.test",
                Duration.ofSeconds(6), Duration.ofSeconds(20), directory);
    }

    /** What {@code interlace keys create} does on a node's data directory. */
    private KeyFile.CreatedKey create(String node, String name, Scope... scopes) {
        try (KeyFile cli = KeyFile.open(directory.resolve(node))) {
            return cli.create(name, List.of(scopes), 0);
        }
    }

    private void revoke(String node, String nameOrId) {
        try (KeyFile cli = KeyFile.open(directory.resolve(node))) {
            cli.revoke(nameOrId);
        }
    }

    private List<KeyFile.ListedKey> list(String node) {
        try (KeyFile cli = KeyFile.open(directory.resolve(node))) {
            return cli.list();
        }
    }

    @Test
    void aKeyCreatedOnOneNodeWorksOnTheOtherAndIsListedThere() {
        ClusterKeys a = node("a");
        ClusterKeys b = node("b");
        assertThat(b.isEmpty()).isTrue();

        KeyFile.CreatedKey created = create("a", "shop", Scope.publish("orders"));
        long createdAt = System.nanoTime();
        awaitTrue("node b accepts the key created on node a", () -> b.authenticate(created.secret()).isPresent());
        System.out.println("a key created on node a was accepted on node b after "
                + (System.nanoTime() - createdAt) / 1_000_000 + " ms");
        ApiKey onB = b.authenticate(created.secret()).orElseThrow();
        assertThat(onB.id()).isEqualTo(created.key().id());
        assertThat(onB.scopes()).containsExactly(Scope.publish("orders"));
        assertThat(b.isEmpty()).as("node b has keys: the cluster's").isFalse();
        assertThat(a.authenticate(created.secret())).isPresent();

        awaitTrue("node b's key file lists the cluster's key", () -> list("b").stream()
                .anyMatch(listed -> listed.key().id().equals(created.key().id()) && !listed.revoked()));
    }

    @Test
    void aKeyRevokedOnEitherNodeIsRefusedOnBoth() {
        ClusterKeys a = node("a");
        ClusterKeys b = node("b");
        KeyFile.CreatedKey shop = create("a", "shop", Scope.publish("orders"));
        KeyFile.CreatedKey dashboard = create("a", "dashboard", Scope.of(Scope.Kind.READ));
        awaitTrue("node b accepts both keys", () -> b.authenticate(shop.secret()).isPresent()
                && b.authenticate(dashboard.secret()).isPresent());

        revoke("a", "shop");
        long revokedAt = System.nanoTime();
        awaitTrue("node b refuses the key revoked on node a", () -> b.authenticate(shop.secret()).isEmpty());
        System.out.println("a key revoked on node a was refused on node b after "
                + (System.nanoTime() - revokedAt) / 1_000_000 + " ms");
        assertThat(b.authenticate(dashboard.secret())).as("the other key keeps working").isPresent();

        awaitTrue("node b's key file has the dashboard key", () -> list("b").stream()
                .anyMatch(listed -> listed.key().name().equals("dashboard")));
        revoke("b", "dashboard");
        awaitTrue("node a refuses the key of its own revoked on node b",
                () -> a.authenticate(dashboard.secret()).isEmpty());
        awaitTrue("no live key is left on either node", () -> a.isEmpty() && b.isEmpty());
        awaitTrue("node a's key file says so", () -> list("a").stream().allMatch(KeyFile.ListedKey::revoked));
    }

    @Test
    void aKeyFileRestoredFromBeforeARevocationDoesNotBringTheKeyBack() throws Exception {
        Path fileOfA = KeyFile.file(directory.resolve("a"));
        KeyFile.CreatedKey shop = create("a", "shop", Scope.publish("orders"));
        Path backup = directory.resolve("keys.json.backup");
        Files.copy(fileOfA, backup);
        ClusterKeys a = node("a");
        ClusterKeys b = node("b");
        awaitTrue("node b accepts the key", () -> b.authenticate(shop.secret()).isPresent());
        revoke("b", shop.key().id());
        awaitTrue("node a refuses it", () -> a.authenticate(shop.secret()).isEmpty());

        // Restored in one step: node a's own thread may be rewriting the file at the same moment.
        Path restored = Files.copy(backup, directory.resolve("a").resolve("keys.json.restored"));
        Files.move(restored, fileOfA, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        awaitTrue("node a's file is revoked again", () -> list("a").get(0).revoked());
        assertThat(a.authenticate(shop.secret())).isEmpty();
        assertThat(b.authenticate(shop.secret())).isEmpty();
        assertThat(a.isEmpty()).isTrue();
    }

    @Test
    void theKeysTopicHoldsHashesAndNeverASecret() throws Exception {
        ClusterKeys a = node("a");
        KeyFile.CreatedKey shop = create("a", "shop", Scope.publish("orders"));
        awaitTrue("node a accepts the key", () -> a.authenticate(shop.secret()).isPresent());
        revoke("a", "shop");
        awaitTrue("node a refuses it", () -> a.authenticate(shop.secret()).isEmpty());

        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        awaitTrue("the revocation is on the topic", () -> {
            records.clear();
            records.addAll(readTopic(prefix + "_keys"));
            return records.stream().anyMatch(record -> new String(record.value(), StandardCharsets.UTF_8)
                    .contains("\"revoked_at\":\"20"));
        });
        String secret = shop.secret();
        String hash = HexFormat.of().formatHex(KeyFile.sha256(secret));
        for (ConsumerRecord<byte[], byte[]> record : records) {
            String raw = new String(record.key(), StandardCharsets.ISO_8859_1) + new String(record.value(),
                    StandardCharsets.ISO_8859_1);
            assertThat(raw).doesNotContain(secret.substring(4)).doesNotContain(secret.substring(secret.length() - 16));
            assertThat(new String(record.key(), StandardCharsets.UTF_8)).isEqualTo(shop.key().id());
            assertThat(raw).contains(hash);
        }

        try (Admin admin = KafkaCluster.shared().admin()) {
            Config config = admin.describeConfigs(List.of(new ConfigResource(ConfigResource.Type.TOPIC,
                    prefix + "_keys"))).all().get(30, TimeUnit.SECONDS).values().iterator().next();
            assertThat(config.get("cleanup.policy").value()).isEqualTo("compact");
        }
    }

    @Test
    void aNodeWithoutKeysOfItsOwnIsNotOpenWhileTheClusterHasKeys() {
        create("a", "shop", Scope.publish("orders"));
        node("a");
        ClusterKeys started = node("b");
        assertThat(started.isEmpty()).as("a node started after the key was published knows it at once").isFalse();
        assertThat(started.authenticate("ilk_" + "A".repeat(43))).isEmpty();
    }

    @Test
    void aKeysTopicThatIsNotCompactedStopsStartUpNamingTheSetting() throws Exception {
        try (Admin admin = KafkaCluster.shared().admin()) {
            admin.createTopics(List.of(new NewTopic(prefix + "_keys", 1, (short) 1)
                    .configs(Map.of("cleanup.policy", "delete")))).all().get(30, TimeUnit.SECONDS);
        }
        assertThatThrownBy(() -> node("a")).isInstanceOf(ConfigException.class)
                .hasMessageContaining("Kafka topic " + prefix + "_keys has cleanup.policy=delete; the Interlace log"
                        + " needs cleanup.policy=compact");
    }

    private static List<ConsumerRecord<byte[], byte[]>> readTopic(String topic) {
        Properties properties = new Properties();
        properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, KafkaCluster.shared().bootstrap());
        TopicPartition partition = new TopicPartition(topic, 0);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(properties, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            long end = consumer.endOffsets(List.of(partition)).get(partition);
            List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
            while (consumer.position(partition) < end) {
                consumer.poll(Duration.ofMillis(100)).forEach(records::add);
            }
            return records;
        }
    }

    private static void awaitTrue(String what, BooleanSupplier condition) {
        Eventually.until(what, SEEN_WITHIN, condition::getAsBoolean);
    }
}
