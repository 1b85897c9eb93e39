package dev.interlace.runtime.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.interlace.runtime.log.QuarantineEntry;
import dev.interlace.runtime.status.Correlator;
import dev.interlace.runtime.stream.StreamPartitions;
import dev.interlace.runtime.warehouse.FlushRecord;

/** The JSON of records that several routes show: a flush, where a quarantined entry went, a request's events. */
final class RecordItems {

    private RecordItems() {}

    static ObjectNode flush(FlushRecord flush) {
        ObjectNode item = HttpResponses.JSON.createObjectNode();
        item.put("flush_id", flush.id());
        item.put("target", flush.target().kind());
        item.put("first_offset", flush.firstOffset());
        item.put("last_offset", flush.lastOffset());
        item.put("rows", flush.rows());
        item.put("started_at", HttpResponses.time(flush.startedAtMicros()));
        if (flush.committedAtMicros() > 0) {
            item.put("committed_at", HttpResponses.time(flush.committedAtMicros()));
            item.put("duration_ms", (flush.committedAtMicros() - flush.startedAtMicros()) / 1000.0);
        } else {
            item.putNull("committed_at");
            item.putNull("duration_ms");
        }
        item.put("error", flush.error());
        HttpResponses.putTraces(item, flush.traces());
        return item;
    }

    /**
     * Where a quarantined entry was replayed to: its event's offset (in {@code replayed_partition}, 0 for a stream of
     * one partition), the replay's request id and time; or nulls.
     */
    static void replay(ObjectNode item, QuarantineEntry entry) {
        if (entry.replay() == null) {
            item.putNull("replayed_offset");
            item.putNull("replayed_partition");
            item.putNull("replayed_by");
            item.putNull("replayed_at");
        } else {
            item.put("replayed_offset", entry.replay().offset());
            item.put("replayed_partition", entry.replay().partition());
            item.put("replayed_by", entry.replay().requestId());
            item.put("replayed_at", HttpResponses.time(entry.replay().atMicros()));
        }
    }

    /** The events a request wrote and how many are materialised; for a partitioned stream, each partition's too. */
    static void events(ObjectNode events, Correlator.Events found) {
        events.put("stream", found.stream());
        events.put("first_offset", found.firstOffset());
        events.put("last_offset", found.lastOffset());
        events.put("count", found.count());
        events.put("materialised", found.materialised());
        events.put("pending", found.pending());
        if (!found.partitions().isEmpty()) {
            ArrayNode partitions = events.putArray("partitions");
            for (Correlator.Events part : found.partitions()) {
                ObjectNode item = partitions.addObject();
                item.put("partition", StreamPartitions.partitionOf(part.stream()));
                events(item, part);
            }
        }
    }
}
