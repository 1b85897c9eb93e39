package dev.interlace.integration.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.runtime.testing.Eventually;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;

/**
 * API keys across two {@code serve --log kafka} nodes, each with a data directory of its own: a key created with
 * {@code interlace keys create} on one node's directory works on the other, revoked there it is refused on both, the
 * cluster's topic never holds the secret, and a node without keys of its own stops being open once the cluster has
 * one (and may start beyond loopback). And what {@code serve} does when it cannot reach the cluster at all.
 */
class KafkaKeysTest extends KafkaNodeTest {

    private static final Duration SEEN_WITHIN = Duration.ofSeconds(10);

    KafkaKeysTest() {
        super("keys");
    }

    @Test
    void aKeyCreatedOnOneNodeWorksOnTheOtherAndRevokedThereIsRefusedOnBoth() throws Exception {
        Path dataOfA = directory.resolve("a");
        Path dataOfB = directory.resolve("b");
        try (ServeNode a = node(dataOfA);
                ServeNode b = node(dataOfB)) {
            assertThat(b.get("/streams/orders").status()).as("open: no key anywhere, loopback").isEqualTo(200);

            String created = ServeNode.interlace(directory, "keys", "create", "--name", "dashboard", "--scope", "read",
                    "--data-dir", dataOfA.toString(), "--json");
            assertThat(created).startsWith("exit 0\n");
            String secret = ServeNode.JSON.readTree(created.substring(created.indexOf('{'))).get("secret").asText();
            long createdAt = System.nanoTime();
            Eventually.until("node b accepts the key created on node a", SEEN_WITHIN,
                    () -> b.get("/streams/orders", secret).status() == 200);
            System.out.println("a key created with interlace keys on node a worked on node b after "
                    + (System.nanoTime() - createdAt) / 1_000_000 + " ms");
            ServeNode.Response withoutKey = b.get("/streams/orders");
            assertThat(withoutKey.status()).as("node b has no key of its own but is no longer open").isEqualTo(401);
            assertThat(withoutKey.body().get("error").asText()).isEqualTo("unauthorized");
            assertThat(a.get("/streams/orders", secret).status()).isEqualTo(200);

            // Beyond loopback a node needs a key to start: the cluster's is enough.
            try (ServeNode c = node("c", "--bind", "0.0.0.0")) {
                assertThat(c.get("/streams/orders").status()).isEqualTo(401);
                assertThat(c.get("/streams/orders", secret).status()).isEqualTo(200);
                c.stop();
            }

            String listedOnB = ServeNode.interlace(directory, "keys", "list", "--data-dir", dataOfB.toString(),
                    "--json");
            assertThat(listedOnB).as("keys list on node b shows the cluster's key").startsWith("exit 0\n")
                    .contains("\"name\" : \"dashboard\"");

            String revoked = ServeNode.interlace(directory, "keys", "revoke", "dashboard", "--data-dir",
                    dataOfA.toString());
            assertThat(revoked).startsWith("exit 0\n");
            long revokedAt = System.nanoTime();
            Eventually.until("node b refuses the key revoked on node a", SEEN_WITHIN,
                    () -> b.get("/streams/orders", secret).status() == 401);
            System.out.println("a key revoked with interlace keys on node a was refused on node b after "
                    + (System.nanoTime() - revokedAt) / 1_000_000 + " ms");
            assertThat(a.get("/streams/orders", secret).status()).isEqualTo(401);

            String raw = rawKeysTopic();
            assertThat(raw).as("the keys' topic has the key").contains("dashboard");
            assertThat(raw).as("but never its secret").doesNotContain(secret.substring(4))
                    .doesNotContain(secret.substring(secret.length() - 16));
        }
    }

    @Test
    void aClusterThatCannotBeReachedStopsServeWithExitTwoNamingTheBootstrapServers() throws Exception {
        String closed = "127.0.0.1:" + closedPort();
        long started = System.nanoTime();
        String refused = ServeNode.refusedStart(directory.resolve("node"), closed, prefix);
        System.out.println("serve gave up on an unreachable cluster after "
                + (System.nanoTime() - started) / 1_000_000 + " ms (JVM start included)");
        assertThat(refused).startsWith("exit 2\n").contains("cannot reach the Kafka cluster at --kafka-bootstrap "
                + closed).contains("for 15 s");
    }

    /** Every record of the keys' topic, keys and values, as text. */
    private String rawKeysTopic() {
        Properties properties = new Properties();
        properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        TopicPartition partition = new TopicPartition(prefix + "_keys", 0);
        StringBuilder raw = new StringBuilder();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(properties, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            long end = consumer.endOffsets(List.of(partition)).get(partition);
            while (consumer.position(partition) < end) {
                consumer.poll(Duration.ofMillis(100)).forEach(record -> raw
                        .append(new String(record.key(), StandardCharsets.ISO_8859_1)).append(' ')
                        .append(new String(record.value(), StandardCharsets.ISO_8859_1)).append('\n'));
            }
        }
        return raw.toString();
    }

    /** A loopback port nothing listens on. */
    private static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
