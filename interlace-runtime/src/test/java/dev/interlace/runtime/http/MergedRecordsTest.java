package dev.interlace.runtime.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class MergedRecordsTest {

    private static ObjectNode list(String... idsAndTimes) {
        ObjectNode body = HttpResponses.JSON.createObjectNode();
        for (int i = 0; i < idsAndTimes.length; i += 2) {
            body.withArray("requests").addObject().put("request_id", idsAndTimes[i])
                    .put("received_at", idsAndTimes[i + 1]);
        }
        body.put("count", idsAndTimes.length / 2);
        body.put("total", idsAndTimes.length / 2 + 10);
        body.putObject("ring").put("since", "2026-12-01T00:00:00Z").put("capacity", 100).put("dropped", 1);
        return body;
    }

    private static List<String> ids(JsonNode body) {
        List<String> ids = new ArrayList<>();
        body.get("requests").forEach(item -> ids.add(item.get("request_id").asText()));
        return ids;
    }

    @Test
    void theNodesListsAreMergedNewestFirstCutToTheLimitWithTotalsAndRingsAdded() {
        ObjectNode local = list("a2", "2026-12-01T10:00:02Z", "a1", "2026-12-01T10:00:00Z");
        ObjectNode other = list("b3", "2026-12-01T10:00:03Z", "b1", "2026-12-01T10:00:01Z");
        ((ObjectNode) other.get("ring")).put("since", "2026-12-01T09:00:00Z");

        MergedRecords.merge(local, "requests", "received_at", List.of(new FanOut.Part("http://b", other, null),
                new FanOut.Part("http://c", null, "did not answer within 3000 ms")), 3);

        assertThat(ids(local)).containsExactly("b3", "a2", "b1");
        assertThat(local.get("requests").get(0).get("node").asText()).isEqualTo("http://b");
        assertThat(local.get("count").asInt()).isEqualTo(3);
        assertThat(local.get("total").asLong()).as("each node's total, the silent one's unknown").isEqualTo(24);
        assertThat(local.get("ring").get("since").asText()).as("every ring covers since the latest start")
                .isEqualTo("2026-12-01T09:00:00Z");
        assertThat(local.get("ring").get("capacity").asLong()).isEqualTo(200);
        assertThat(local.get("ring").get("dropped").asLong()).isEqualTo(2);
    }
}
