package dev.interlace.log.kafka;

import dev.interlace.runtime.cluster.WarehouseNode;
import dev.interlace.runtime.flush.FlushLease;
import dev.interlace.runtime.log.Leases;
import dev.interlace.runtime.ops.EpochMicros;
import dev.interlace.runtime.ops.RequestIds;
import dev.interlace.runtime.records.SysEvent;
import dev.interlace.runtime.records.SysRecord;
import dev.interlace.runtime.records.SystemRecords;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.logging.Logger;

/**
 * The warehouses of the cluster, read from the log: every flusher leases each stream's group of its warehouse
 * ({@link FlushLease#group()}: {@value FlushLease#GROUP} for the one the {@code --role all} nodes share,
 * {@code __flusher.<replica>} for each replica) under its node's advertised URL, and commits its watermark there; every
 * node reads the groups from {@code _state}. So every node knows each warehouse, the node flushing it, how far it is and
 * when it was last heard of, without asking it.
 *
 * <p>A warehouse is live while it holds an unexpired lease; one silent for longer than {@code --replica-timeout-ms}
 * is dropped from the set the log's trims wait for (a {@code replica_dropped} record and
 * {@code interlace_warehouse_replicas_dropped_total} on the node that finds it so), and counts again once it leases.
 */
final class FlushLeaseHolders implements WarehouseNode {

    private static final Logger LOG = Logger.getLogger(FlushLeaseHolders.class.getName());

    private final KafkaStreamLog log;
    private final Clock clock;
    /** This node's own warehouse's flusher group, null on a node without one. */
    private final String ownGroup;
    private final long timeoutMicros;
    private final SystemRecords records;
    private final RequestIds ids;
    private final Counter drops;
    /** The warehouses found dropped (by group name), so that each drop is recorded once. */
    private final Set<String> dropped = new HashSet<>();

    FlushLeaseHolders(KafkaStreamLog log, Clock clock, String ownGroup, long timeoutMillis, SystemRecords records,
            RequestIds ids, MeterRegistry registry) {
        this.log = log;
        this.clock = clock;
        this.ownGroup = ownGroup;
        this.timeoutMicros = timeoutMillis * 1_000;
        this.records = records;
        this.ids = ids;
        this.drops = Counter.builder("interlace.warehouse.replicas.dropped")
                .description("warehouse replicas dropped from the set the log's trims wait for").register(registry);
        Gauge.builder("interlace.warehouse.replicas", this, holders -> holders.replicas().stream()
                .filter(Replica::live).count()).description("warehouse replicas holding flush leases now")
                .register(registry);
    }

    @Override
    public List<String> urls() {
        Map<String, Long> heads = new HashMap<>();
        log.heads().forEach((stream, head) -> heads.put(stream, head.head()));
        return replicas().stream().filter(Replica::live)
                .sorted(Comparator.comparingLong(replica -> behind(replica, heads)))
                .map(Replica::node).filter(Objects::nonNull).distinct().toList();
    }

    /**
     * This node's own warehouse's group while some node holds it (this one, or a node of the same replica under
     * another URL); otherwise, and on a node without a warehouse, the live warehouse furthest along.
     */
    @Override
    public Optional<Flushing> flushing(String stream) {
        long now = EpochMicros.now(clock);
        Leases.Group own = null;
        Leases.Group best = null;
        for (Leases.Group group : log.groups(stream)) {
            if (!FlushLease.isFlusherGroup(group.group())) {
                continue;
            }
            if (group.group().equals(ownGroup)) {
                own = group;
            } else if (best == null || rank(group, now) > rank(best, now)) {
                best = group;
            }
        }
        Leases.Group chosen = own != null && (held(own, now) || best == null || !held(best, now)) ? own : best;
        if (chosen == null) {
            return Optional.empty();
        }
        return Optional.of(new Flushing(held(chosen, now) ? chosen.holder() : null, chosen.committedOffset()));
    }

    private static boolean held(Leases.Group group, long now) {
        return group.holder() != null && group.expiresAtMicros() > now;
    }

    @Override
    public List<Replica> replicas() {
        long now = EpochMicros.now(clock);
        Map<String, List<Leases.Group>> byGroup = new TreeMap<>();
        for (String stream : log.heads().keySet()) {
            for (Leases.Group group : log.groups(stream)) {
                if (FlushLease.isFlusherGroup(group.group())) {
                    byGroup.computeIfAbsent(group.group(), name -> new ArrayList<>()).add(group);
                }
            }
        }
        List<Replica> replicas = new ArrayList<>();
        byGroup.forEach((name, groups) -> replicas.add(replica(name, groups, now)));
        return replicas;
    }

    /**
     * The highest offset of {@code stream} that every warehouse not dropped has committed to the log: what a trim may
     * remove. Zero while no warehouse counts (nothing is trimmed that nobody materialised).
     */
    long retained(String stream) {
        long slowest = Long.MAX_VALUE;
        for (Replica replica : replicas()) {
            if (!replica.dropped()) {
                slowest = Math.min(slowest, replica.watermarks().getOrDefault(stream, 0L));
            }
        }
        return slowest == Long.MAX_VALUE ? 0 : slowest;
    }

    private Replica replica(String group, List<Leases.Group> streams, long now) {
        Map<String, Integer> holders = new HashMap<>();
        Map<String, Long> watermarks = new LinkedHashMap<>();
        long seen = 0;
        String last = null;
        for (Leases.Group stream : streams) {
            watermarks.put(stream.stream(), stream.committedOffset());
            if (stream.holder() != null && stream.expiresAtMicros() > now) {
                holders.merge(stream.holder(), 1, Integer::sum);
            }
            if (stream.expiresAtMicros() >= seen) {
                seen = stream.expiresAtMicros();
                last = stream.holder() != null ? stream.holder() : last;
            }
        }
        boolean live = !holders.isEmpty();
        String node = holders.entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey)
                .orElse(last);
        boolean isDropped = !live && now - seen > timeoutMicros;
        noteDropped(group, isDropped, seen, now);
        return new Replica(FlushLease.replicaOf(group), node, live, isDropped, seen, watermarks);
    }

    private void noteDropped(String group, boolean isDropped, long seen, long now) {
        synchronized (dropped) {
            if (!isDropped) {
                dropped.remove(group);
                return;
            }
            if (!dropped.add(group)) {
                return;
            }
        }
        String name = FlushLease.replicaOf(group) == null ? "the shared warehouse (" + group + ")"
                : "warehouse replica " + FlushLease.replicaOf(group);
        String message = name + " has held no flush lease since " + EpochMicros.toInstant(seen)
                + ", longer than --replica-timeout-ms (" + timeoutMicros / 1_000 + "): the log's trims no longer wait"
                + " for it; it counts again once it flushes";
        LOG.warning(message);
        drops.increment();
        records.record(SysRecord.of(now, SysEvent.REPLICA_DROPPED, null, ids.mintWithPrefix("sched-"), message));
    }

    /** How many offsets {@code replica} lacks of the heads, in all streams. */
    private static long behind(Replica replica, Map<String, Long> heads) {
        long behind = 0;
        for (Map.Entry<String, Long> head : heads.entrySet()) {
            behind += Math.max(0, head.getValue() - replica.watermarks().getOrDefault(head.getKey(), 0L));
        }
        return behind;
    }

    /** Live flushers before silent ones, then the furthest. */
    private static long rank(Leases.Group group, long now) {
        return (held(group, now) ? Long.MAX_VALUE / 2 : 0) + group.committedOffset();
    }
}
