package dev.interlace.integration.kafka;

import static dev.interlace.integration.kafka.NodeFixtures.orders;
import static dev.interlace.integration.kafka.NodeFixtures.rows;
import static dev.interlace.integration.kafka.NodeFixtures.with;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code serve --role ingest} and {@code --role warehouse} on one broker: the ingest node sequences and answers
 * publishes with no warehouse of its own, refusing past {@code --max-pending} while nothing flushes; the warehouse
 * node, which sequences nothing, leases the streams through the ingest node and materialises every event exactly
 * once, also the backlog that piled up while it was killed.
 */
class KafkaRolesTest extends KafkaNodeTest {

    KafkaRolesTest() {
        super("roles");
    }

    @Test
    void theWarehouseNodeMaterialisesWhatTheIngestNodeAcceptedExactlyOnceAcrossItsDeath() throws Exception {
        String[] cluster = clusterFlags();

        try (ServeNode ingest = node("ingest", with(cluster, "--role", "ingest", "--max-pending", "6"))) {
            assertThat(ingest.publish("orders", orders(1, 3)).status()).as(ingest.output()).isEqualTo(200);
            assertThat(ingest.publish("orders", orders(4, 6)).status()).isEqualTo(200);

            ServeNode.Response refused = ingest.publish("orders", orders(7, 7));
            assertThat(refused.status()).as("nothing flushes: the backlog is full").isEqualTo(429);
            assertThat(refused.body().get("error").asText()).isEqualTo("backpressure");
            JsonNode waiting = ingest.get("/streams/orders").body();
            assertThat(waiting.get("sequencer").asText()).isEqualTo(ingest.uri.toString());
            assertThat(waiting.get("pending").asLong()).isEqualTo(6);
            assertThat(waiting.get("flush_state").asText()).isEqualTo("standby");
            assertThat(waiting.get("flush_error").asText()).contains("no node flushes stream orders");
            assertThat(directory.resolve("ingest").resolve("warehouse.duckdb")).as("no DuckDB on an ingest node")
                    .doesNotExist();
            ServeNode.Response noWarehouse = ingest.sql("SELECT 1");
            assertThat(noWarehouse.status()).as(String.valueOf(noWarehouse.body())).isEqualTo(503);
            assertThat(noWarehouse.body().get("error").asText()).isEqualTo("no_warehouse");
            assertThat(noWarehouse.header("Retry-After")).isNotNull();
            assertThat(waiting.get("warehouse").asText()).isEqualTo("remote");
            assertThat(waiting.get("flushed_by").isNull()).as(waiting.toString()).isTrue();

            Path warehouseData = directory.resolve("warehouse");
            try (ServeNode warehouse = node(warehouseData, with(cluster, "--role", "warehouse"))) {
                JsonNode flushed = warehouse.await("/streams/orders", body -> body.get("watermark").asLong() == 6);
                assertThat(flushed.get("watermark").asLong()).as(flushed + "\n" + warehouse.output()).isEqualTo(6);
                assertThat(flushed.get("sequencer").asText()).as("the warehouse node sequences nothing")
                        .isEqualTo(ingest.uri.toString());
                assertThat(flushed.get("flush_state").asText()).as("it holds the flush lease")
                        .isIn("idle", "flushing");
                assertThat(rows(warehouse, "SELECT count(*), count(DISTINCT order_id) FROM streams.orders"))
                        .containsExactly("[6,6]");
                assertThat(rows(ingest, "SELECT count(*), count(DISTINCT order_id) FROM streams.orders"))
                        .as("the ingest node forwards /sql to the holder of the flush leases").containsExactly("[6,6]");
                for (ServeNode node : List.of(ingest, warehouse)) {
                    ServeNode.Response taken = post(node, "/streams/orders/consumers/__flusher/lease",
                            "{\"owner\": \"intruder\", \"ttl_ms\": 60000}");
                    assertThat(taken.status()).as("no client takes the flusher's lease").isEqualTo(400);
                    assertThat(taken.body().get("error").asText()).isEqualTo("reserved_group");
                }

                // The flusher commits its watermark to the stream's __flusher group, which the ingest node reads.
                JsonNode drained = ingest.await("/streams/orders", body -> body.get("pending").asLong() == 0);
                assertThat(drained.get("pending").asLong()).as(ingest.output()).isZero();
                assertThat(drained.get("flush_error").asText()).contains("flushed by " + warehouse.uri);
                assertThat(drained.get("flushed_by").asText()).isEqualTo(warehouse.uri.toString());
                assertThat(drained.get("watermark").asLong()).as("the warehouse node's, where its queries go")
                        .isEqualTo(6);
                assertThat(ingest.publish("orders", orders(7, 7)).status()).as("accepted again").isEqualTo(200);
                warehouse.await("/streams/orders", body -> body.get("watermark").asLong() == 7);

                warehouse.kill();
            }

            // No warehouse node: ingestion goes on (the backlog stays within --max-pending). The new warehouse node
            // has another URL, so it takes the streams over once the dead node's flush leases expire.
            for (int order = 8; order <= 12; order++) {
                ServeNode.Response accepted = ingest.publish("orders", orders(order, order));
                assertThat(accepted.status()).as(accepted.body().toString()).isEqualTo(200);
            }

            try (ServeNode restarted = node(warehouseData, with(cluster, "--role", "warehouse"))) {
                JsonNode caughtUp = restarted.await("/streams/orders", body -> body.get("watermark").asLong() == 12);
                assertThat(caughtUp.get("watermark").asLong()).as(restarted.output()).isEqualTo(12);
                assertThat(rows(restarted, "SELECT count(*), count(DISTINCT order_id), min(_offset), max(_offset)"
                        + " FROM streams.orders")).as("the backlog, exactly once").containsExactly("[12,12,1,12]");
                restarted.stop();
            }
        }
    }

    private static ServeNode.Response post(ServeNode node, String path, String json) throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(node.uri.resolve(path))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json)).build(),
                HttpResponse.BodyHandlers.ofString());
        return new ServeNode.Response(response.statusCode(), response.headers(),
                ServeNode.JSON.readTree(response.body()));
    }
}
