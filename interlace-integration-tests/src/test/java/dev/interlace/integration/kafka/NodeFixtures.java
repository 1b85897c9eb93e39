package dev.interlace.integration.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.inject.AbstractModule;
import com.google.inject.Module;
import com.google.inject.Provides;
import dev.interlace.runtime.Interlace;
import dev.interlace.runtime.config.ConfigLoader;
import dev.interlace.runtime.model.ModelDefinition;
import dev.interlace.runtime.stream.StreamCatalog;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * What the tests of {@link ServeNode}s on a Kafka log share: a topic prefix of their own, the cluster secret file
 * (which the SQLite-log cluster tests use too), flags, orders to publish and the parts of the answers they compare;
 * and, for the tests that build their streams at run time, nodes in the test's own JVM.
 */
public final class NodeFixtures {

    private static final ObjectMapper JSON = new ObjectMapper();

    private NodeFixtures() {}

    /**
     * Starts Interlace in this JVM on a free loopback port (advertised as such) and the Kafka log at {@code bootstrap}
     * under {@code prefix} (one replica a topic), with {@code flags} added (its data directory, role, ...) and an
     * empty environment. It serves {@code catalog}'s streams and no models (the class path's read other streams), with
     * {@code overrides} of its modules (test faults).
     */
    public static Interlace inProcessNode(StreamCatalog catalog, String bootstrap, String prefix, List<String> flags,
            Module... overrides) throws IOException {
        int port = freePort();
        List<String> args = new ArrayList<>(List.of("--port", Integer.toString(port), "--advertise-url",
                "http://127.0.0.1:" + port, "--log", "kafka", "--kafka-bootstrap", bootstrap, "--kafka-topic-prefix",
                prefix, "--kafka-replication-factor", "1", "--kafka-min-insync-replicas", "1"));
        args.addAll(flags);
        return Interlace.builder().config(ConfigLoader.load(args.toArray(String[]::new), Map.of()).config())
                .catalog(catalog).override(new AbstractModule() {
                    @Provides
                    List<ModelDefinition> definitions() {
                        return List.of();
                    }
                }).override(overrides).start();
    }

    /** A port of the loopback address nothing listens on just now. */
    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    /** {@code GET path} on {@code node} with {@code http}, its body as JSON. */
    static JsonNode getJson(HttpClient http, URI node, String path) {
        try {
            return JSON.readTree(http.send(HttpRequest.newBuilder(node.resolve(path)).build(),
                    HttpResponse.BodyHandlers.ofString()).body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** A topic prefix no other test (or run) uses: {@code <test>-<8 random hex digits>.}. */
    static String prefix(String test) {
        return test + "-" + UUID.randomUUID().toString().substring(0, 8) + ".";
    }

    /** Writes {@code secret} as the cluster secret file in {@code directory}, readable by its owner only. */
    public static Path clusterSecret(Path directory, String secret) throws IOException {
        Path file = directory.resolve("cluster.secret");
        Files.writeString(file, secret + "\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        return file;
    }

    /** {@code flags} followed by {@code more}. */
    static String[] with(String[] flags, String... more) {
        List<String> all = new ArrayList<>(List.of(flags));
        all.addAll(List.of(more));
        return all.toArray(String[]::new);
    }

    /** Orders {@code o<first>} through {@code o<last>} as one JSON array. */
    static String orders(int first, int last) {
        List<String> orders = new ArrayList<>();
        for (int i = first; i <= last; i++) {
            orders.add("{\"order_id\": \"o" + i + "\", \"total\": " + i + "}");
        }
        return "[" + String.join(", ", orders) + "]";
    }

    /** The offsets of a publish's answer, one per event. */
    static List<Long> offsets(JsonNode body) {
        List<Long> offsets = new ArrayList<>();
        body.get("results").forEach(result -> offsets.add(result.get("offset").asLong()));
        return offsets;
    }

    /** The rows {@code query} reads on {@code node} (which must answer 200), each as JSON text. */
    static List<String> rows(ServeNode node, String query) {
        ServeNode.Response answer = node.sql(query);
        assertThat(answer.status()).as(answer.body().toString()).isEqualTo(200);
        return rows(answer);
    }

    /** The rows of a {@code POST /sql} answer, each as JSON text. */
    static List<String> rows(ServeNode.Response answer) {
        List<String> rows = new ArrayList<>();
        answer.body().get("rows").forEach(row -> rows.add(row.toString()));
        return rows;
    }
}
