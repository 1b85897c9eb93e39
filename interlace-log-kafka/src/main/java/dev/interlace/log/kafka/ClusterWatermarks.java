package dev.interlace.log.kafka;

import dev.interlace.runtime.flush.FlushLease;
import dev.interlace.runtime.log.Watermarks;
import java.time.Clock;
import java.util.List;
import java.util.function.Function;

/**
 * How far each stream is materialised, as a node of the cluster knows it: backpressure reads it on the stream's
 * sequencer, which need not run a warehouse (an ingest node) nor flush the stream.
 *
 * <p>Every flusher commits its flushed watermark to its warehouse's flusher group of the stream ({@link FlushLease})
 * whenever it renews its lease (every third of the lease's time), and every node reads the groups from
 * {@code _state}. A stream's events watermark is therefore the largest of those committed offsets and what this node's
 * own flusher has committed to its warehouse (fresher, when it flushes the stream): the most caught-up warehouse
 * decides the backlog, so a dead replica never holds publishes up while another keeps up. (Trims wait for the slowest:
 * {@link FlushLeaseHolders#retained}.) The groups hold no quarantine watermark: while another node flushes the stream
 * and this one does not, its quarantined entries are not counted as pending here (the group cannot say how far that
 * node got); otherwise this node's own quarantine watermark counts, as on one node.
 */
final class ClusterWatermarks implements Watermarks {

    private final Watermarks local;
    private final Function<String, StreamView> views;
    private final String nodeUrl;
    private final Clock clock;

    /**
     * @param local what this node's flusher committed to its warehouse (zero for every stream on a node without one)
     * @param views the stream views, or null for a stream the log does not know
     * @param nodeUrl this node's advertised URL, which is its flusher's lease owner
     */
    ClusterWatermarks(Watermarks local, Function<String, StreamView> views, String nodeUrl, Clock clock) {
        this.local = local;
        this.views = views;
        this.nodeUrl = nodeUrl;
        this.clock = clock;
    }

    @Override
    public long events(String stream) {
        long furthest = local.events(stream);
        for (Codec.GroupState flusher : flushers(stream)) {
            furthest = Math.max(furthest, flusher.committedOffset());
        }
        return furthest;
    }

    @Override
    public long quarantine(String stream) {
        long now = clock.millis() * 1_000;
        boolean here = false;
        boolean elsewhere = false;
        for (Codec.GroupState flusher : flushers(stream)) {
            if (flusher.holder() != null && flusher.expiresAtMicros() > now) {
                here |= flusher.holder().equals(nodeUrl);
                elsewhere |= !flusher.holder().equals(nodeUrl);
            }
        }
        StreamView view = views.apply(stream);
        return elsewhere && !here && view != null ? view.quarantineHeadSeq() : local.quarantine(stream);
    }

    private List<Codec.GroupState> flushers(String stream) {
        StreamView view = views.apply(stream);
        return view == null ? List.of() : view.flusherGroups();
    }
}
