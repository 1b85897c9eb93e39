package dev.interlace.runtime.cluster;

import java.util.Optional;

/**
 * Where the warehouse is, for a node that does not run one (an ingest node of a cluster): its queries, runs and
 * correlations go to that node. Not bound on a node that runs the warehouse itself.
 */
public interface WarehouseNode {

    /** The advertised URL of the node running the flusher now, empty while none does. */
    Optional<String> url();
}
