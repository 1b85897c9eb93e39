package dev.interlace.runtime;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import dev.interlace.runtime.config.InterlaceConfig;
import dev.interlace.runtime.ingest.IngestLimits;
import dev.interlace.runtime.sql.QueryLimits;
import dev.interlace.runtime.stream.StreamCatalog;

/** The configuration and the declared streams, which every other module reads. */
final class CoreModule extends AbstractModule {

    private final InterlaceConfig config;
    private final StreamCatalog catalog;

    CoreModule(InterlaceConfig config, StreamCatalog catalog) {
        this.config = config;
        this.catalog = catalog;
    }

    @Override
    protected void configure() {
        bind(InterlaceConfig.class).toInstance(config);
        bind(StreamCatalog.class).toInstance(catalog);
    }

    @Provides
    @Singleton
    QueryLimits queryLimits() {
        return QueryLimits.DEFAULTS.withTimeout(java.time.Duration.ofMillis(config.sqlTimeoutMillis()));
    }

    @Provides
    @Singleton
    IngestLimits limits() {
        return new IngestLimits(config.maxBodyBytes(), config.maxEventsPerRequest(), config.maxPending(),
                config.minFreeDiskBytes());
    }
}
