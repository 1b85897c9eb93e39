package dev.interlace.runtime.cluster;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Where the warehouse is flushed, for a node of a cluster whose nodes each may run one: requests that need the
 * warehouse go to a node whose DuckDB is being kept up to date rather than to this node's (missing on an ingest node,
 * a stale prefix on a node whose flusher stands by). The warehouses are the log's replicas: each {@code --role
 * warehouse} node materialises every stream into a DuckDB of its own, and the {@code --role all} nodes share one
 * warehouse whose streams they split. Not bound where one process owns the log and the warehouse (the SQLite log).
 */
public interface WarehouseNode {

    /**
     * The advertised URLs of the nodes whose warehouses are flushed now, the most caught-up first (the least offsets
     * behind the heads in all); empty while none is.
     */
    List<String> urls();

    /** The node to send warehouse routes to: the first of {@link #urls()}, empty while none runs. */
    default Optional<String> url() {
        return urls().stream().findFirst();
    }

    /**
     * Who flushes {@code stream} for this node now and how far it has committed: this node's own warehouse while it
     * is flushed (here, or by a node of the same replica), else the most caught-up live warehouse; empty for a stream
     * never flushed.
     */
    Optional<Flushing> flushing(String stream);

    /** Every warehouse the log knows (each stream's flusher groups), dropped ones included. */
    List<Replica> replicas();

    /**
     * A stream's flusher as the cluster knows it.
     *
     * @param node the advertised URL of the node holding the stream's flush lease, null while none holds it
     * @param watermark the offset the stream's flusher last committed to the log (every renewal of its lease, so up to
     *     a third of the lease's time behind what that node's warehouse holds)
     */
    record Flushing(String node, long watermark) {}

    /**
     * One warehouse of the cluster.
     *
     * @param id the replica's id, null for the warehouse the {@code --role all} nodes share
     * @param node the node holding most of its unexpired flush leases, else the last one that held one
     * @param live whether it holds an unexpired flush lease of some stream
     * @param dropped whether it has been silent longer than {@code --replica-timeout-ms}: the log's trims no longer
     *     wait for it
     * @param seenMicros when its last flush lease expires or expired (it renews them every third of their time)
     * @param watermarks per stream, the offset it last committed to the log
     */
    record Replica(String id, String node, boolean live, boolean dropped, long seenMicros,
            Map<String, Long> watermarks) {}
}
