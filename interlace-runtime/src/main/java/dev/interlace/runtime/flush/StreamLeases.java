package dev.interlace.runtime.flush;

import dev.interlace.runtime.log.ConsumerGroups;
import dev.interlace.runtime.log.Leases;
import dev.interlace.runtime.log.LogUnavailableException;
import dev.interlace.runtime.log.NoSequencerException;
import dev.interlace.runtime.ops.EpochMicros;
import dev.interlace.runtime.ops.RequestIds;
import dev.interlace.runtime.records.SysEvent;
import dev.interlace.runtime.records.SysRecord;
import dev.interlace.runtime.records.SystemRecords;
import dev.interlace.runtime.warehouse.Warehouse;
import java.time.Clock;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The flusher's hold on each stream: its lease on the stream's flusher group ({@link FlushLease#group()}: its
 * warehouse's), the fencing token recorded in the warehouse before anything is written with it, and the flushed
 * watermark committed to the group.
 */
final class StreamLeases {

    private static final Logger LOG = Logger.getLogger(Flusher.class.getName());

    private final ConsumerGroups groups;
    private final Warehouse warehouse;
    private final FlushPositions positions;
    private final FlushLease lease;
    private final RequestIds ids;
    private final SystemRecords records;
    private final Clock clock;
    /** How far the flushed watermark may run ahead of the one committed to the group before it is committed anew. */
    private final long commitEvery;

    /**
     * @param commitEvery how many offsets flushed since the last commit to the group make a commit before the next
     *     renewal: another node's sequencer reads its backlog from the group, so a quarter of {@code --max-pending}
     *     keeps it from refusing publishes for a backlog that is flushed already
     */
    StreamLeases(ConsumerGroups groups, Warehouse warehouse, FlushPositions positions, FlushLease lease,
            RequestIds ids, SystemRecords records, Clock clock, long commitEvery) {
        this.groups = groups;
        this.warehouse = warehouse;
        this.positions = positions;
        this.lease = lease;
        this.ids = ids;
        this.records = records;
        this.clock = clock;
        this.commitEvery = commitEvery;
    }

    /** How often idle streams' leases are renewed. */
    long renewEveryNanos() {
        return lease.renewEveryNanos();
    }

    /**
     * Makes sure this flusher holds the stream's lease, renewing it when a third of its time has passed (and
     * committing the flushed watermark to the group, which it also does between renewals once the watermark ran
     * {@code commitEvery} offsets ahead of the last commit). A newly granted token is recorded in the warehouse first, and
     * the watermarks read back after that are the truth from then on.
     *
     * @return false when another flusher holds the lease (the stream stands by until it expires)
     */
    boolean hold(StreamFlush flush) {
        long now = System.nanoTime();
        String name = flush.stream.name();
        if (flush.token != 0 && now - flush.renewAt < 0) {
            if (positions.events(name) - flush.committedToGroup >= commitEvery) {
                commitFlushed(flush, name);
            }
            return true;
        }
        Leases.LeaseResult result;
        try {
            result = groups.lease(name, lease.group(), lease.owner(), lease.ttl(), Leases.Actor.SERVER);
        } catch (NoSequencerException elsewhere) {
            // A log with one sequencer per stream (Kafka), and this node does not hold this one: stand by.
            flush.token = 0;
            flush.heldUntilMicros = micros() + lease.ttl().toNanos() / 1_000;
            flush.status = new FlushStatus(FlushState.STANDBY, elsewhere.getMessage(), 0);
            return false;
        }
        if (result instanceof Leases.Held held) {
            if (flush.token != 0 || !flush.status.standby()) {
                LOG.info("stream " + name + " is flushed by " + held.holder() + "; standing by");
                records.record(SysRecord.of(micros(), SysEvent.FLUSH_STANDBY, name, ids.mintWithPrefix("flush-"),
                        lease.owner() + " stands by: the flush lease of " + name + " is held by " + held.holder()));
            }
            flush.token = 0;
            flush.heldUntilMicros = held.expiresAtMicros();
            flush.status = new FlushStatus(FlushState.STANDBY, "the flush lease of " + name + " is held by "
                    + held.holder() + " until " + EpochMicros.toInstant(held.expiresAtMicros()), 0);
            return false;
        }
        Leases.Granted granted = (Leases.Granted) result;
        if (granted.token().epoch() != flush.token) {
            for (Warehouse.Target target : targets(name)) {
                long committed;
                try {
                    committed = warehouse.claim(target, granted.token().epoch());
                } catch (Warehouse.FencedException e) {
                    throw new IllegalStateException(e.getMessage(), e); // not a takeover: retried with backoff
                }
                positions.set(target, committed);
            }
            if (flush.status.standby()) {
                records.record(SysRecord.of(micros(), SysEvent.FLUSH_TAKEOVER, name, ids.mintWithPrefix("flush-"),
                        lease.owner() + " took the flush lease of " + name + " over with token " + granted.token().epoch()));
            }
            flush.token = granted.token().epoch();
            flush.committedToGroup = granted.committedOffset();
        }
        flush.leaseToken = granted.token();
        flush.renewAt = now + lease.renewEveryNanos();
        commitFlushed(flush, name);
        return true;
    }

    /** Commits the flushed watermark to the group, when it moved since the last commit. */
    private void commitFlushed(StreamFlush flush, String name) {
        long flushed = positions.events(name);
        try {
            if (flushed > flush.committedToGroup
                    && groups.commit(name, lease.group(), flush.leaseToken, flushed, Leases.Actor.SERVER)
                            instanceof Leases.Committed) {
                flush.committedToGroup = flushed;
            }
        } catch (NoSequencerException | LogUnavailableException e) {
            // The group shows the flusher's progress (lag, and backpressure on another node); the warehouse holds
            // the truth, so a commit that fails now is made at the next renewal.
            LOG.log(Level.FINE, "committing the flushed watermark of " + name + " failed; retried later", e);
        }
    }

    /**
     * After a failure, takes the watermarks the warehouse committed as the truth: a commit may have succeeded although
     * it reported an error, and retrying from a stale watermark would only be fenced off forever.
     */
    void resync(StreamFlush flush) {
        try {
            for (Warehouse.Target target : targets(flush.stream.name())) {
                positions.set(target, warehouse.watermark(target));
            }
        } catch (RuntimeException e) {
            LOG.log(Level.FINE, "cannot reread the watermarks of " + flush.stream.name(), e);
        }
    }

    /** Commits the flushed watermark to the group and gives the lease up, so that the next flusher need not wait. */
    void release(StreamFlush flush) {
        if (flush.token == 0) {
            return;
        }
        String name = flush.stream.name();
        try {
            long flushed = positions.events(name);
            if (flushed > flush.committedToGroup) {
                groups.commit(name, lease.group(), flush.leaseToken, flushed, Leases.Actor.SERVER);
            }
            groups.release(name, lease.group(), flush.leaseToken, Leases.Actor.SERVER);
        } catch (RuntimeException e) {
            LOG.log(Level.FINE, "releasing the flush lease of " + name + " failed; it expires by itself", e);
        }
        flush.token = 0;
        flush.leaseToken = null;
    }

    private static List<Warehouse.Target> targets(String stream) {
        return List.of(Warehouse.Target.events(stream), Warehouse.Target.quarantine(stream));
    }

    private long micros() {
        return EpochMicros.now(clock);
    }
}
