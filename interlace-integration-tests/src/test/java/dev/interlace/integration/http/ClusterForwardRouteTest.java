package dev.interlace.integration.http;

import static dev.interlace.integration.ApiAnswer.assertError;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.inject.AbstractModule;
import com.google.inject.Module;
import com.google.inject.multibindings.OptionalBinder;
import dev.interlace.client.ErrorCode;
import dev.interlace.runtime.auth.KeyFile;
import dev.interlace.runtime.auth.Scope;
import dev.interlace.runtime.cluster.ForwardSignature;
import dev.interlace.runtime.cluster.Peers;
import dev.interlace.runtime.cluster.WarehouseNode;
import dev.interlace.runtime.config.ClusterSecret;
import dev.interlace.runtime.testing.Eventually;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The internal route {@code POST /_cluster/forward} of one node, and the forwarding headers a client may send on
 * any route: only a request signed with the cluster secret, fresh, is served as the request it carries; a client's
 * {@code Interlace-Forward-*} headers are never believed.
 */
class ClusterForwardRouteTest {

    private static final String SECRET = "a cluster secret of more than thirty-two bytes";

    @TempDir
    Path directory;

    private Path secretFile(String secret) throws IOException {
        Path file = directory.resolve("cluster-" + secret.length() + ".secret");
        Files.writeString(file, secret + "\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        return file;
    }

    private static ForwardSignature signer(String secret, Clock clock) {
        return new ForwardSignature(ClusterSecret.of(secret.getBytes(StandardCharsets.UTF_8)), clock);
    }

    private static TestServer.Response forward(TestServer server, Map<String, String> headers, byte[] body) {
        HttpRequest.Builder request = server.request("/_cluster/forward").header("Content-Type",
                "application/octet-stream").POST(HttpRequest.BodyPublishers.ofByteArray(body));
        headers.forEach(request::header);
        if (headers.containsKey(ForwardSignature.REQUEST_ID)) {
            request.header("X-Request-Id", headers.get(ForwardSignature.REQUEST_ID)); // as a node sends it
        }
        return server.send(request.build());
    }

    private static Peers.Request publish(String requestId, String body) {
        return new Peers.Request("POST", "/streams/orders?verbose=true", "application/json",
                body.getBytes(StandardCharsets.UTF_8), requestId, null);
    }

    @Test
    void aSignedFreshForwardIsServedAsTheRequestItCarriesUnderItsRequestId() throws IOException {
        try (TestServer node = TestServer.start(directory.resolve("data"), "--cluster-secret-file",
                secretFile(SECRET).toString())) {
            Peers.Request request = publish("fwd-1", "{\"order_id\": \"f-1\", \"total\": 1}");
            TestServer.Response served = forward(node, signer(SECRET, Clock.systemUTC()).headers(request),
                    request.body());
            assertThat(served.status()).as(String.valueOf(served.body())).isEqualTo(200);
            assertThat(served.body().get("accepted").asInt()).isEqualTo(1);
            assertThat(served.body().get("request_id").asText()).isEqualTo("fwd-1");
            assertThat(served.header("X-Request-Id")).isEqualTo("fwd-1");
            assertThat(node.head("orders")).isEqualTo(1);
        }
    }

    @Test
    void anUnsignedWronglySignedStaleOrNestedForwardIsRefusedClusterAuthFailed() throws IOException {
        try (TestServer node = TestServer.start(directory.resolve("data"), "--cluster-secret-file",
                secretFile(SECRET).toString())) {
            Peers.Request request = publish("fwd-2", "{\"order_id\": \"f-2\", \"total\": 1}");
            Map<String, String> signed = signer(SECRET, Clock.systemUTC()).headers(request);

            Map<String, String> unsigned = new java.util.HashMap<>(signed);
            unsigned.remove(ForwardSignature.SIGNATURE);
            Map<String, String> wrongSecret = signer("another secret of more than thirty-two bytes",
                    Clock.systemUTC()).headers(request);
            Map<String, String> stale = signer(SECRET, Clock.offset(Clock.systemUTC(), Duration.ofMinutes(-2)))
                    .headers(request);
            Map<String, String> otherTarget = new java.util.HashMap<>(signed);
            otherTarget.put(ForwardSignature.TARGET, "/streams/clicks");
            for (Map<String, String> headers : List.of(unsigned, wrongSecret, stale, otherTarget)) {
                TestServer.Response refused = forward(node, headers, request.body());
                assertThat(refused.status()).as(String.valueOf(refused.body())).isEqualTo(401);
                assertThat(refused.body().get("error").asText()).isEqualTo("cluster_auth_failed");
            }
            assertThat(forward(node, Map.of(), new byte[0]).body().get("message").asText())
                    .contains("carries no cluster signature");
            assertThat(forward(node, stale, request.body()).body().get("message").asText())
                    .contains("away from this node's clock");
            assertThat(forward(node, signed, "{\"order_id\": \"altered\"}".getBytes(StandardCharsets.UTF_8)).status())
                    .as("the body is signed too").isEqualTo(401);

            // A signed request whose inner request is itself a forward: the inner one carries no signature.
            Peers.Request nested = new Peers.Request("POST", "/_cluster/forward", "application/octet-stream",
                    request.body(), "fwd-3", null);
            TestServer.Response twice = forward(node, signer(SECRET, Clock.systemUTC()).headers(nested),
                    nested.body());
            assertError(twice, 401, ErrorCode.CLUSTER_AUTH_FAILED);
            assertThat(node.head("orders")).as("nothing was published").isEqualTo(0);
        }
    }

    @Test
    void aNodeWithoutAClusterSecretRefusesEveryForward() throws IOException {
        try (TestServer node = TestServer.start(directory.resolve("data"))) {
            Peers.Request request = publish("fwd-4", "{\"order_id\": \"f-4\", \"total\": 1}");
            TestServer.Response refused = forward(node, signer(SECRET, Clock.systemUTC()).headers(request),
                    request.body());
            assertError(refused, 401, ErrorCode.CLUSTER_AUTH_FAILED);
            assertThat(refused.body().get("message").asText()).contains("no cluster secret");
        }
    }

    @Test
    void forwardingHeadersFromAClientAreIgnoredOnEveryRoute() throws IOException {
        KeyFile.CreatedKey created;
        try (KeyFile keys = KeyFile.open(Files.createDirectories(directory.resolve("data")))) {
            created = keys.create("publisher", List.of(Scope.parse("publish")), 0);
        }
        String publishKey = created.secret();
        String keyId = created.key().id();
        try (TestServer node = TestServer.start(directory.resolve("data"), "--cluster-secret-file",
                secretFile(SECRET).toString())) {
            // A client claiming to be a forward from another node, on behalf of a key it does not have.
            HttpRequest.Builder forged = node.request("/streams/orders").header("Content-Type", "application/json")
                    .header(ForwardSignature.CALLER_KEY_ID, keyId).header(ForwardSignature.CALLER_KEY_NAME, "publisher")
                    .header(ForwardSignature.REQUEST_ID, "forged-1").header(ForwardSignature.TARGET, "/sql")
                    .header(ForwardSignature.SIGNATURE, "00").POST(HttpRequest.BodyPublishers.ofString(
                            "{\"order_id\": \"forged\", \"total\": 1}"));
            TestServer.Response refused = node.send(forged.build());
            assertError(refused, 401, ErrorCode.UNAUTHORIZED);

            // With a key of its own, the same forged headers are simply not there: an ordinary publish.
            TestServer.Response served = node.send(forged.header("Authorization", "Bearer " + publishKey)
                    .header("X-Request-Id", "plain-1").build());
            assertThat(served.status()).as(String.valueOf(served.body())).isEqualTo(200);
            assertThat(served.body().get("request_id").asText()).isEqualTo("plain-1");
            assertThat(served.body().get("accepted").asInt()).isEqualTo(1);
        }
    }

    @Test
    void aForwardedAnswerIsReservedAsItArrivesAndIs503OverloadedWhenItDoesNotFit() throws Exception {
        String secret = secretFile(SECRET).toString();
        try (TestServer warehouse = TestServer.start(directory.resolve("warehouse"), "--cluster-secret-file", secret);
                TestServer ingest = TestServer.startWith(directory.resolve("ingest"), TestServer.CATALOG,
                        List.of(warehouseAt(warehouse.server.uri().toString())), "--cluster-secret-file", secret,
                        "--max-inflight-bytes", "1000000")) {
            // About 1 MB of text from the warehouse's node: 3 MB to hold here, past what is left of the budget.
            String query = "SELECT repeat('x', 100000) || i AS wide FROM range(10) t(i)";
            RawClient holder = new RawClient(ingest.server.uri());
            // Reserves 4 × 200 000 bytes of the ingest node's budget, then sends nothing; its 100 Continue says so.
            holder.write("POST /streams/orders HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    + "Content-Length: 200000\r\nExpect: 100-continue\r\n\r\n");
            RawClient.Answer reserved = holder.read(10_000);
            assertThat(reserved).isNotNull();
            assertThat(reserved.status()).as(reserved.head()).isEqualTo(100);

            TestServer.Response refused = ingest.post("/sql", "text/plain", query);
            assertThat(refused.status()).as(start(refused)).isEqualTo(503);
            assertThat(refused.body().get("error").asText()).isEqualTo("overloaded");
            assertThat(refused.body().get("message").asText()).contains(warehouse.server.uri().toString());
            assertThat(refused.header("Retry-After")).isEqualTo("1");

            holder.close(); // its reservation goes with its connection
            TestServer.Response answered = Eventually.get("the query is no longer refused", Duration.ofSeconds(5),
                    () -> ingest.post("/sql", "text/plain", query), response -> response.status() != 503);
            assertThat(answered.status()).as(start(answered)).isEqualTo(200);
            assertThat(answered.body().get("rows")).hasSize(10);
        }
    }

    /** The start of an answer's body, for an assertion's message. */
    private static String start(TestServer.Response response) {
        String body = String.valueOf(response.body());
        return body.length() <= 300 ? body : body.substring(0, 300) + "…";
    }

    /** Binds the seam a node of a cluster reads the flushing node from, as the Kafka log does. */
    private static Module warehouseAt(String url) {
        WarehouseNode flushing = new WarehouseNode() {
            @Override
            public List<String> urls() {
                return url == null ? List.of() : List.of(url);
            }

            @Override
            public Optional<Flushing> flushing(String stream) {
                return Optional.empty();
            }

            @Override
            public List<Replica> replicas() {
                return List.of();
            }
        };
        return new AbstractModule() {
            @Override
            protected void configure() {
                OptionalBinder.newOptionalBinder(binder(), WarehouseNode.class).setBinding().toInstance(flushing);
            }
        };
    }

    @Test
    void warehouseRoutesAreForwardedToTheFlushingNodeAndServedHereWhileNoneFlushes() throws Exception {
        String secret = secretFile(SECRET).toString();
        try (TestServer warehouse = TestServer.start(directory.resolve("warehouse"), "--cluster-secret-file", secret);
                TestServer ingest = TestServer.startWith(directory.resolve("ingest"), TestServer.CATALOG,
                        List.of(warehouseAt(warehouse.server.uri().toString())), "--cluster-secret-file", secret);
                TestServer orphan = TestServer.startWith(directory.resolve("orphan"), TestServer.CATALOG,
                        List.of(warehouseAt(null)), "--cluster-secret-file", secret);
                TestServer unreachable = TestServer.startWith(directory.resolve("unreachable"), TestServer.CATALOG,
                        List.of(warehouseAt("http://127.0.0.1:" + closedPort())), "--cluster-secret-file", secret);
                TestServer mismatched = TestServer.startWith(directory.resolve("mismatched"), TestServer.CATALOG,
                        List.of(warehouseAt(warehouse.server.uri().toString())), "--cluster-secret-file",
                        secretFile("another secret, also of more than thirty-two bytes").toString())) {
            assertThat(warehouse.postJson("/streams/orders", "{\"order_id\": \"w-1\", \"total\": 1}").status())
                    .isEqualTo(200);
            warehouse.awaitFlushed("orders");

            TestServer.Response csv = ingest.send(ingest.request("/sql").header("Content-Type", "text/plain")
                    .header("Accept", "text/csv").header("X-Request-Id", "sql-1")
                    .POST(HttpRequest.BodyPublishers.ofString("SELECT order_id FROM streams.orders")).build());
            assertThat(csv.status()).as(String.valueOf(csv.body())).isEqualTo(200);
            assertThat(csv.header("Content-Type")).startsWith("text/csv");
            assertThat(csv.body().asText()).as("the warehouse's rows, not the ingest node's empty table")
                    .contains("w-1");
            assertThat(csv.header("X-Request-Id")).isEqualTo("sql-1");
            TestServer.Response unknownRun = ingest.get("/runs/run-nope");
            assertThat(unknownRun.status()).isEqualTo(404);
            assertThat(unknownRun.body().get("error").asText()).isEqualTo(warehouse.get("/runs/run-nope").body()
                    .get("error").asText());
            assertThat(ingest.get("/streams/orders").body().get("head").asLong())
                    .as("routes placed anywhere are served by the node itself").isEqualTo(0);

            // No node flushes: a node with a warehouse of its own answers from it (an ingest node, which has none,
            // answers 503 no_warehouse: KafkaRolesTest).
            TestServer.Response none = orphan.post("/sql", "text/plain", "SELECT 1");
            assertThat(none.status()).as(String.valueOf(none.body())).isEqualTo(200);
            assertThat(orphan.get("/runs").status()).isEqualTo(200);

            TestServer.Response gone = unreachable.send(unreachable.request("/models").header("X-Request-Id",
                    "gone-1").GET().build());
            assertError(gone, 503, ErrorCode.PEER_UNAVAILABLE);
            assertThat(gone.body().get("message").asText()).contains("http://127.0.0.1:");
            assertThat(gone.body().get("request_id").asText()).isEqualTo("gone-1");
            assertThat(gone.header("Retry-After")).isNotNull();

            // Nodes that do not share the secret: the client did nothing wrong, so it is no 401 for the client.
            TestServer.Response refusedSignature = mismatched.get("/models");
            assertError(refusedSignature, 503, ErrorCode.PEER_UNAVAILABLE);
            assertThat(refusedSignature.body().get("message").asText()).contains("did not prove the cluster secret",
                    "share the same --cluster-secret-file");
        }
    }

    @Test
    void aForwardedGzipBodyIsServedWithItsEncoding() throws IOException {
        try (TestServer node = TestServer.start(directory.resolve("data"), "--cluster-secret-file",
                secretFile(SECRET).toString())) {
            java.io.ByteArrayOutputStream gzipped = new java.io.ByteArrayOutputStream();
            try (java.util.zip.GZIPOutputStream gzip = new java.util.zip.GZIPOutputStream(gzipped)) {
                gzip.write("{\"order_id\": \"z-1\", \"total\": 1}".getBytes(StandardCharsets.UTF_8));
            }
            Peers.Request request = new Peers.Request("POST", "/streams/orders", "application/json",
                    gzipped.toByteArray(), "gz-1", null, null, "gzip", null);
            TestServer.Response served = forward(node, signer(SECRET, Clock.systemUTC()).headers(request),
                    request.body());
            assertThat(served.status()).as(String.valueOf(served.body())).isEqualTo(200);
            assertThat(served.body().get("accepted").asInt()).isEqualTo(1);
        }
    }

    private static int closedPort() throws IOException {
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
