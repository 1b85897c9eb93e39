package dev.interlace.integration.kafka;

import static dev.interlace.integration.ApiAnswer.assertError;
import static dev.interlace.integration.kafka.NodeFixtures.offsets;
import static dev.interlace.integration.kafka.NodeFixtures.with;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.interlace.client.ErrorCode;
import dev.interlace.client.InterlaceClient;
import dev.interlace.client.testing.SelfSignedCertificate;
import dev.interlace.runtime.cluster.ForwardSignature;
import dev.interlace.runtime.cluster.Peers;
import dev.interlace.runtime.config.ClusterSecret;
import dev.interlace.runtime.testing.Eventually;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Two nodes of a Kafka-log cluster with a cluster secret: requests placed on a stream's sequencer, sent to the node
 * that does not hold the stream, are forwarded to the one that does and answered as it answers (same request id);
 * a forward goes one hop at most; between nodes on https, a node forwards only to a node whose certificate it
 * trusts. (Without a secret the other node answers {@code 503 no_sequencer} naming the holder: {@link
 * KafkaServeTest}.)
 */
class ForwardingTest extends KafkaNodeTest {

    private static final String SECRET = "the secret these test nodes share, longer than 32 bytes";

    ForwardingTest() {
        super("fwd");
    }

    @Test
    void theNodeThatDoesNotHoldAStreamForwardsItsPublishesAndConsumerCallsToTheHolder() throws Exception {
        String[] cluster = clusterFlags(SECRET);
        try (ServeNode first = node("first", cluster);
                ServeNode second = node("second", cluster)) {
            ServeNode holder = holderOf("orders", first, second);
            ServeNode other = holder == first ? second : first;

            ServeNode.Response forwarded = other.post("/streams/orders?verbose=true", "application/json", TWO_ORDERS,
                    "X-Request-Id", "client-1");
            assertThat(forwarded.status()).as(other.output() + holder.output()).isEqualTo(200);
            assertThat(offsets(forwarded.body())).as("the holder's offsets").containsExactly(1L, 2L);
            assertThat(forwarded.body().get("request_id").asText()).isEqualTo("client-1");
            assertThat(forwarded.header("X-Request-Id")).isEqualTo("client-1");
            assertThat(holder.get("/streams/orders").body().get("head").asLong()).isEqualTo(2);

            for (ServeNode node : List.of(other, holder)) {
                ServeNode.Response retry = node.publish("orders", TWO_ORDERS);
                assertThat(retry.status()).isEqualTo(200);
                assertThat(retry.body().get("deduplicated").asInt()).isEqualTo(2);
                assertThat(offsets(retry.body())).as("the original offsets").containsExactly(1L, 2L);
            }

            ServeNode.Response lease = other.post("/streams/orders/consumers/billing/lease", "application/json",
                    "{\"owner\": \"worker-1\", \"ttl_ms\": 30000}");
            assertThat(lease.status()).as(String.valueOf(lease.body())).isEqualTo(200);
            String token = lease.body().get("token").toString(); // quoted: "<epoch>.<secret>"
            ServeNode.Response commit = other.post("/streams/orders/consumers/billing/commit", "application/json",
                    "{\"token\": " + token + ", \"offset\": 2}");
            assertThat(commit.status()).as(String.valueOf(commit.body())).isEqualTo(200);
            assertThat(commit.body().get("committed_offset").asLong()).isEqualTo(2);
            ServeNode.Response taken = holder.post("/streams/orders/consumers/billing/lease", "application/json",
                    "{\"owner\": \"worker-2\"}");
            assertThat(taken.status()).as("the lease taken through the other node holds on the holder").isEqualTo(409);
            assertThat(taken.body().get("error").asText()).isEqualTo("lease_held");
            ServeNode.Response release = other.post("/streams/orders/consumers/billing/release", "application/json",
                    "{\"token\": " + token + "}");
            assertThat(release.status()).isEqualTo(200);
            assertThat(release.body().get("released").asBoolean()).isTrue();

            // One hop: a signed forward to the node that does not hold the stream is answered there, not sent on.
            Peers.Request publish = new Peers.Request("POST", "/streams/orders", "application/json",
                    "{\"order_id\": \"c\", \"total\": 3}".getBytes(StandardCharsets.UTF_8), "hop-1", null);
            HttpRequest.Builder signed = HttpRequest.newBuilder(other.uri.resolve("/_cluster/forward"))
                    .header("X-Request-Id", "hop-1").POST(HttpRequest.BodyPublishers.ofByteArray(publish.body()));
            new ForwardSignature(ClusterSecret.of(SECRET.getBytes(StandardCharsets.UTF_8)), Clock.systemUTC())
                    .headers(publish).forEach(signed::header);
            ServeNode.Response oneHop = other.send(signed.build());
            assertError(oneHop, 503, ErrorCode.NO_SEQUENCER);
            assertThat(oneHop.body().get("message").asText()).contains(holder.uri.toString());
            assertThat(oneHop.body().get("request_id").asText()).isEqualTo("hop-1");
            assertThat(holder.get("/streams/orders").body().get("head").asLong()).isEqualTo(2);

            // Every publish answer names the sequencer; the Java client given the other node sends its first publish
            // there (forwarded) and the next ones straight to the holder. Forwarding is the fallback, not the path.
            assertThat(forwarded.header(InterlaceClient.SEQUENCER_HEADER)).isEqualTo(holder.uri.toString());
            double forwardsBefore = sequencerForwards(other);
            InterlaceClient client = InterlaceClient.builder(other.uri).build();
            for (String order : List.of("d", "e", "f")) {
                assertThat(client.publish("orders", Map.of("order_id", order, "total", 4)).accepted()).isEqualTo(1);
            }
            assertThat(sequencerForwards(other) - forwardsBefore).as("publishes the other node forwarded")
                    .isEqualTo(1);
            assertThat(holder.get("/streams/orders").body().get("head").asLong()).isEqualTo(5);
        }
    }

