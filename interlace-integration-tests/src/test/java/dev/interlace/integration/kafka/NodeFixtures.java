package dev.interlace.integration.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * What the tests of {@link ServeNode}s on a Kafka log share: a topic prefix of their own, the cluster secret file
 * (which the SQLite-log cluster tests use too), flags, orders to publish and the parts of the answers they compare.
 */
public final class NodeFixtures {

    private NodeFixtures() {}

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
