package dev.interlace.integration.kafka;

import static dev.interlace.integration.kafka.NodeFixtures.rows;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.interlace.runtime.backup.BackupManifest;
import dev.interlace.runtime.backup.Restore;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * An online backup of a node on the Kafka log holds its warehouse (not the events: they are in the cluster), and a
 * node restored from it catches up from the log, from the manifest's positions, exactly once.
 */
class KafkaBackupTest extends KafkaNodeTest {

    KafkaBackupTest() {
        super("backup");
    }

    @Test
    void aNodeRestoredFromABackupCatchesUpFromTheLogFromTheManifestsPositions() throws Exception {
        Path backup = directory.resolve("backup");
        try (ServeNode node = node("node", "--backup-root",
                directory.toString())) {
            assertThat(node.publish("orders", "[{\"order_id\": \"a\", \"total\": 1}, {\"order_id\": \"b\","
                    + " \"total\": 2}]").status()).as(node.output()).isEqualTo(200);
            node.await("/streams/orders", body -> body.get("pending").asLong() == 0);

            ServeNode.Response answer = node.post("/admin/backup", "application/json",
                    "{\"to\": \"" + backup + "\"}");
            assertThat(answer.status()).as(answer.body().toString()).isEqualTo(200);
            assertThat(answer.body().get("log").asText()).isEqualTo("kafka");
            assertThat(answer.body().get("files").findValuesAsText("name")).contains("warehouse.duckdb")
                    .doesNotContain("log.sqlite");
            // Acknowledged after the backup: in the cluster, not in the backup's warehouse.
            assertThat(node.publish("orders", "[{\"order_id\": \"c\", \"total\": 3}, {\"order_id\": \"d\","
                    + " \"total\": 4}]").status()).isEqualTo(200);
            node.await("/streams/orders", body -> body.get("pending").asLong() == 0);
            node.stop();
        }
        BackupManifest.Positions positions = BackupManifest.readFrom(backup).streams().get("orders");
        assertThat(positions.flushed()).isEqualTo(2);

        Path restored = directory.resolve("restored");
        Restore.restore(backup, restored);
        try (ServeNode node = node(restored)) {
            JsonNode stream = node.await("/streams/orders", body -> body.get("watermark").asLong() == 4);
            assertThat(stream.get("pending").asLong()).as(node.output()).isZero();
            assertThat(rows(node, "SELECT count(*), count(DISTINCT order_id), min(_offset), max(_offset)"
                    + " FROM streams.orders")).containsExactly("[4,4,1,4]");
            node.stop();
        }
    }
}
