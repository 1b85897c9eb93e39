package dev.interlace.runtime.status;

import dev.interlace.runtime.config.InterlaceConfig;
import dev.interlace.runtime.flush.FlushStatus;
import dev.interlace.runtime.flush.Flusher;
import dev.interlace.runtime.ingest.IngestLimits;
import dev.interlace.runtime.log.EventLog;
import dev.interlace.runtime.stream.StreamCatalog;
import dev.interlace.runtime.stream.StreamDescriptor;
import dev.interlace.runtime.health.ComponentHealth;
import dev.interlace.runtime.ops.DiskSpace;
import dev.interlace.runtime.ops.EpochMicros;
import jakarta.inject.Inject;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

/**
 * Whether the server can take publishes now: the log writable, the disk above its floor, no stream's flush failing
 * for longer than {@code --ready-flush-failing-ms} or stopped (the log trimmed past its watermark), and no component that serves publishes failed
 * ({@link ComponentHealth}). {@code GET /health/ready} answers it; an embedding application
 * shows it in its own health checks.
 */
public final class Readiness {

    /**
     * A stream whose flush is failing, or stopped (the log was trimmed past its watermark): since when (epoch
     * microseconds) and with what error.
     */
    public record FailingFlush(String stream, long sinceMicros, String error, boolean stopped) {
        /** A flush that fails and is retried. */
        public FailingFlush(String stream, long sinceMicros, String error) {
            this(stream, sinceMicros, error, false);
        }
    }

    /**
     * One check's outcome.
     *
     * @param logProblem why the log cannot take writes, or null when it can
     * @param freeDiskBytes usable bytes in the data directory's file system
     * @param minFreeDiskBytes the floor below which publishes are refused
     * @param flushFailing streams whose flush has failed for longer than the threshold, or stopped
     * @param flushFailingBelowThreshold streams whose flush fails, not yet for long enough to count
     * @param failedComponents every component that failed and has not recovered; those that serve publishes count
     */
    public record Report(String logProblem, long freeDiskBytes, long minFreeDiskBytes, List<FailingFlush> flushFailing,
            List<String> flushFailingBelowThreshold, List<ComponentHealth.Failure> failedComponents) {

        /** A report with no failed component. */
        public Report(String logProblem, long freeDiskBytes, long minFreeDiskBytes, List<FailingFlush> flushFailing,
                List<String> flushFailingBelowThreshold) {
            this(logProblem, freeDiskBytes, minFreeDiskBytes, flushFailing, flushFailingBelowThreshold, List.of());
        }

        public boolean logWritable() {
            return logProblem == null;
        }

        public boolean diskBelowFloor() {
            return freeDiskBytes < minFreeDiskBytes;
        }

        /** The failed components that serve publishes: each makes the server not ready. */
        public List<ComponentHealth.Failure> failedPublishComponents() {
            return failedComponents.stream().filter(failure -> failure.component().servesPublishes()).toList();
        }

        /**
         * Ready: the log writable, the disk above its floor, no flush failing beyond the threshold and no component
         * that serves publishes failed.
         */
        public boolean ready() {
            return logWritable() && !diskBelowFloor() && flushFailing.isEmpty() && failedPublishComponents().isEmpty();
        }
    }

    private final EventLog log;
    private final DiskSpace disk;
    private final IngestLimits limits;
    private final StreamCatalog catalog;
    private final Flusher flusher;
    private final long failingThresholdMicros;
    private final Clock clock;
    private final ComponentHealth components;

    @Inject
    Readiness(EventLog log, DiskSpace disk, IngestLimits limits, StreamCatalog catalog, Flusher flusher,
            InterlaceConfig config, Clock clock, ComponentHealth components) {
        this.components = components;
        this.log = log;
        this.disk = disk;
        this.limits = limits;
        this.catalog = catalog;
        this.flusher = flusher;
        this.failingThresholdMicros = config.readyFlushFailingMillis() * 1_000L;
        this.clock = clock;
    }

    /** Checks now (reads the disk's free space and every stream's flush state). */
    public Report check() {
        EventLog.Health health = log.health();
        long nowMicros = EpochMicros.now(clock);
        List<FailingFlush> failing = new ArrayList<>();
        List<String> failingBriefly = new ArrayList<>();
        for (StreamDescriptor stream : catalog.logStreams()) {
            FlushStatus status = flusher.status(stream.name());
            if (status.stopped()) {
                failing.add(new FailingFlush(stream.name(), status.failingSinceMicros(), status.error(), true));
            } else if (status.failing() && nowMicros - status.failingSinceMicros() < failingThresholdMicros) {
                failingBriefly.add(stream.name());
            } else if (status.failing()) {
                failing.add(new FailingFlush(stream.name(), status.failingSinceMicros(), status.error()));
            }
        }
        return new Report(health.writable() ? null : health.problem(), disk.usableBytesNow(),
                limits.minFreeDiskBytes(), List.copyOf(failing), List.copyOf(failingBriefly),
                List.copyOf(components.failures()));
    }
}
