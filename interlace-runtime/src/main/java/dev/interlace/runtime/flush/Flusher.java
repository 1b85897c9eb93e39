package dev.interlace.runtime.flush;

import dev.interlace.runtime.config.InterlaceConfig;
import dev.interlace.runtime.health.ComponentHealth;
import dev.interlace.runtime.ops.DaemonThreads;
import dev.interlace.runtime.ops.EpochMicros;
import dev.interlace.runtime.ops.FatalErrors;
import dev.interlace.runtime.ops.RequestIds;
import dev.interlace.runtime.records.SysEvent;
import dev.interlace.runtime.records.SysRecord;
import dev.interlace.runtime.records.SystemRecords;
import dev.interlace.runtime.log.ConsumerGroups;
import dev.interlace.runtime.log.StreamLog;
import dev.interlace.runtime.ops.TraceIds;
import dev.interlace.runtime.log.Leases;
import dev.interlace.runtime.stream.StreamCatalog;
import dev.interlace.runtime.stream.StreamDescriptor;
import dev.interlace.runtime.warehouse.FlushRecord;
import dev.interlace.runtime.warehouse.Warehouse;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Moves events from the log into the warehouse, exactly once, in micro-batches per stream.
 *
 * <p>An append schedules a flush of its stream after {@code flush-delay-ms} (at once when a full batch is waiting);
 * a flush drains the stream batch by batch ({@code flush-batch-rows}) while full batches wait, reading and decoding
 * the next batch while the current one is written ({@link FlushBatches}); a partial batch ends the run, and what
 * arrived meanwhile is flushed {@code flush-delay-ms} after the run started, so that a steady trickle is flushed
 * once per delay rather than back to back in tiny batches (a read waiting for the stream brings that forward: see
 * {@link #hurry}). Each batch is one warehouse transaction holding the rows and the new watermark, guarded by a
 * compare-and-set and this flusher's fencing token. Streams are independent: one stream failing is retried with
 * backoff and never holds up the others. Flushing runs on its own threads, so nothing (model runs included) can
 * queue in front of it.
 *
 * <p>The flusher holds each stream through a lease on the stream's flusher group in the log ({@link FlushLease}), renewed
 * every third of its time to live (which also commits the flushed watermark there, so the group shows the flusher's
 * lag). A new lease's fencing token is recorded in the warehouse before anything is written with it; a flusher whose
 * lease was taken over while it was paused has its next append refused and stands by until the lease is free.
 *
 * <p>The flusher schedules the runs and handles their failures; {@link StreamDrain} writes a run's batches.
 */
public final class Flusher implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(Flusher.class.getName());
    private static final long MAX_BACKOFF_MILLIS = 30_000;
    private static final int THREADS = 2;
    /** The shortest time between the starts of a stream's flushes that waiting readers bring forward. */
    static final long MIN_HURRIED_GAP_MILLIS = 50;
    /** Fenced appends in a row that are retried at once (re-leasing); more count as a failure, with backoff. */
    private static final int MAX_FENCED_IN_A_ROW = 3;

    private final StreamCatalog catalog;
    private final StreamLog log;
    private final ConsumerGroups groups;
    private final Optional<Warehouse> warehouse;
    /** Whether the warehouse runs on another node ({@code --role ingest}) rather than nowhere. */
    private final boolean warehouseElsewhere;
    private final FlushPositions positions;
    private final FlushListener listener;
    /** The leases on the streams; null without a warehouse. */
    private final StreamLeases leases;
    private final FlushBatches batches;
    /** Writes a run's batches; null without a warehouse. */
    private final StreamDrain drain;
    private final RequestIds ids;
    private final SystemRecords records;
    private final Clock clock;
    private final long delayMillis;
    private final int batchRows;
    private final boolean keepsRecords;
    private final Map<String, StreamFlush> streams = new ConcurrentHashMap<>();
    private final List<FlushedListener> flushedListeners = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final ScheduledExecutorService executor;
    private final ComponentHealth components;
    private volatile boolean closed;
    private final ReleasedRuns released = new ReleasedRuns();

    /**
     * A flusher that reports an error of a stream's flush (not a failed write: a fault of its own) to
     * {@code components}.
     */
    public Flusher(StreamCatalog catalog, StreamLog log, ConsumerGroups groups, Optional<Warehouse> warehouse,
            FlushPositions positions, FlushListener listener, FlushLease lease, RequestIds ids, SystemRecords records,
            Clock clock, InterlaceConfig config, RecentEvents recent, ComponentHealth components) {
        this.components = components;
        this.catalog = catalog;
        this.log = log;
        this.groups = groups;
        this.warehouse = warehouse;
        this.warehouseElsewhere = !config.role().runsWarehouse();
        this.positions = positions;
        this.listener = listener;
        this.leases = warehouse.map(w -> new StreamLeases(groups, w, positions, lease, ids, records, clock,
                Math.max(1, config.maxPending() / 4)))
                .orElse(null);
        this.ids = ids;
        this.records = records;
        this.clock = clock;
        this.delayMillis = config.flushDelayMillis();
        this.batchRows = config.flushBatchRows();
        this.keepsRecords = config.keepsRecords();
        this.batches = new FlushBatches(log, recent, batchRows, config.flushBatchBytes());
        this.drain = warehouse.map(w -> new StreamDrain(w, leases, batches, positions, listener, flushedListeners, ids,
                clock, keepsRecords, () -> closed)).orElse(null);
        AtomicInteger count = new AtomicInteger();
        ScheduledThreadPoolExecutor pool = new ScheduledThreadPoolExecutor(THREADS,
                DaemonThreads.numbered("interlace-flush-"));
        // On close, retries waiting out a failing stream's backoff are dropped rather than waited for.
        pool.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        this.executor = pool;
    }

    /**
     * Told after each batch of a stream's events is committed to the warehouse (models run on it), with the trace
     * ids of the requests whose events it materialised.
     */
    @FunctionalInterface
    public interface FlushedListener {
        void flushed(String stream, long watermark, TraceIds traces);
    }

    /** Registers a listener told after every committed batch of events. */
    public void addFlushedListener(FlushedListener listener) {
        flushedListeners.add(listener);
    }

    /** Whether a warehouse is configured (without one, events stay in the log only). */
    public boolean materialises() {
        return warehouse.isPresent();
    }

    /**
     * Prepares every declared stream's tables (migrating them), leases the streams, takes over their watermarks and
     * starts catching up on whatever the log holds beyond them.
     *
     * @throws Warehouse.MigrationException when a declared schema cannot be migrated
     */
    public void start() {
        prepare();
        startFlushing();
    }

    /**
     * The first half of {@link #start()}: prepares (and migrates) every declared stream's tables, leases the streams
     * and takes over their watermarks, without flushing yet. A stream whose lease another flusher holds stands by.
     *
     * @throws IllegalStateException when the warehouse records a newer fencing token than the log grants
     */
    public void prepare() {
        if (warehouseElsewhere) {
            LOG.info("--role ingest: this node runs no flusher; the warehouse node materialises the streams");
            return;
        }
        if (warehouse.isEmpty()) {
            LOG.warning("no warehouse on the class path: events are logged durably but not materialised");
            return;
        }
        boolean holdsRows = false;
        for (StreamDescriptor stream : catalog.logStreams()) {
            Warehouse.Positions committed = warehouse.get().prepare(stream);
            StreamFlush flush = new StreamFlush(stream);
            positions.set(Warehouse.Target.events(stream.name()), committed.events());
            positions.set(Warehouse.Target.quarantine(stream.name()), committed.quarantine());
            holdsRows |= committed.events() > 0 || committed.quarantine() > 0;
            leases.hold(flush);
            streams.put(stream.name(), flush);
        }
        for (StreamFlush flush : streams.values()) {
            flush.holdsRows = holdsRows;
        }
        // A stream dropped from the code is no longer flushed, but its positions are still the warehouse's.
        for (String name : log.heads().keySet().stream().filter(n -> catalog.findLogStream(n).isEmpty()).toList()) {
            for (Warehouse.Target target : List.of(Warehouse.Target.events(name), Warehouse.Target.quarantine(name))) {
                try {
                    positions.set(target, warehouse.get().watermark(target));
                } catch (RuntimeException e) {
                    LOG.log(Level.WARNING, "cannot read the watermark of undeclared stream " + name, e);
                }
            }
        }
    }

    /** The second half of {@link #start()}: flushes on every append from now on, and catches up at once. */
    public void startFlushing() {
        if (warehouse.isEmpty()) {
            return;
        }
        log.addAppendListener(this::appended);
        for (StreamFlush flush : streams.values()) {
            schedule(flush, 0);
        }
        long renew = leases.renewEveryNanos();
        try {
            // Keeps idle streams' leases too: a run with nothing to flush only renews.
            executor.scheduleWithFixedDelay(() -> streams.values().forEach(flush -> schedule(flush, 0)), renew, renew,
                    TimeUnit.NANOSECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // closing
        }
    }

    /**
     * The flush state of a stream. On a node whose warehouse runs elsewhere ({@code --role ingest}) it is
     * {@code standby}, naming the node that holds the stream's flush lease (or saying that none does).
     */
    public FlushStatus status(String stream) {
        if (warehouseElsewhere) {
            return flushedElsewhere(stream);
        }
        StreamFlush flush = streams.get(stream);
        return flush == null ? FlushStatus.IDLE : flush.status;
    }

    private FlushStatus flushedElsewhere(String stream) {
        long now = micros();
        for (Leases.Group group : groups.groups(stream)) {
            if (FlushLease.isFlusherGroup(group.group()) && group.holder() != null
                    && group.expiresAtMicros() > now) {
                return new FlushStatus(FlushState.STANDBY, "this node runs no warehouse (--role ingest); stream "
                        + stream + " is flushed by " + group.holder(), 0);
            }
        }
        return new FlushStatus(FlushState.STANDBY, "this node runs no warehouse (--role ingest), and no node"
                + " flushes stream " + stream + " right now: its events wait in the log until a warehouse node runs",
                0);
    }

    /**
     * Flushes every stream until caught up or until {@code timeout} passes; used on shutdown and by tests. Streams
     * whose flush is failing, or that another flusher holds, are not waited for (their backlog stays in the log).
     *
     * @return whether every stream is caught up
     */
    public boolean drain(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        java.util.Set<StreamFlush> started = new java.util.HashSet<>();
        while (System.nanoTime() < deadline) {
            long runs = released.count();
            boolean caughtUp = true;
            boolean waiting = false;
            for (StreamFlush flush : streams.values()) {
                if (backlog(flush) > 0) {
                    caughtUp = false;
                    if (!flush.status.failing() && !flush.status.standby() && !flush.status.stopped()) {
                        waiting = true;
                        if (started.add(flush)) {
                            // Now, even if a flush is already scheduled later (a long --flush-delay-ms).
                            runNow(flush);
                        } else {
                            schedule(flush, 0);
                        }
                    }
                }
            }
            if (caughtUp) {
                return true;
            }
            if (!waiting) {
                return false;
            }
            if (!released.awaitAfter(runs, deadline)) {
                return false;
            }
        }
        return false;
    }

    /** The runs that were done with their stream, counted: what waits for the flusher's progress waits on. */
    public ReleasedRuns runs() {
        return released;
    }

    /** A run is done with its stream: unlocks it, and wakes a {@link #drain} to look at the backlogs again. */
    private void release(StreamFlush flush) {
        flush.lock.unlock();
        released.released();
    }

    private void appended(String stream) {
        StreamFlush flush = streams.get(stream);
        if (flush != null && !flush.lock.isLocked()) {
            // While a flush runs, it looks at the backlog again when it ends (see run), so it is not scheduled here.
            schedule(flush, backlog(flush) >= batchRows ? 0 : delayMillis);
        }
    }

    /**
     * A read waits for {@code stream}: its next flush starts now rather than {@code --flush-delay-ms} after the last,
     * though still at most every {@value #MIN_HURRIED_GAP_MILLIS} ms, which bounds how often readers make it commit.
     */
    public void hurry(String stream) {
        StreamFlush flush = streams.get(stream);
        if (flush != null && !flush.lock.isLocked() && backlog(flush) > 0
                && System.nanoTime() - flush.startedNanos >= TimeUnit.MILLISECONDS.toNanos(MIN_HURRIED_GAP_MILLIS)) {
            runNow(flush);
        }
    }

    private long backlog(StreamFlush flush) {
        var head = log.heads().get(flush.stream.name());
        if (head == null) {
            return 0;
        }
        return (head.head() - positions.events(flush.stream.name()))
                + (head.quarantineHead() - positions.quarantine(flush.stream.name()));
    }

    private void schedule(StreamFlush flush, long delay) {
        if (closed || !flush.queued.compareAndSet(false, true)) {
            return;
        }
        try {
            executor.schedule(() -> run(flush), delay, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            flush.queued.set(false);
        }
    }

    private void runNow(StreamFlush flush) {
        try {
            executor.execute(() -> run(flush));
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // closing: nothing more is flushed
        }
    }

    private void run(StreamFlush flush) {
        flush.queued.set(false);
        if (flush.status.stopped() || !flush.lock.tryLock()) {
            return; // the running flush drains until caught up and reschedules if anything arrived meanwhile
        }
        long startedNanos = System.nanoTime();
        flush.startedNanos = startedNanos;
        try {
            if (!leases.hold(flush)) {
                release(flush);
                schedule(flush, Math.max(10, (flush.heldUntilMicros - micros()) / 1_000 + 10));
                return;
            }
            flush.status = flush.status.failing() ? flush.status : new FlushStatus(FlushState.FLUSHING, null, 0);
            drain.drainEvents(flush);
            drain.drainQuarantine(flush);
            if (flush.token == 0) { // the lease was taken over between two batches: standing by
                release(flush);
                schedule(flush, Math.max(10, (flush.heldUntilMicros - micros()) / 1_000 + 10));
                return;
            }
            if (flush.status.failing()) {
                LOG.info("flushing stream " + flush.stream.name() + " recovered");
                records.record(SysRecord.of(micros(), SysEvent.FLUSH_RECOVERED, flush.stream.name(), flush.lastFlushId,
                        "flushing stream " + flush.stream.name() + " recovered after " + flush.failures
                                + " failed attempts"));
            }
            flush.status = FlushStatus.IDLE;
            flush.failures = 0;
            flush.fencedInARow = 0;
            components.recovered(ComponentHealth.Component.FLUSHER, flush.stream.name());
        } catch (Warehouse.FencedException e) {
            flush.attempt = null; // refused, not failed: no failed-flush record for it
            if (++flush.fencedInARow <= MAX_FENCED_IN_A_ROW) {
                // Another flusher took the stream over (or committed first): lease again, which either claims the
                // stream afresh from the watermark it committed or stands by.
                LOG.info("flushing stream " + flush.stream.name() + " was fenced off: " + e.getMessage());
                flush.token = 0;
                leases.resync(flush);
                release(flush);
                schedule(flush, 0);
                return;
            }
            // Fenced again and again although leased afresh: a failure like any other, retried with backoff.
            flush.token = 0;
            failed(flush, e);
            return;
        } catch (LogTrimmedException e) {
            stop(flush, e);
            return;
        } catch (RuntimeException e) {
            failed(flush, e);
            return;
        } catch (Error e) {
            // Out of memory ends the process (see FatalErrors). Any other error (a fault of this process, not of the
            // warehouse) is not let into the executor, which would swallow it with the stream's lock held: the
            // flusher says it failed and restarts the stream's flush with backoff like after a failed write; the
            // process exits if it does not recover (see ComponentHealth).
            FatalErrors.exitIfFatal(e);
            components.failed(ComponentHealth.Component.FLUSHER, flush.stream.name(), e,
                    ComponentHealth.Fate.RESTARTING);
            failed(flush, new IllegalStateException("the flusher failed: " + e, e));
            return;
        }
        release(flush);
        // Appends seen while the lock was held did not schedule: the next flush starts flush-delay-ms after this one
        // started (at once for a full batch), so that under steady load a stream is flushed once per delay.
        long backlog = backlog(flush);
        if (backlog > 0) {
            long sinceStart = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNanos);
            schedule(flush, backlog >= batchRows ? 0 : Math.max(0, delayMillis - sinceStart));
        }
    }

    /** Records a failed run (state, flush record, system record on the transition) and retries with backoff. */
    private void failed(StreamFlush flush, RuntimeException e) {
        leases.resync(flush);
        flush.failures++;
        long since = flush.status.failing() ? flush.status.failingSinceMicros() : micros();
        String error = describe(e);
        FlushRecord attempt = flush.attempt;
        flush.attempt = null;
        String id = attempt != null ? attempt.id() : ids.mintWithPrefix("flush-");
        if (attempt != null && keepsRecords) {
            try {
                warehouse.orElseThrow().recordFailedFlush(new FlushRecord(attempt.id(), attempt.target(),
                        attempt.firstOffset(), attempt.lastOffset(), attempt.rows(),
                        attempt.startedAtMicros(), 0, error, attempt.traces()));
            } catch (RuntimeException unrecorded) {
                LOG.log(Level.FINE, "the failed flush " + id + " could not be recorded", unrecorded);
            }
        }
        if (!flush.status.failing()) {
            LOG.log(Level.WARNING, "flushing stream " + flush.stream.name() + " failed (" + id
                    + "); retrying with backoff", e);
            records.record(SysRecord.of(micros(), SysEvent.FLUSH_FAILING, flush.stream.name(), id,
                    "flushing stream " + flush.stream.name() + " failed: " + error));
        }
        flush.status = new FlushStatus(FlushState.FAILING, error, since);
        long backoff = Math.min(MAX_BACKOFF_MILLIS, 100L << Math.min(flush.failures, 10));
        release(flush);
        schedule(flush, backoff);
    }

    /**
     * Stops the stream's flush for good: the log was trimmed past its watermark, and going on would leave a hole.
     * The lease is released, so that on the Kafka log this replica stops holding the log's trims back (it is dropped
     * from the set after {@code --replica-timeout-ms}) and queries go to replicas that flush.
     */
    private void stop(StreamFlush flush, LogTrimmedException e) {
        flush.attempt = null;
        flush.status = new FlushStatus(FlushState.STOPPED, e.getMessage(), micros());
        LOG.severe("flushing stream " + flush.stream.name() + " stopped: " + e.getMessage());
        records.record(SysRecord.of(micros(), SysEvent.FLUSH_STOPPED, flush.stream.name(),
                ids.mintWithPrefix("flush-"), "flushing stream " + flush.stream.name() + " stopped: " + e.getMessage()));
        listener.stopped(flush.stream.name());
        leases.release(flush);
        release(flush);
    }

    private long micros() {
        return EpochMicros.now(clock);
    }

    private static String describe(Throwable e) {
        StringBuilder text = new StringBuilder(String.valueOf(e.getMessage()));
        Throwable cause = e.getCause();
        if (cause != null && cause.getMessage() != null && !text.toString().contains(cause.getMessage())) {
            text.append(": ").append(cause.getMessage());
        }
        return text.toString();
    }

    /**
     * Stops flushing; batches in progress finish. The streams' leases are released (their flushed watermarks
     * committed first), so that whoever flushes next need not wait for them to expire.
     */
    @Override
    public void close() {
        closed = true;
        if (DaemonThreads.stop(executor, Duration.ofSeconds(30))) {
            for (StreamFlush flush : streams.values()) {
                leases.release(flush);
            }
        }
        batches.close();
        warehouse.ifPresent(Warehouse::close);
    }
}
