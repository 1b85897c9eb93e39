package dev.interlace.runtime.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.interlace.runtime.flush.FlushStatus;
import dev.interlace.runtime.flush.Flusher;
import dev.interlace.runtime.log.StreamHead;
import dev.interlace.runtime.log.Watermarks;
import dev.interlace.runtime.stream.StreamCatalog;
import jakarta.inject.Inject;

/**
 * How {@code GET /streams} shows where one log stream (a stream, or one partition of it) stands: its heads, its
 * watermarks and its warehouse's standing, its sequencer and its flush's state, read from the components named here.
 */
record StreamPositions(StreamCatalog catalog, Watermarks watermarks, Flusher flusher, WarehouseStandings standings,
        ClusterRoles roles) {

    @Inject
    StreamPositions {}

    /** Puts the positions of log stream {@code name} into {@code node} ({@code head} null: never written). */
    void putInto(ObjectNode node, String name, StreamHead head) {
        long events = head == null ? 0 : head.head();
        long quarantined = head == null ? 0 : head.quarantineHead();
        WarehouseStandings.Standing standing = standings.of(name);
        node.put("head", events);
        node.put("earliest", head == null ? 1 : head.earliest());
        node.put("watermark", standing.watermark());
        // What the stream's flusher, wherever it runs, has yet to flush: what backpressure limits.
        node.put("pending", (events - watermarks.events(name)) + (quarantined - watermarks.quarantine(name)));
        node.put("warehouse", standing.kind().wire());
        node.put("flushed_by", standing.flushedBy());
        node.put("flushed_watermark", standing.flushedWatermark());
        node.put("warehouse_lag", standing.lag());
        node.put("quarantined", quarantined);
        node.put("declared", catalog.findLogStream(name).isPresent());
        roles.sequencers().ifPresent(known -> node.put("sequencer", known.holder(name).orElse(null)));
        FlushStatus flush = flusher.status(name);
        node.put("flush_state", flush.state().wire());
        node.put("flush_error", flush.error());
        if (flush.failing() || flush.stopped()) {
            node.put("flush_failing_since", HttpResponses.time(flush.failingSinceMicros()));
        } else {
            node.putNull("flush_failing_since");
        }
    }
}
