package dev.interlace.integration.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.interlace.runtime.cluster.ForwardSignature;
import dev.interlace.runtime.cluster.PeerClient;
import dev.interlace.runtime.cluster.Peers;
import dev.interlace.runtime.config.ClusterSecret;
import dev.interlace.runtime.config.InterlaceConfig;
import dev.interlace.runtime.testing.Eventually;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sessions nodes open on their connections to each other ({@code POST /_cluster/session}) and the pooled,
 * pipelined {@link PeerClient} that opens them: a session is authenticated only by a proof of the cluster secret over
 * both ends' nonces of that very connection; requests on it need no signature, are served at once and answered in
 * order; a node that restarts is connected to again.
 */
class PeerSessionTest {

    private static final String SECRET = "a cluster secret of more than thirty-two bytes";
    private static final String OTHER_SECRET = "another secret of more than thirty-two bytes";

    @TempDir
    Path directory;

    private String secretFile() throws IOException {
        Path file = directory.resolve("cluster.secret");
        Files.writeString(file, SECRET + "\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        return file.toString();
    }

    private static ForwardSignature signer(String secret) {
        return new ForwardSignature(ClusterSecret.of(secret.getBytes(StandardCharsets.UTF_8)), Clock.systemUTC());
    }

    private static Peers.Request publish(String requestId, String order) {
        return new Peers.Request("POST", "/streams/orders?verbose=true", "application/json",
                ("{\"order_id\": \"" + order + "\", \"total\": 1}").getBytes(StandardCharsets.UTF_8), requestId, null);
    }

    /** A request on a raw connection, with {@code headers} and {@code body}, as bytes a test writes. */
    private static String raw(TestServer node, String path, Map<String, String> headers, String body) {
        StringBuilder text = new StringBuilder("POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1:"
                + node.server.uri().getPort() + "\r\nContent-Type: application/octet-stream\r\n");
        headers.forEach((name, value) -> text.append(name).append(": ").append(value).append("\r\n"));
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        return text.append("Content-Length: ").append(bytes.length).append("\r\n\r\n")
                .append(new String(bytes, StandardCharsets.ISO_8859_1)).toString();
    }

    /** The forward of {@code request} without a signature, as a node sends it on its session. */
    private static String unsigned(TestServer node, Peers.Request request) {
        Map<String, String> headers = new java.util.LinkedHashMap<>(ForwardSignature.unsignedHeaders(request));
        headers.put("X-Request-Id", request.requestId());
        return raw(node, PeerClient.FORWARD_PATH, headers, new String(request.body(), StandardCharsets.UTF_8));
    }

    /** Opens a session on {@code connection} with {@code secret}'s proof; returns the answer to the proof. */
    private static RawClient.Answer openSession(TestServer node, RawClient connection, String secret) {
        String nonce = ForwardSignature.nonce();
        connection.write(raw(node, PeerClient.SESSION_PATH, Map.of(ForwardSignature.SESSION_NONCE, nonce), ""));
        RawClient.Answer challenge = connection.read(10_000);
        assertThat(challenge.status()).as(challenge.head() + challenge.body()).isEqualTo(200);
        JsonNode body = json(challenge.body());
        String accepting = body.get("nonce").asText();
        assertThat(signer(SECRET).provesSession(body.get("proof").asText(), ForwardSignature.Side.ACCEPTING, nonce,
                accepting)).as("the node proves the secret first").isTrue();
        connection.write(raw(node, PeerClient.SESSION_PATH, Map.of(ForwardSignature.SESSION_PROOF,
                signer(secret).sessionProof(ForwardSignature.Side.CONNECTING, nonce, accepting)), ""));
        return connection.read(10_000);
    }

    private static JsonNode json(String text) {
        try {
            return TestServer.JSON.readTree(text);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void anUnauthenticatedOrForgedSessionIsRefusedAndItsRequestsWithIt() throws IOException {
        try (TestServer node = TestServer.start(directory.resolve("data"), "--cluster-secret-file", secretFile());
                RawClient noSession = new RawClient(node.server.uri());
                RawClient wrongSecret = new RawClient(node.server.uri());
                RawClient replayed = new RawClient(node.server.uri())) {
            // No session: an unsigned forward is refused.
            noSession.write(unsigned(node, publish("s-1", "a")));
            RawClient.Answer refused = noSession.read(10_000);
            assertThat(refused.status()).as(refused.body()).isEqualTo(401);
            assertThat(json(refused.body()).get("error").asText()).isEqualTo("cluster_auth_failed");

            // A proof made with another secret opens nothing, and the connection's forwards are still refused.
            RawClient.Answer forged = openSession(node, wrongSecret, OTHER_SECRET);
            assertThat(forged.status()).as(forged.body()).isEqualTo(401);
            assertThat(json(forged.body()).get("message").asText()).contains("session proof does not match");
            wrongSecret.write(unsigned(node, publish("s-2", "b")));
            assertThat(wrongSecret.read(10_000).status()).isEqualTo(401);

            // A proof alone, without a challenge on this connection (as one recorded on another would be), is refused.
            replayed.write(raw(node, PeerClient.SESSION_PATH, Map.of(ForwardSignature.SESSION_PROOF, signer(SECRET)
                    .sessionProof(ForwardSignature.Side.CONNECTING, ForwardSignature.nonce(),
                            ForwardSignature.nonce())), ""));
            RawClient.Answer unchallenged = replayed.read(10_000);
            assertThat(unchallenged.status()).isEqualTo(401);
            assertThat(json(unchallenged.body()).get("message").asText()).contains("no session is being opened");
            replayed.write(unsigned(node, publish("s-3", "c")));
            assertThat(replayed.read(10_000).status()).isEqualTo(401);
            assertThat(node.head("orders")).as("nothing was published").isEqualTo(0);
        }
        // A node whose secret differs: the client learns that the other node did not prove the secret.
        try (TestServer node = TestServer.start(directory.resolve("data2"), "--cluster-secret-file", secretFile())) {
            PeerClient stranger = new PeerClient(InterlaceConfig.defaults(), Optional.of(signer(OTHER_SECRET)));
            assertThatThrownBy(() -> stranger.send(node.server.uri().toString(), publish("s-4", "d")))
                    .isInstanceOf(IOException.class).hasMessageContaining("did not prove the cluster secret");
            assertThat(node.head("orders")).isEqualTo(0);
        }
    }

    @Test
    void requestsPipelinedOnASessionAreServedAtOnceAndAnsweredInOrder() throws IOException {
        try (TestServer node = TestServer.start(directory.resolve("data"), "--cluster-secret-file", secretFile());
                RawClient session = new RawClient(node.server.uri())) {
            RawClient.Answer opened = openSession(node, session, SECRET);
            assertThat(opened.status()).as(opened.body()).isEqualTo(200);
            // A long poll for the next event, then the publish of that event, in one write: served one after the
            // other, the poll would wait 25 s with nothing; served at once, the publish answers the poll.
            Peers.Request poll = new Peers.Request("GET", "/streams/orders/events?after=0&wait_ms=25000", null,
                    new byte[0], "poll-1", null);
            session.write(unsigned(node, poll) + unsigned(node, publish("pub-1", "p-1"))
                    + unsigned(node, publish("pub-2", "p-2")));
            RawClient.Answer first = session.read(30_000);
            assertThat(first).as("the long poll's answer").isNotNull();
            assertThat(first.head()).containsIgnoringCase("X-Request-Id: poll-1");
            // Both publishes are served at once too: either may be stored first.
            assertThat(json(first.body()).get("events")).hasSizeGreaterThanOrEqualTo(1);
            assertThat(json(first.body()).get("events").get(0).get("event").get("order_id").asText())
                    .isIn("p-1", "p-2");
            for (String id : List.of("pub-1", "pub-2")) {
                RawClient.Answer next = session.read(10_000);
                assertThat(next.status()).as(next.body()).isEqualTo(200);
                assertThat(next.head()).containsIgnoringCase("X-Request-Id: " + id);
            }
        }
        // The client pipelines too: every answer is its own request's.
        try (TestServer node = TestServer.start(directory.resolve("data2"), "--cluster-secret-file", secretFile())) {
            PeerClient client = new PeerClient(InterlaceConfig.defaults(), Optional.of(signer(SECRET)));
            List<CompletableFuture<Peers.Answer>> answers = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                answers.add(client.sendAsync(node.server.uri().toString(), publish("many-" + i, "m-" + i)));
            }
            for (int i = 0; i < 100; i++) {
                Peers.Answer answer = answers.get(i).join();
                assertThat(answer.status()).as(new String(answer.body(), StandardCharsets.UTF_8)).isEqualTo(200);
                assertThat(answer.headers().get("X-Request-Id")).isEqualTo("many-" + i);
                assertThat(json(new String(answer.body(), StandardCharsets.UTF_8)).get("request_id").asText())
                        .isEqualTo("many-" + i);
            }
            assertThat(node.head("orders")).isEqualTo(100);
        }
    }

    @Test
    void aNodeThatRestartsIsConnectedToAgain() throws IOException {
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        String[] flags = {"--cluster-secret-file", secretFile()};
        PeerClient client = new PeerClient(InterlaceConfig.defaults(), Optional.of(signer(SECRET)));
        String url = "http://127.0.0.1:" + port;
        try (TestServer node = TestServer.startOn(port, directory.resolve("data"), flags)) {
            assertThat(client.send(url, publish("before", "r-1")).status()).isEqualTo(200);
        }
        try (TestServer node = TestServer.startOn(port, directory.resolve("data"), flags)) {
            Peers.Answer after = Eventually.get("the restarted node answers", Duration.ofSeconds(20), () -> {
                try {
                    return client.send(url, publish("after", "r-2"));
                } catch (IOException e) {
                    return null; // the old connection's close may be seen only now
                }
            }, answer -> answer != null);
            assertThat(after.status()).as(new String(after.body(), StandardCharsets.UTF_8)).isEqualTo(200);
            assertThat(node.head("orders")).isEqualTo(2);
        }
    }
}
