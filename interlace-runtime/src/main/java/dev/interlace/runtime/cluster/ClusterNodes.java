package dev.interlace.runtime.cluster;

import java.util.Set;

/**
 * The nodes of a cluster as its log knows them now, for answers that cover the whole cluster ({@code /logs/api},
 * {@code /logs/sys}, {@code /correlate}): each node keeps its own system records and refused requests. Not bound
 * where one process owns the log (the SQLite log): that node's records are the whole story.
 */
public interface ClusterNodes {

    /** The advertised URLs of the nodes the log says are members of the cluster now, this node's included. */
    Set<String> members();
}
