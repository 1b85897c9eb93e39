package dev.interlace.runtime.flush;

import com.google.inject.Inject;
import dev.interlace.runtime.log.StreamHead;
import dev.interlace.runtime.log.EventLog;
import dev.interlace.runtime.log.Watermarks;
import dev.interlace.runtime.ops.Metrics;
import dev.interlace.runtime.stream.StreamCatalog;
import dev.interlace.runtime.stream.StreamDescriptor;
import dev.interlace.runtime.warehouse.Warehouse;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Flushing as meters, per declared stream: how long each batch's warehouse transaction took and how many rows it
 * carried (events and quarantined events apart), and how many entries wait to be materialised. The meters are
 * created once at start-up; a committed batch only looks its stream up.
 */
public final class FlushMetrics implements FlushListener {

    private final Map<String, StreamMeters> streams;

    @Inject
    public FlushMetrics(MeterRegistry registry, StreamCatalog catalog, EventLog log, Watermarks watermarks) {
        Map<String, StreamMeters> meters = new HashMap<>();
        for (StreamDescriptor stream : catalog.logStreams()) {
            String name = stream.name();
            meters.put(name, new StreamMeters(new BatchMeters(registry, name, "events"),
                    new BatchMeters(registry, name, "quarantine"), Counter.builder("interlace.flush.rows.from.log")
                            .description("Events materialised from the log, read back and decoded again, rather than"
                                    + " from those kept in memory since their publish")
                            .tag("stream", name)
                            .register(registry), Counter.builder("interlace.flush.stopped")
                            .description("Times the stream's flush stopped because the log was trimmed past its"
                                    + " watermark: the warehouse misses events the log no longer holds")
                            .tag("stream", name)
                            .register(registry)));
            Gauge.builder("interlace.pending", () -> pending(log, watermarks, name))
                    .description("Entries of the stream (events and quarantined events) in the log and not yet"
                            + " materialised in the warehouse: log head minus flushed watermark")
                    .baseUnit("events")
                    .tag("stream", name)
                    .register(registry);
        }
        this.streams = Map.copyOf(meters);
    }

    @Override
    public void committed(Warehouse.Target target, int rows, long durationNanos) {
        StreamMeters meters = streams.get(target.stream());
        if (meters == null) {
            return;
        }
        BatchMeters batch = target.quarantine() ? meters.quarantine : meters.events;
        batch.duration.record(durationNanos, TimeUnit.NANOSECONDS);
        batch.rows.record(rows);
    }

    @Override
    public void committedFromLog(Warehouse.Target target, int rows) {
        StreamMeters meters = streams.get(target.stream());
        if (meters != null) {
            meters.fromLog.increment(rows);
        }
    }

    @Override
    public void stopped(String stream) {
        StreamMeters meters = streams.get(stream);
        if (meters != null) {
            meters.stopped.increment();
        }
    }

    private static long pending(EventLog log, Watermarks watermarks, String stream) {
        StreamHead head = log.heads().get(stream);
        if (head == null) {
            return 0;
        }
        return (head.head() - watermarks.events(stream)) + (head.quarantineHead() - watermarks.quarantine(stream));
    }

    private record StreamMeters(BatchMeters events, BatchMeters quarantine, Counter fromLog, Counter stopped) {}

    /** The meters of one stream's events, or of its quarantine. */
    private static final class BatchMeters {
        final Timer duration;
        final DistributionSummary rows;

        BatchMeters(MeterRegistry registry, String stream, String kind) {
            duration = Timer.builder("interlace.flush.duration")
                    .description("Time of one flush batch's warehouse transaction (watermark, rows, commit)")
                    .tags("stream", stream, "kind", kind)
                    .serviceLevelObjectives(Metrics.latencyBuckets())
                    .register(registry);
            rows = DistributionSummary.builder("interlace.flush.rows")
                    .description("Rows per committed flush batch; the sum is every row materialised")
                    .tags("stream", stream, "kind", kind)
                    .serviceLevelObjectives(1, 10, 100, 1_000, 5_000, 10_000, 20_000, 50_000, 100_000)
                    .register(registry);
        }
    }
}
