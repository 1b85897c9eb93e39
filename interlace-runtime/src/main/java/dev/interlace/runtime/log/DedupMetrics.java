package dev.interlace.runtime.log;

import com.google.inject.Inject;
import com.google.inject.Provider;
import dev.interlace.runtime.dedup.DedupIndex;
import dev.interlace.runtime.stream.StreamCatalog;
import dev.interlace.runtime.stream.StreamDescriptor;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.function.ToDoubleFunction;

/**
 * The deduplication index as gauges, per keyed stream: how many keys it holds, what they cost in heap and in mapped
 * memory, and in how many segment files. Read from the index's last published {@link DedupIndex.Stats}, never from
 * the writer's own state. A backend without such an index shows none.
 */
public final class DedupMetrics {

    /** The log through a provider: the gauges are registered while the injector is built, before the log opens. */
    @Inject
    DedupMetrics(MeterRegistry registry, StreamCatalog catalog, Provider<EventLog> log) {
        for (StreamDescriptor stream : catalog.logStreams()) {
            if (stream.idempotencyKey() == null) {
                continue;
            }
            String name = stream.name();
            gauge(registry, log, name, "interlace.dedup.keys", "keys", DedupIndex.Stats::keys,
                    "Idempotency keys the deduplication index holds, in memory and in segment files");
            gauge(registry, log, name, "interlace.dedup.heap", "bytes", DedupIndex.Stats::heapBytes,
                    "Heap of the keys the deduplication index keeps in memory (the newest, at most a million)");
            gauge(registry, log, name, "interlace.dedup.mapped", "bytes", DedupIndex.Stats::mappedBytes,
                    "Filters and fences of the deduplication index's segments, memory-mapped (page cache, not heap)");
            gauge(registry, log, name, "interlace.dedup.segments", null, stats -> stats.segments(),
                    "Segment files of the deduplication index in use");
        }
    }

    private static void gauge(MeterRegistry registry, Provider<EventLog> log, String stream, String metric, String unit,
            ToDoubleFunction<DedupIndex.Stats> value, String description) {
        Gauge.builder(metric, () -> log.get().dedupStats(stream).map(value::applyAsDouble).orElse(0.0))
                .description(description)
                .baseUnit(unit)
                .tag("stream", stream)
                .register(registry);
    }
}
