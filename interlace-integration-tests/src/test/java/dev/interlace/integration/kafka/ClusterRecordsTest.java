package dev.interlace.integration.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code GET /logs/api}, {@code /logs/sys} and {@code /correlate} on a Kafka-log cluster answer for every node: each
 * node's refused requests and system records are asked for and merged, a forwarded request is listed once (by the
 * node the client sent it to, naming the node that served it), and a node that does not answer is named, the answer
 * then incomplete.
 */
class ClusterRecordsTest extends KafkaNodeTest {

    ClusterRecordsTest() {
        super("records");
    }

    @Test
    void eitherNodeListsEveryNodesRequestsOnceAndNamesANodeThatDoesNotAnswer() throws Exception {
        String[] cluster = clusterFlags();
        try (ServeNode first = node("first", cluster);
                ServeNode second = node("second", cluster)) {
            ServeNode holder = ForwardingTest.holderOf("orders", first, second);
            ServeNode other = holder == first ? second : first;
            String firstUrl = first.uri.toString();
            String secondUrl = second.uri.toString();

            assertThat(first.post("/streams/no_such_stream", "application/json", "{}", "X-Request-Id",
                    "refused-on-first").status()).isEqualTo(404);
            assertThat(second.post("/streams/no_such_stream", "application/json", "{}", "X-Request-Id",
                    "refused-on-second").status()).isEqualTo(404);
            ServeNode.Response forwarded = other.post("/streams/orders", "application/json", TWO_ORDERS,
                    "X-Request-Id", "forwarded-publish");
            assertThat(forwarded.status()).as(String.valueOf(forwarded.body())).isEqualTo(200);
            assertThat(forwarded.header("Interlace-Served-By")).isEqualTo(holder.uri.toString());
            ServeNode.Response invalid = other.post("/streams/orders", "application/json", "{\"order_id\": ",
                    "X-Request-Id", "forwarded-invalid");
            assertThat(invalid.status()).as(String.valueOf(invalid.body())).isEqualTo(400);
            assertThat(holder.post("/streams/orders", "application/json", "{\"order_id\": \"c\", \"total\": 3}",
                    "X-Request-Id", "direct-publish").status()).isEqualTo(200);

            List<String> everyRequest = List.of("refused-on-first", "refused-on-second", "forwarded-publish",
                    "forwarded-invalid", "direct-publish");
            for (ServeNode asked : List.of(first, second)) {
                // The publish records reach each node through the log: wait until both publishes are there.
                JsonNode list = asked.await("/logs/api", body -> requestIds(body).containsAll(everyRequest));
                assertThat(requestIds(list)).as(list.toString()).containsAll(everyRequest)
                        .doesNotHaveDuplicates();
                assertThat(list.get("completeness").asText()).isEqualTo("ring");
                assertThat(texts(list.get("nodes").get("answered"))).containsExactlyInAnyOrder(firstUrl, secondUrl);
                assertThat(list.get("nodes").get("not_answered")).isEmpty();
                JsonNode refusedOnSecond = item(list, "refused-on-second");
                assertThat(refusedOnSecond.get("node").asText()).isEqualTo(secondUrl);
                assertThat(refusedOnSecond.get("error").asText()).isEqualTo("unknown_stream");
                JsonNode invalidItem = item(list, "forwarded-invalid");
                assertThat(invalidItem.get("path").asText()).isEqualTo("/streams/orders");
                assertThat(invalidItem.get("node").asText()).as("kept by the node the client sent it to")
                        .isEqualTo(other.uri.toString());
                assertThat(invalidItem.get("served_by").asText()).isEqualTo(holder.uri.toString());
                assertThat(item(list, "forwarded-publish").get("source").asText()).isEqualTo("store");
            }
            JsonNode holderOnly = holder.get("/logs/api?node=" + holder.uri).body();
            assertThat(requestIds(holderOnly)).as("one node's own list: the cluster's publish records, its ring")
                    .contains("forwarded-publish", "direct-publish").doesNotContain("forwarded-invalid");
            assertThat(holderOnly.has("nodes")).isFalse();
            ServeNode.Response unknownNode = first.get("/logs/api?node=http://127.0.0.1:1");
            assertThat(unknownNode.status()).isEqualTo(400);
            assertThat(unknownNode.body().get("parameter").asText()).isEqualTo("node");

            JsonNode startups = first.get("/logs/sys?event=startup").body();
            assertThat(texts(startups.get("records"), "node")).containsExactlyInAnyOrder(firstUrl, secondUrl);
            assertThat(startups.get("total").asLong()).isEqualTo(2);
            assertThat(startups.get("completeness").asText()).isEqualTo("store");

            ServeNode.Response correlated = first.get("/correlate?request_id=refused-on-second");
            assertThat(correlated.status()).as(String.valueOf(correlated.body())).isEqualTo(200);
            assertThat(correlated.body().get("refused").get("node").asText()).isEqualTo(secondUrl);
            assertThat(correlated.body().get("refused").get("error").asText()).isEqualTo("unknown_stream");
            ServeNode.Response stored = second.get("/correlate?request_id=forwarded-publish");
            assertThat(stored.status()).as(String.valueOf(stored.body())).isEqualTo(200);
            assertThat(stored.body().get("events").get("count").asLong()).isEqualTo(2);

            second.stop();
            JsonNode without = first.get("/logs/api").body();
            assertThat(without.get("completeness").asText()).as(without.toString()).isEqualTo("incomplete");
            assertThat(texts(without.get("nodes").get("not_answered"), "node")).containsExactly(secondUrl);
            assertThat(requestIds(without)).contains("refused-on-first").doesNotContain("refused-on-second");
            JsonNode sysWithout = first.get("/logs/sys?event=startup").body();
            assertThat(sysWithout.get("completeness").asText()).isEqualTo("incomplete");
            assertThat(texts(sysWithout.get("nodes").get("not_answered"), "node")).containsExactly(secondUrl);
            assertThat(texts(sysWithout.get("records"), "node")).containsExactly(firstUrl);
        }
    }

    private static List<String> requestIds(JsonNode list) {
        return texts(list.path("requests"), "request_id");
    }

    private static JsonNode item(JsonNode list, String requestId) {
        for (JsonNode item : list.get("requests")) {
            if (item.get("request_id").asText().equals(requestId)) {
                return item;
            }
        }
        throw new AssertionError("no request " + requestId + " in " + list);
    }

    private static List<String> texts(JsonNode array, String field) {
        List<String> texts = new ArrayList<>();
        array.forEach(item -> texts.add(item.get(field).asText()));
        return texts;
    }

    private static List<String> texts(JsonNode array) {
        List<String> texts = new ArrayList<>();
        array.forEach(item -> texts.add(item.asText()));
        return texts;
    }
}
