package dev.interlace.integration.kafka;

import static dev.interlace.integration.ApiAnswer.assertError;
import static dev.interlace.integration.kafka.NodeFixtures.offsets;
import static dev.interlace.integration.kafka.NodeFixtures.rows;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.interlace.client.ErrorCode;
import dev.interlace.log.kafka.testing.KafkaCluster;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;

/**
 * {@code serve --log kafka} end to end on one broker: publishes answered after the Kafka commit, materialised in
 * DuckDB exactly once, deduplicated across a restart of the server; and the sequencer of a stream, shown by
 * {@code GET /streams/{name}}, passing from one node to another.
 */
class KafkaServeTest extends KafkaNodeTest {

    KafkaServeTest() {
        super("e2e");
    }

    @Test
    void publishesAreMaterialisedOnceAndDeduplicatedAcrossARestart() throws Exception {
        Path data = directory.resolve("node");
        try (ServeNode node = node(data)) {
            ServeNode.Response first = node.publish("orders", TWO_ORDERS);
            assertThat(first.status()).as(node.output()).isEqualTo(200);
            assertThat(first.body().get("accepted").asInt()).isEqualTo(2);
            assertThat(first.body().get("last_offset").asLong()).isEqualTo(2);

            ServeNode.Response retry = node.publish("orders", TWO_ORDERS);
            assertThat(retry.status()).isEqualTo(200);
            assertThat(retry.body().get("deduplicated").asInt()).isEqualTo(2);
            assertThat(offsets(retry.body())).containsExactly(1L, 2L);

            JsonNode stream = node.await("/streams/orders", body -> body.get("pending").asLong() == 0);
            assertThat(stream.get("sequencer").asText()).isEqualTo(node.uri.toString());
            assertThat(stream.get("head").asLong()).isEqualTo(2);
            assertThat(stream.get("watermark").asLong()).isEqualTo(2);
            assertThat(rows(node, "SELECT order_id, count(*) FROM streams.orders GROUP BY order_id ORDER BY 1"))
                    .containsExactly("[\"a\",1]", "[\"b\",1]");
            node.stop();
        }

        try (ServeNode restarted = node(data)) {
            ServeNode.Response retry = restarted.publish("orders", TWO_ORDERS);
            assertThat(retry.status()).as(restarted.output()).isEqualTo(200);
            assertThat(retry.body().get("deduplicated").asInt()).isEqualTo(2);
            assertThat(offsets(retry.body())).as("the original offsets").containsExactly(1L, 2L);

            String trace = "4bf92f3577b34da6a3ce929d0e0e4736";
            ServeNode.Response next = restarted.post("/streams/orders", "application/json",
                    "{\"order_id\": \"c\", \"total\": 3}", "traceparent", "00-" + trace + "-00f067aa0ba902b7-01",
                    "X-Request-Id", "traced-c");
            assertThat(next.status()).isEqualTo(200);
            assertThat(next.body().get("last_offset").asLong()).as("offsets continue densely").isEqualTo(3);

            restarted.await("/streams/orders", body -> body.get("pending").asLong() == 0);
            assertThat(rows(restarted, "SELECT count(*), count(DISTINCT order_id), min(_offset), max(_offset)"
                    + " FROM streams.orders")).containsExactly("[3,3,1,3]");
            JsonNode flushes = restarted.get("/correlate?request_id=traced-c").body().get("flushes").get("items");
            assertThat(flushes).as("the flush of offset 3 keeps the request's trace id").isNotEmpty();
            for (JsonNode flush : flushes) {
                assertThat(flush.get("trace_ids").toString()).contains(trace);
            }
            restarted.stop();
        }
    }

