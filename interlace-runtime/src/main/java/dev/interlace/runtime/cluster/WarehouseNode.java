package dev.interlace.runtime.cluster;

import java.util.Optional;

/**
 * Where the warehouse is flushed, for a node of a cluster whose nodes each may run one: requests that need the
 * warehouse go to the node flushing the streams, whose DuckDB is the one being kept up to date, rather than to this
 * node's (missing on an ingest node, a stale prefix on a node whose flusher stands by). Not bound where one process
 * owns the log and the warehouse (the SQLite log).
 */
public interface WarehouseNode {

    /** The advertised URL of the node running the flusher now, empty while none does. */
    Optional<String> url();

    /** Who flushes {@code stream} now and how far it has committed; empty for a stream never flushed. */
    Optional<Flushing> flushing(String stream);

    /**
     * A stream's flusher as the cluster knows it.
     *
     * @param node the advertised URL of the node holding the stream's flush lease, null while none holds it
     * @param watermark the offset the stream's flusher last committed to the log (every renewal of its lease, so up to
     *     a third of the lease's time behind what that node's warehouse holds)
     */
    record Flushing(String node, long watermark) {}
}