    /** The publishes and consumer calls {@code node} has sent on to a sequencer, from its {@code /metrics}. */
    private static double sequencerForwards(ServeNode node) throws Exception {
        String metrics = java.net.http.HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                node.uri.resolve("/metrics")).build(), java.net.http.HttpResponse.BodyHandlers.ofString()).body();
        java.util.regex.Matcher sample = java.util.regex.Pattern.compile(
                "(?m)^interlace_forwarded_requests_total\\{to=\"sequencer\",?\\} ([0-9.eE+]+)$").matcher(metrics);
        assertThat(sample.find()).as(metrics).isTrue();
        return Double.parseDouble(sample.group(1));
    }

    @Test
    void betweenNodesOnHttpsAForwardGoesOnlyToANodeWhoseCertificateIsTrusted() throws Exception {
        SelfSignedCertificate certificate = SelfSignedCertificate.generate(directory.resolve("tls"));
        SelfSignedCertificate stranger = SelfSignedCertificate.generate(directory.resolve("other-ca"));
        String[] tls = with(clusterFlags(SECRET), "--tls-cert", certificate.certificatePem().toString(), "--tls-key",
                certificate.privateKeyPem().toString());
        try (ServeNode trusting = node("trusting", with(tls, "--cluster-ca-file",
                        certificate.certificatePem().toString()));
                ServeNode distrusting = node("distrusting", with(tls, "--cluster-ca-file",
                        stranger.certificatePem().toString()))) {
            assertThat(trusting.uri.getScheme()).isEqualTo("https");
            // The group spreads the streams: wait until each node sequences one.
            List<String> streams = new ArrayList<>();
            trusting.get("/streams").body().get("streams").forEach(stream -> streams.add(stream.get("name")
                    .asText()));
            String[] held = new String[2]; // a stream the distrusting node sequences, one the trusting node does
            try {
                Eventually.until("each node sequences a stream", Duration.ofSeconds(60), () -> {
                    for (String stream : streams) {
                        String sequencer = trusting.get("/streams/" + stream).body().path("sequencer").asText(null);
                        if (distrusting.uri.toString().equals(sequencer)) {
                            held[0] = stream;
                        } else if (trusting.uri.toString().equals(sequencer)) {
                            held[1] = stream;
                        }
                    }
                    return held[0] != null && held[1] != null;
                });
            } catch (AssertionError e) {
                throw new AssertionError(e.getMessage() + "\n" + trusting.output() + distrusting.output(), e);
            }
            String heldByDistrusting = held[0];
            String heldByTrusting = held[1];
            assertThat(heldByDistrusting).as(trusting.output()).isNotNull();
            assertThat(heldByTrusting).as(distrusting.output()).isNotNull();
            assertThat(distrusting.await("/streams/" + heldByTrusting, body -> trusting.uri.toString()
                    .equals(body.path("sequencer").asText(null))).get("sequencer").asText())
                    .isEqualTo(trusting.uri.toString());

            // A consumer lease: placed on the stream's sequencer like a publish, whatever the stream's schema.
            String lease = "{\"owner\": \"worker-1\"}";
            ServeNode.Response forwarded = trusting.post("/streams/" + heldByDistrusting
                    + "/consumers/billing/lease", "application/json", lease, "X-Request-Id", "tls-1");
            assertThat(forwarded.status()).as(forwarded.body() + trusting.output()).isEqualTo(200);
            assertThat(forwarded.body().get("token").asText()).matches("[1-9][0-9]*\\.[A-Za-z0-9_-]{22}");
            assertThat(forwarded.header("X-Request-Id")).isEqualTo("tls-1");

            ServeNode.Response refused = distrusting.post("/streams/" + heldByTrusting + "/consumers/billing/lease",
                    "application/json", lease, "X-Request-Id", "tls-2");
            assertThat(refused.status()).as(String.valueOf(refused.body())).isEqualTo(503);
            assertThat(refused.body().get("error").asText()).isEqualTo("peer_unavailable");
            assertThat(refused.body().get("message").asText()).contains(trusting.uri.toString());
            assertThat(refused.header("Retry-After")).isNotNull();
            assertThat(refused.header("X-Request-Id")).isEqualTo("tls-2");
        }
    }

    /** The node holding {@code stream}'s sequencer, once both nodes agree on it. */
    static ServeNode holderOf(String stream, ServeNode first, ServeNode second) {
        JsonNode described = first.await("/streams/" + stream, body -> !body.path("sequencer").isNull()
                && !body.path("sequencer").isMissingNode());
        ServeNode holder = described.get("sequencer").asText().equals(first.uri.toString()) ? first : second;
        ServeNode other = holder == first ? second : first;
        assertThat(other.await("/streams/" + stream, body -> holder.uri.toString()
                .equals(body.path("sequencer").asText(null))).get("sequencer").asText())
                .isEqualTo(holder.uri.toString());
        return holder;
    }
}
