package dev.interlace.runtime.log;

import dev.interlace.runtime.config.InterlaceConfig;
import dev.interlace.runtime.ops.DaemonThreads;
import dev.interlace.runtime.records.SysEvent;
import dev.interlace.runtime.records.SysRecord;
import dev.interlace.runtime.records.SystemRecords;
import dev.interlace.runtime.stream.StreamCatalog;
import dev.interlace.runtime.stream.StreamDescriptor;
import dev.interlace.runtime.warehouse.FlushRecords;
import dev.interlace.runtime.health.ComponentHealth;
import dev.interlace.runtime.ops.EpochMicros;
import dev.interlace.runtime.ops.FatalErrors;
import dev.interlace.runtime.ops.RequestIds;
import jakarta.inject.Inject;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Reclaims log space: every minute, for each stream with a retention, trims the log entries that are both
 * materialised (at or below the watermark; with warehouse replicas, the slowest one's) and older than the retention
 * window. It never trims an unflushed entry, and never one inside the window, whose key must still deduplicate. Warehouse tables keep their history.
 */
public final class RetentionSweep implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(RetentionSweep.class.getName());
    static final long INTERVAL_SECONDS = 60;

    private final StreamCatalog catalog;
    private final EventLog log;
    private final PublishRecords publishRecords;
    private final Watermarks watermarks;
    private final Optional<FlushRecords> warehouse;
    private final SystemRecords records;
    private final RequestIds ids;
    private final long recordRetentionMicros;
    private final Clock clock;
    private ScheduledExecutorService executor;
    private final java.util.concurrent.locks.ReentrantLock sweeping = new java.util.concurrent.locks.ReentrantLock();
    private final ComponentHealth components;

    @Inject
    public RetentionSweep(StreamCatalog catalog, EventLog log, PublishRecords publishRecords, Watermarks watermarks,
            Optional<FlushRecords> warehouse, SystemRecords records, RequestIds ids, InterlaceConfig config,
            Clock clock, ComponentHealth components) {
        this.components = components;
        this.catalog = catalog;
        this.log = log;
        this.publishRecords = publishRecords;
        this.watermarks = watermarks;
        this.warehouse = warehouse;
        this.records = records;
        this.ids = ids;
        this.recordRetentionMicros = config.recordRetentionMicros();
        this.clock = clock;
    }

    /** Sweeps every minute from now on. */
    public synchronized void start() {
        executor = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("interlace-retention"));
        executor.scheduleWithFixedDelay(() -> {
            try {
                sweep();
                components.recovered(ComponentHealth.Component.RETENTION_SWEEP, null);
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "retention sweep failed; retried at the next interval", e);
            } catch (Error e) {
                // Out of memory ends the process; any other error is said and the sweep runs again at the next
                // interval (rethrown, it would stop the executor's schedule for good).
                FatalErrors.exitIfFatal(e);
                components.failed(ComponentHealth.Component.RETENTION_SWEEP, null, e,
                        ComponentHealth.Fate.RESTARTING);
            }
        }, INTERVAL_SECONDS, INTERVAL_SECONDS, TimeUnit.SECONDS);
    }

    /**
     * Sweeps once now.
     *
     * @return entries trimmed per stream (streams with nothing to trim are left out)
     */
    public Map<String, Long> sweep() {
        sweeping.lock();
        try {
            return sweepNow();
        } finally {
            sweeping.unlock();
        }
    }

    /**
     * Runs {@code work} with no sweep under way (waiting for one that is): an online backup copies the warehouse
     * first and the log after it, and the log must still hold every event the copied warehouse has not flushed.
     */
    public <T> T paused(java.util.concurrent.Callable<T> work) throws Exception {
        sweeping.lock();
        try {
            return work.call();
        } finally {
            sweeping.unlock();
        }
    }

    private Map<String, Long> sweepNow() {
        long nowMicros = EpochMicros.now(clock);
        Map<String, Long> trimmed = new LinkedHashMap<>();
        String id = ids.mintWithPrefix("sched-");
        if (recordRetentionMicros > 0) {
            long publishes = publishRecords.trimPublishes(nowMicros - recordRetentionMicros);
            long flushes = warehouse.map(w -> w.trimFlushes(nowMicros - recordRetentionMicros)).orElse(0L);
            if (publishes + flushes > 0) {
                records.record(SysRecord.of(nowMicros, SysEvent.RETENTION_SWEEP, null, id, "removed " + publishes
                        + " publish records and " + flushes + " flush records past the record retention"));
            }
        }
        for (StreamDescriptor stream : catalog.logStreams()) {
            if (stream.retentionMillis().isEmpty()) {
                continue;
            }
            long cutoff = nowMicros - stream.retentionMillis().getAsLong() * 1_000L;
            long bound = Math.min(log.firstOffsetSince(stream.name(), cutoff) - 1,
                    watermarks.retained(stream.name()));
            if (bound < 1) {
                continue;
            }
            long removed;
            try {
                removed = log.trim(stream.name(), bound);
            } catch (NoSequencerException elsewhere) {
                continue; // a log with one sequencer per stream (Kafka): the stream's sequencer trims it
            }
            if (removed > 0) {
                trimmed.put(stream.name(), removed);
                String message = "stream " + stream.name() + " trimmed " + removed
                        + " materialised entries older than " + stream.retention() + " (through offset " + bound + ")";
                LOG.info("retention sweep: " + message);
                records.record(SysRecord.of(nowMicros, SysEvent.RETENTION_SWEEP, stream.name(), id, message));
            }
        }
        return trimmed;
    }

    @Override
    public synchronized void close() {
        if (executor != null) {
            executor.shutdownNow();
        }
    }
}
