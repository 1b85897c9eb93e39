package dev.interlace.client;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A page of a stream's events as {@code GET /streams/{name}/events} answers it: of one partition's log for a stream
 * of several partitions (offsets are per partition).
 *
 * @param events the events, in offset order
 * @param nextAfter the offset to read after next ({@code after=} of the following page)
 * @param head the partition's (or stream's) highest offset when the page was read
 */
public record EventPage(List<StreamConsumer.ConsumedEvent> events, long nextAfter, long head) {

    public EventPage {
        events = List.copyOf(events);
    }

    /** The page a {@code GET /streams/{name}/events} answer holds. */
    static EventPage of(JsonNode body) {
        List<StreamConsumer.ConsumedEvent> events = new ArrayList<>();
        for (JsonNode event : body.path("events")) {
            events.add(new StreamConsumer.ConsumedEvent(event.get("offset").asLong(), event.get("request_id").asText(),
                    event.get("ingested_at").asText(), event.get("event")));
        }
        return new EventPage(events, body.path("next_after").asLong(), body.path("head").asLong());
    }

    /** The query naming a partition ({@code &partition=p}), or nothing for null. */
    static String partition(Integer partition) {
        return partition == null ? "" : "&partition=" + partition;
    }

    static EventPage read(InterlaceClient client, String stream, Integer partition, long after, int limit) {
        return of(client.call("GET", "/streams/" + URLEncoder.encode(stream, StandardCharsets.UTF_8) + "/events?after="
                + after + "&limit=" + limit + partition(partition), null, null));
    }
}
