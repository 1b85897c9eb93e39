package dev.interlace.log.kafka;

import dev.interlace.runtime.cluster.ClusterNodes;
import dev.interlace.runtime.flush.FlushLease;
import dev.interlace.runtime.log.Leases;
import dev.interlace.runtime.ops.EpochMicros;
import java.time.Clock;
import java.util.Set;
import java.util.TreeSet;

/**
 * The nodes of a Kafka-log cluster, read from the cluster itself: the members of the sequencer group (every node that
 * takes publishes joins it under its advertised URL) and the holders of unexpired flush leases, of the shared
 * warehouse and of every replica (a warehouse-only node sequences nothing, but flushes under its URL), with this node.
 */
record LogMembers(KafkaStreamLog log, Clock clock) implements ClusterNodes {

    @Override
    public Set<String> members() {
        Set<String> members = new TreeSet<>(log.sequencerGroupMembers());
        members.add(log.nodeUrl());
        long now = EpochMicros.now(clock);
        for (String stream : log.heads().keySet()) {
            for (Leases.Group group : log.groups(stream)) {
                if (FlushLease.isFlusherGroup(group.group()) && group.holder() != null
                        && group.expiresAtMicros() > now) {
                    members.add(group.holder());
                }
            }
        }
        return members;
    }
}
