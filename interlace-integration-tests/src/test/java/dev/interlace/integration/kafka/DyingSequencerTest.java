package dev.interlace.integration.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.interlace.runtime.health.ComponentHealth;
import dev.interlace.runtime.testing.Eventually;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A sequencer whose thread dies on an error that is not the virtual machine's is never silent: the node's
 * {@code /health/live} and {@code /health/ready} answer 503 naming the sequencer, its stream and the cause, a
 * {@code component_failed} record is written, and the process exits with status 4 so that a supervisor restarts it;
 * the restarted node serves the stream again with everything acknowledged before.
 */
class DyingSequencerTest extends KafkaNodeTest {

    DyingSequencerTest() {
        super("dying");
    }

    @Test
    void aSequencerThatDiesFailsHealthLeavesARecordAndEndsTheProcessWithStatus4() throws Exception {
        ServeNode node = ServeNode.startWithDyingSequencer(directory.resolve("node"), bootstrap, prefix);
        try {
            assertThat(node.publish("orders", "{\"order_id\":\"o-1\"}").status()).isEqualTo(200);
            // Acknowledged, then the sequencer's thread dies telling the listeners of the commit.
            ServeNode.Response click = node.publish("clicks",
                    "{\"click_id\":\"c-1\",\"url\":\"/\",\"at\":\"2026-12-05T10:00:00Z\"}");
            assertThat(click.status()).as(click.body().toString()).isEqualTo(200);

            JsonNode live = awaitLive503(node);
            JsonNode failure = live.get("components").get(0);
            assertThat(failure.get("component").asText()).isEqualTo("kafka-sequencer");
            assertThat(failure.get("stream").asText()).isEqualTo("clicks");
            assertThat(failure.get("fate").asText()).isEqualTo("dead");
            assertThat(failure.get("cause").asText()).contains(SequencerFaultServeMain.MESSAGE);
            ServeNode.Response ready = node.get("/health/ready");
            assertThat(ready.status()).isEqualTo(503);
            assertThat(ready.body().get("reasons").toString())
                    .contains("component_failed: kafka-sequencer (stream clicks)");
            JsonNode records = node.get("/logs/sys?event=component_failed").body().get("records");
            assertThat(records).as(node.output()).isNotEmpty();
            assertThat(records.get(0).get("message").asText()).contains("kafka-sequencer")
                    .contains(SequencerFaultServeMain.MESSAGE);

            assertThat(node.awaitExit(120)).as(node.output()).isEqualTo(ComponentHealth.EXIT_STATUS);
            assertThat(node.output()).contains("exiting with status " + ComponentHealth.EXIT_STATUS);

            ServeNode restarted = node.restart();
            node = restarted;
            assertThat(awaitRows(restarted, "clicks", 1)).isEqualTo(1);
            assertThat(awaitRows(restarted, "orders", 1)).isEqualTo(1);
            assertThat(restarted.get("/logs/sys?event=component_exit").body().get("records")).isNotEmpty();
        } finally {
            node.close();
        }
    }

    private static JsonNode awaitLive503(ServeNode node) throws InterruptedException {
        ServeNode.Response live = Eventually.get("/health/live answers 503",
                Duration.ofSeconds(SequencerFaultServeMain.EXIT_AFTER_MS / 1_000), () -> node.get("/health/live"),
                response -> response.status() == 503);
        assertThat(live.status()).as(node.output()).isEqualTo(503);
        return live.body();
    }

    private static long awaitRows(ServeNode node, String stream, long expected) throws InterruptedException {
        return Eventually.get(stream + " holds " + expected + " rows", Duration.ofSeconds(90), () -> {
            ServeNode.Response answer = node.sql("SELECT count(*) FROM streams." + stream);
            return answer.status() == 200 ? answer.body().get("rows").get(0).get(0).asLong() : -1L;
        }, rows -> rows >= expected);
    }
}
