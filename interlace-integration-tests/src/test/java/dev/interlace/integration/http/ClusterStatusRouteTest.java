package dev.interlace.integration.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code GET /cluster} on the SQLite log: one node, its one warehouse and how far behind each stream it is. */
class ClusterStatusRouteTest {

    @TempDir
    Path directory;

    @Test
    void oneServerIsOneNodeWithOneWarehouse() {
        try (TestServer server = TestServer.start(directory)) {
            assertThat(server.postJson("/streams/orders", "[{\"order_id\": \"a\", \"total\": 1},"
                    + " {\"order_id\": \"b\", \"total\": 2}]").status()).isEqualTo(200);
            server.awaitFlushed("orders");

            TestServer.Response answer = server.get("/cluster");
            assertThat(answer.status()).as(String.valueOf(answer.body())).isEqualTo(200);
            JsonNode cluster = answer.body();
            assertThat(cluster.get("log").asText()).isEqualTo("sqlite");
            assertThat(cluster.get("nodes")).hasSize(1);
            JsonNode node = cluster.get("nodes").get(0);
            assertThat(node.get("url").asText()).isEqualTo(server.server.uri().toString());
            assertThat(node.get("role").asText()).isEqualTo("all");
            assertThat(node.get("self").asBoolean()).isTrue();
            assertThat(node.get("sequences").toString()).contains("\"orders\"");
            assertThat(cluster.get("streams").get("orders").get("head").asLong()).isEqualTo(2);
            assertThat(cluster.get("replicas")).hasSize(1);
            JsonNode warehouse = cluster.get("replicas").get(0);
            assertThat(warehouse.get("replica").asText()).isEqualTo("local");
            assertThat(warehouse.get("live").asBoolean()).isTrue();
            assertThat(warehouse.get("dropped").asBoolean()).isFalse();
            assertThat(warehouse.get("streams").get("orders").toString()).isEqualTo("{\"watermark\":2,\"lag\":0}");
        }
    }
}
