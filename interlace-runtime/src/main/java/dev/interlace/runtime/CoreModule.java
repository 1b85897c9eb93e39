package dev.interlace.runtime;

import com.google.inject.Binder;
import com.google.inject.Module;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import dev.interlace.runtime.config.InterlaceConfig;
import dev.interlace.runtime.ingest.IngestLimits;
import dev.interlace.runtime.sql.QueryLimits;
import dev.interlace.runtime.stream.StreamCatalog;

/**
 * The configuration and the declared streams, which every other module reads. A record: the module is nothing but
 * these two values (Guice finds its {@code @Provides} methods on any module, not only on an {@code AbstractModule}).
 */
record CoreModule(InterlaceConfig config, StreamCatalog catalog) implements Module {

    @Override
    public void configure(Binder binder) {
        binder.bind(InterlaceConfig.class).toInstance(config);
        binder.bind(StreamCatalog.class).toInstance(catalog);
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
