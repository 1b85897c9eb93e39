package dev.interlace.log.kafka;

import dev.interlace.runtime.flush.FlushLease;
import dev.interlace.runtime.log.Watermarks;
import java.time.Clock;
import java.util.function.Function;

/**
 * How far each stream is materialised, as a node of the cluster knows it: backpressure and retention read it on the
 * stream's sequencer, which need not run the warehouse (an ingest node) nor flush the stream.
 *
 * <p>The flusher commits its flushed watermark to the stream's {@value FlushLease#GROUP} group whenever it renews
 * its lease (every third of the lease's time), and every node reads that group from {@code _state}. A stream's events
 * watermark is therefore the larger of that committed offset and what this node's own flusher has committed to its
 * warehouse (fresher, when it flushes the stream). The group holds no quarantine watermark: while another node
 * flushes the stream, its quarantined entries are not counted as pending here (the group cannot say how far that
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
        Codec.GroupState flusher = flusher(stream);
        return Math.max(local.events(stream), flusher == null ? 0 : flusher.committedOffset());
    }

    @Override
    public long quarantine(String stream) {
        Codec.GroupState flusher = flusher(stream);
        boolean elsewhere = flusher != null && flusher.holder() != null && !flusher.holder().equals(nodeUrl)
                && flusher.expiresAtMicros() > clock.millis() * 1_000;
        StreamView view = views.apply(stream);
        return elsewhere && view != null ? view.quarantineHeadSeq() : local.quarantine(stream);
    }

    private Codec.GroupState flusher(String stream) {
        StreamView view = views.apply(stream);
        return view == null ? null : view.group(FlushLease.GROUP);
    }
}
