package dev.interlace.runtime.ops;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import dev.interlace.runtime.config.InterlaceConfig;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Clock;

/**
 * Clock, request ids, disk space and metrics: the operational plumbing every other module uses; and the retention
 * sweep, which trims the log and the records once they are no longer needed.
 */
public final class OpsModule extends AbstractModule {

    @Override
    protected void configure() {
    }

    @Provides
    @Singleton
    Clock clock() {
        return Clock.systemUTC();
    }

    @Provides
    @Singleton
    RequestIds requestIds(Clock clock) {
        return new RequestIds(clock);
    }

    @Provides
    @Singleton
    DiskSpace diskSpace(InterlaceConfig config) {
        return new DataDirectoryDiskSpace(config.dataDirectory());
    }

    /** Where every component registers its meters; override the binding to export them elsewhere. */
    @Provides
    @Singleton
    MeterRegistry meterRegistry() {
        return new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    }

    @Provides
    @Singleton
    Metrics metrics(MeterRegistry registry) {
        return new Metrics(registry);
    }

    /** Threads for request work that may block; shut down by the server after the HTTP layer. */
    @Provides
    @Singleton
    Workers workers() {
        return new Workers();
    }
}
