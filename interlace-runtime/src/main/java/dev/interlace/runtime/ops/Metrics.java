package dev.interlace.runtime.ops;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Duration;

/**
 * The server's meters and their Prometheus text exposition ({@code GET /metrics}).
 *
 * <p>Every component that measures something takes the {@link MeterRegistry} and registers its own meters (the log
 * its group commits, the flusher its batches, the model runner its runs, the publish route its requests); this class
 * adds the JVM basics and writes the text. The registry is a {@link PrometheusMeterRegistry} unless a module binds
 * another one (an embedding application, or a benchmark measuring what metrics cost).
 */
public final class Metrics implements AutoCloseable {

    /** The Content-Type of {@link #writePrometheusText}: Prometheus text exposition format 0.0.4. */
    public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private final MeterRegistry registry;
    private final JvmGcMetrics gc = new JvmGcMetrics();

    public Metrics(MeterRegistry registry) {
        this(registry, true);
    }

    /**
     * The metrics in {@code registry}; with {@code jvmMeters} false the JVM basics are left to whoever owns the
     * registry (an embedding application binds its own, and a second GC listener would count every pause twice).
     */
    public Metrics(MeterRegistry registry, boolean jvmMeters) {
        this.registry = registry;
        if (jvmMeters) {
            new JvmMemoryMetrics().bindTo(registry);
            gc.bindTo(registry);
            new JvmThreadMetrics().bindTo(registry);
            new ProcessorMetrics().bindTo(registry);
            new UptimeMetrics().bindTo(registry);
        }
    }

    /** The registry the server's meters live in. */
    public MeterRegistry registry() {
        return registry;
    }

    /**
     * Writes every meter in Prometheus text format 0.0.4.
     *
     * @return false (and writes nothing) when the registry is not a Prometheus registry
     */
    public boolean writePrometheusText(OutputStream out) throws IOException {
        if (!(registry instanceof PrometheusMeterRegistry prometheus)) {
            return false;
        }
        prometheus.scrape(out, CONTENT_TYPE);
        return true;
    }

    /**
     * Histogram buckets for latencies from 1 ms to 10 s (publish, flush): 1, 2.5, 5, 10, 25, 50, 100, 250, 500 ms, 1,
     * 2.5, 5, 10 s.
     */
    public static Duration[] latencyBuckets() {
        return new Duration[] {Duration.ofMillis(1), Duration.ofNanos(2_500_000), Duration.ofMillis(5),
                Duration.ofMillis(10), Duration.ofMillis(25), Duration.ofMillis(50), Duration.ofMillis(100),
                Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofMillis(2_500),
                Duration.ofSeconds(5), Duration.ofSeconds(10)};
    }

    /** Stops listening for GC notifications (the JVM may run other servers after this one). */
    @Override
    public void close() {
        gc.close();
    }
}
