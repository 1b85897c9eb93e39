package dev.interlace.runtime.http;

import dev.interlace.runtime.cluster.ClusterNodes;
import dev.interlace.runtime.cluster.WarehouseNode;
import dev.interlace.runtime.log.Sequencers;
import jakarta.inject.Inject;
import java.util.Optional;

/**
 * Who does what in a cluster, as the log records it: each stream's sequencer, the warehouses' flushers, and the
 * members. Each is empty on a log of one node (SQLite), where this node does everything.
 */
record ClusterRoles(Optional<Sequencers> sequencers, Optional<WarehouseNode> warehouses,
        Optional<ClusterNodes> members) {

    @Inject
    ClusterRoles {}
}
