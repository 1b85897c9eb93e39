package dev.interlace.log.kafka;

import dev.interlace.runtime.cluster.WarehouseNode;
import dev.interlace.runtime.flush.FlushLease;
import dev.interlace.runtime.log.Leases;
import dev.interlace.runtime.ops.EpochMicros;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Where the warehouse is, read from the log: the flusher leases each stream's {@value FlushLease#GROUP} group under
 * its node's advertised URL, and every node reads the groups from {@code _state}, so the holder of unexpired flush
 * leases is the warehouse node. Bound on every node: an ingest node has no warehouse, and a node whose flusher stands
 * by has a stale one.
 */
final class FlushLeaseHolders implements WarehouseNode {

    private final KafkaStreamLog log;
    private final Clock clock;

    FlushLeaseHolders(KafkaStreamLog log, Clock clock) {
        this.log = log;
        this.clock = clock;
    }

    /** The node holding the most unexpired flush leases (one, unless a takeover is under way); empty when none. */
    @Override
    public Optional<String> url() {
        long now = EpochMicros.now(clock);
        Map<String, Integer> leases = new HashMap<>();
        for (String stream : log.heads().keySet()) {
            for (Leases.Group group : log.groups(stream)) {
                if (group.group().equals(FlushLease.GROUP) && group.holder() != null
                        && group.expiresAtMicros() > now) {
                    leases.merge(group.holder(), 1, Integer::sum);
                }
            }
        }
        return leases.entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey);
    }

    @Override
    public Optional<Flushing> flushing(String stream) {
        long now = EpochMicros.now(clock);
        for (Leases.Group group : log.groups(stream)) {
            if (group.group().equals(FlushLease.GROUP)) {
                boolean held = group.holder() != null && group.expiresAtMicros() > now;
                return Optional.of(new Flushing(held ? group.holder() : null, group.committedOffset()));
            }
        }
        return Optional.empty();
    }
}
