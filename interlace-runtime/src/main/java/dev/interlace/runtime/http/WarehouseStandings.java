package dev.interlace.runtime.http;

import dev.interlace.runtime.cluster.WarehouseNode;
import dev.interlace.runtime.config.InterlaceConfig;
import dev.interlace.runtime.flush.FlushPositions;
import dev.interlace.runtime.flush.Flusher;
import dev.interlace.runtime.log.EventLog;
import dev.interlace.runtime.log.Watermarks;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Whose warehouse this node's answers about a stream come from, and how far it is behind the one being flushed. In a
 * cluster every {@code --role all} node has a DuckDB, but only the node holding a stream's flush lease keeps it up to
 * date; the others keep the prefix they flushed before, so their {@code watermark} is their own and they say how far
 * behind it is rather than show the flushing node's.
 */
final class WarehouseStandings {

    /**
     * Response header of a warehouse route answered from this node's warehouse while another warehouse of the
     * cluster (another replica, or the node flushing a stream of the shared one) has flushed some streams further:
     * {@code orders=5782, payments=3}, each stream with the offsets this warehouse lacks. A forwarded answer carries
     * the header of the node that served it.
     */
    static final String LAG_HEADER = "Interlace-Warehouse-Lag";

    /** Where a stream's rows are, seen from this node. */
    enum Kind {
        /** This node's warehouse is the one flushed (it holds the flush lease, or no node does). */
        LOCAL,
        /** This node has a warehouse, but another node holds the flush lease: its rows here stop at a prefix. */
        STANDBY,
        /** This node runs no warehouse ({@code --role ingest}); its warehouse routes are answered by the flusher's. */
        REMOTE,
        /** No warehouse is configured: events stay in the log. */
        NONE;

        String wire() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * One stream's standing.
     *
     * @param watermark what this node's warehouse holds (on an ingest node, the flushing node's: its queries are
     *     answered there)
     * @param flushedBy the node holding the stream's flush lease, null while none does (or on one server)
     * @param flushedWatermark the furthest the stream is flushed anywhere, as this node knows it
     */
    record Standing(Kind kind, long watermark, String flushedBy, long flushedWatermark) {

        /** The offsets flushed elsewhere that this node's warehouse does not hold. */
        long lag() {
            return Math.max(0, flushedWatermark - watermark);
        }
    }

    private final boolean ownWarehouse;
    private final String self;
    private final Flusher flusher;
    private final FlushPositions own;
    private final Watermarks cluster;
    private final Optional<WarehouseNode> flushers;
    private final EventLog log;

    @Inject
    WarehouseStandings(InterlaceConfig config, Flusher flusher, FlushPositions own, Watermarks cluster,
            ClusterRoles roles, EventLog log) {
        this.ownWarehouse = config.role().runsWarehouse();
        this.self = normalised(config.advertisedUrl());
        this.flusher = flusher;
        this.own = own;
        this.cluster = cluster;
        this.flushers = roles.warehouses();
        this.log = log;
    }

    Standing of(String stream) {
        return of(stream, furthestFlushed());
    }

    /**
     * {@code stream}'s standing, {@code furthest} the watermarks the warehouses of the cluster committed, per stream:
     * a replica is behind when another one has flushed further, though it flushes every stream itself.
     */
    private Standing of(String stream, Map<String, Long> furthest) {
        Optional<WarehouseNode.Flushing> flushing = flushers.flatMap(nodes -> nodes.flushing(stream));
        String holder = flushing.map(WarehouseNode.Flushing::node).orElse(null);
        if (!ownWarehouse) {
            long flushed = cluster.events(stream);
            return new Standing(Kind.REMOTE, flushed, holder, flushed);
        }
        if (!flusher.materialises()) {
            return new Standing(Kind.NONE, 0, null, 0);
        }
        long watermark = own.events(stream);
        long flushed = Math.max(Math.max(watermark, flushing.map(WarehouseNode.Flushing::watermark).orElse(0L)),
                furthest.getOrDefault(stream, 0L));
        boolean elsewhere = holder != null && !normalised(holder).equals(self);
        return new Standing(elsewhere ? Kind.STANDBY : Kind.LOCAL, watermark, holder, flushed);
    }

    /**
     * Whether this node's flusher holds the flush lease of some stream: its warehouse is then the current one for
     * those streams, and no other single node's is for all of them.
     */
    boolean flushesHere() {
        if (flushers.isEmpty() || !ownWarehouse) {
            return false;
        }
        for (String stream : log.heads().keySet()) {
            Optional<WarehouseNode.Flushing> flushing = flushers.get().flushing(stream);
            if (flushing.isPresent() && flushing.get().node() != null
                    && normalised(flushing.get().node()).equals(self)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The streams this node's warehouse holds less of than is flushed elsewhere (by the node holding the stream's
     * lease of a shared warehouse, or by another replica that is not dropped), with by how many offsets.
     */
    Map<String, Long> lagging() {
        Map<String, Long> lagging = new TreeMap<>();
        if (flushers.isEmpty() || !ownWarehouse) {
            return lagging;
        }
        Map<String, Long> furthest = furthestFlushed();
        for (String stream : log.heads().keySet()) {
            long lag = of(stream, furthest).lag();
            if (lag > 0) {
                lagging.put(stream, lag);
            }
        }
        return lagging;
    }

    /**
     * Per stream, the furthest watermark a warehouse of the cluster committed to the log, live or not (a replica
     * that is down still had the rows this one lacks), unless dropped; empty on one server.
     */
    private Map<String, Long> furthestFlushed() {
        Map<String, Long> furthest = new TreeMap<>();
        if (flushers.isEmpty() || !ownWarehouse) {
            return furthest;
        }
        for (WarehouseNode.Replica replica : flushers.get().replicas()) {
            if (!replica.dropped()) {
                replica.watermarks().forEach((stream, watermark) -> furthest.merge(stream, watermark, Math::max));
            }
        }
        return furthest;
    }

    /**
     * The warehouse replicas of the cluster, as the log records them; on a log of one node (SQLite) this node's one,
     * named {@code self} and always live, or none when no warehouse runs.
     */
    List<WarehouseNode.Replica> replicas(String self) {
        if (flushers.isPresent()) {
            return flushers.get().replicas();
        }
        if (!flusher.materialises()) {
            return List.of();
        }
        Map<String, Long> watermarks = new TreeMap<>();
        log.heads().keySet().forEach(stream -> watermarks.put(stream, own.events(stream)));
        return List.of(new WarehouseNode.Replica("local", self, true, false, 0, watermarks));
    }

    /** {@link #lagging} as the {@value #LAG_HEADER} header says it; null when nothing lags. */
    String lagHeader() {
        Map<String, Long> lagging = lagging();
        if (lagging.isEmpty()) {
            return null;
        }
        StringBuilder header = new StringBuilder();
        lagging.forEach((stream, lag) -> header.append(header.isEmpty() ? "" : ", ").append(stream).append('=')
                .append(lag));
        return header.toString();
    }

    static String normalised(String url) {
        String lower = url.strip().toLowerCase(Locale.ROOT);
        return lower.endsWith("/") ? lower.substring(0, lower.length() - 1) : lower;
    }
}