    @Test
    void anotherNodeAnswersNoSequencerUntilItTakesTheStreamOverAndThenKeepsTheOffsetsAndKeys() throws Exception {
        try (ServeNode first = node("first");
                ServeNode second = node("second")) {
            // The group spreads the streams over both nodes; whichever holds orders, both say which one it is.
            JsonNode described = first.await("/streams/orders", body -> !body.path("sequencer").isNull()
                    && !body.path("sequencer").isMissingNode());
            ServeNode holder = described.get("sequencer").asText().equals(first.uri.toString()) ? first : second;
            ServeNode other = holder == first ? second : first;
            assertThat(described.get("sequencer").asText()).as(first.output()).isEqualTo(holder.uri.toString());
            assertThat(other.await("/streams/orders", body -> holder.uri.toString()
                    .equals(body.path("sequencer").asText(null))).get("sequencer").asText())
                    .isEqualTo(holder.uri.toString());

            ServeNode.Response accepted = holder.publish("orders", TWO_ORDERS);
            assertThat(accepted.status()).as(holder.output()).isEqualTo(200);
            ServeNode.Response refused = other.publish("orders", "{\"order_id\": \"c\", \"total\": 3}");
            assertError(refused, 503, ErrorCode.NO_SEQUENCER);
            assertThat(refused.body().get("message").asText()).contains(holder.uri.toString());
            assertThat(refused.header("Retry-After")).isNotNull();

            holder.kill();
            long killedAt = System.nanoTime();
            // Until the group notices (the session timeout), nobody sequences the stream.
            ServeNode.Response during = other.publish("orders", "{\"order_id\": \"c\", \"total\": 3}");
            if (during.status() == 503) {
                assertThat(during.body().get("error").asText()).isEqualTo("no_sequencer");
                assertThat(during.header("Retry-After")).isNotNull();
            }
            JsonNode taken = other.await("/streams/orders", body -> other.uri.toString()
                    .equals(body.path("sequencer").asText(null)));
            long takeoverMillis = (System.nanoTime() - killedAt) / 1_000_000;
            assertThat(taken.get("sequencer").asText()).as(other.output()).isEqualTo(other.uri.toString());
            System.out.println("takeover after SIGKILL of the holder: " + takeoverMillis + " ms");
            assertThat(takeoverMillis).as("takeover within ten seconds with default settings").isLessThan(10_000);

            ServeNode.Response retry = other.publish("orders", TWO_ORDERS);
            assertThat(retry.status()).as(other.output()).isEqualTo(200);
            assertThat(offsets(retry.body())).as("deduplicated with the original offsets").containsExactly(1L, 2L);
            ServeNode.Response next = other.publish("orders", "{\"order_id\": \"c\", \"total\": 3}");
            assertThat(next.status()).isEqualTo(200);
            assertThat(next.body().get("last_offset").asLong()).isEqualTo(3);
        }
    }

    @Test
    void aStreamTopicWithSeveralPartitionsStopsServeWithExitTwoAndSaysWhatToDo() throws Exception {
        try (Admin admin = KafkaCluster.shared().admin()) {
            admin.createTopics(List.of(new NewTopic(prefix + "orders", 2, (short) 1))).all()
                    .get(30, TimeUnit.SECONDS);
        }
        String refused = ServeNode.refusedStart(directory.resolve("node"), bootstrap, prefix);
        assertThat(refused).startsWith("exit 2\n").contains("Kafka topic " + prefix + "orders has 2 partitions;"
                + " the Interlace log needs exactly 1");
    }

    @Test
    void aPageOfEventsLargerThanABatchIsStreamedWholeFromKafka() throws Exception {
        try (ServeNode node = node("node")) {
            // Six events of about 300 KB: more than one batch of a streamed page (1 MiB), so it comes chunked.
            StringBuilder events = new StringBuilder("[");
            for (int i = 0; i < 6; i++) {
                events.append(i == 0 ? "" : ",").append("{\"order_id\": \"big-").append(i)
                        .append("\", \"total\": 1, \"meta\": {\"note\": \"")
                        .append("0123456789abcdef".repeat(300_000 / 16)).append("\"}}");
            }
            ServeNode.Response published = node.publish("orders", events.append(']').toString());
            assertThat(published.status()).as(node.output()).isEqualTo(200);

            ServeNode.Response page = node.get("/streams/orders/events?after=0&limit=100");
            assertThat(page.status()).as(node.output()).isEqualTo(200);
            assertThat(page.header("Transfer-Encoding")).isEqualTo("chunked");
            assertThat(page.body().get("count").asInt()).isEqualTo(6);
            assertThat(page.body().get("next_after").asLong()).isEqualTo(6);
            for (int i = 0; i < 6; i++) {
                assertThat(page.body().get("events").get(i).get("event").get("order_id").asText())
                        .isEqualTo("big-" + i);
            }

            ServeNode.Response stream = node.get("/streams/orders");
            assertThat(stream.status()).isEqualTo(200);
            assertThat(stream.body().get("recent")).hasSize(6);
            assertThat(stream.body().get("recent").get(0).get("offset").asLong()).as("newest first").isEqualTo(6);
            assertThat(stream.body().get("recent_unavailable").isNull()).isTrue();
            node.stop();
        }
    }
}
