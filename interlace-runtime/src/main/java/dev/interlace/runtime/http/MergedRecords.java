package dev.interlace.runtime.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * A cluster-wide record list made of this node's list and the other nodes' ({@link FanOut}): the items merged newest
 * first and cut to the page's limit (each node sent at most that many, so nothing more is held), totals added, and
 * each item naming the node it comes from.
 */
final class MergedRecords {

    private MergedRecords() {}

    /**
     * Merges into {@code local} (this node's answer, its items under {@code field}, newest first by the RFC 3339 time
     * {@code timeField}) the answered parts' items, keeping the newest {@code limit}; {@code count} and {@code total}
     * then cover them all, and {@code ring} (when the list has one) says since when every ring covers and what all of
     * them dropped.
     */
    static void merge(ObjectNode local, String field, String timeField, List<FanOut.Part> parts, int limit) {
        List<JsonNode> items = new ArrayList<>();
        local.path(field).forEach(items::add);
        long total = local.path("total").asLong();
        for (FanOut.Part part : parts) {
            if (!part.answered()) {
                continue;
            }
            for (JsonNode item : part.body().path(field)) {
                if (item instanceof ObjectNode object && !object.has("node")) {
                    object.put("node", part.node());
                }
                items.add(item);
            }
            total += part.body().path("total").asLong();
            if (local.has("ring") && part.body().has("ring")) {
                mergeRing((ObjectNode) local.get("ring"), part.body().get("ring"));
            }
        }
        // Stable: of two items at the same time, this node's comes first, then the nodes in the order asked.
        items.sort(Comparator.comparing((JsonNode item) -> time(item.path(timeField))).reversed());
        ArrayNode merged = local.putArray(field);
        items.stream().limit(limit).forEach(merged::add);
        local.put("count", merged.size());
        local.put("total", total);
    }

    /** The items under {@code field} of every answered part, each naming its node. */
    static List<ObjectNode> items(List<FanOut.Part> parts, String field) {
        List<ObjectNode> items = new ArrayList<>();
        for (FanOut.Part part : parts) {
            if (part.answered()) {
                for (JsonNode item : part.body().path(field)) {
                    if (item instanceof ObjectNode object) {
                        if (!object.has("node")) {
                            object.put("node", part.node());
                        }
                        items.add(object);
                    }
                }
            }
        }
        items.sort(Comparator.comparing((ObjectNode item) -> time(item.path("received_at"))).reversed());
        return items;
    }

    /** The rings together: covered since the latest start among them, their capacities and drops added. */
    private static void mergeRing(ObjectNode ring, JsonNode other) {
        Instant since = time(ring.path("since"));
        Instant otherSince = time(other.path("since"));
        if (otherSince.isAfter(since)) {
            ring.put("since", other.path("since").asText());
        }
        ring.put("capacity", ring.path("capacity").asLong() + other.path("capacity").asLong());
        ring.put("dropped", ring.path("dropped").asLong() + other.path("dropped").asLong());
    }

    private static Instant time(JsonNode text) {
        try {
            return Instant.parse(text.asText());
        } catch (RuntimeException e) {
            return Instant.EPOCH; // a node's item without a readable time sorts last rather than failing the list
        }
    }
}
