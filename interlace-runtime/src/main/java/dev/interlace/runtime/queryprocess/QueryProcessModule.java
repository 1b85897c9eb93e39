package dev.interlace.runtime.queryprocess;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import dev.interlace.runtime.config.InterlaceConfig;
import dev.interlace.runtime.config.SqlIsolation;
import dev.interlace.runtime.health.ComponentHealth;
import dev.interlace.runtime.warehouse.Warehouse;
import java.util.Optional;

/**
 * The query process, with {@code --sql-isolation process} on a server that runs a warehouse (on the SQLite log, and
 * on Kafka nodes of {@code --role all} or {@code warehouse}); none otherwise, and {@code POST /sql} runs in the
 * server's warehouse (or goes to a warehouse node, from an ingest node).
 */
public final class QueryProcessModule extends AbstractModule {

    @Provides
    @Singleton
    Optional<QueryProcess> queryProcess(InterlaceConfig config, Optional<Warehouse> warehouse,
            ComponentHealth components) {
        if (config.sqlIsolation() != SqlIsolation.PROCESS || warehouse.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new QueryProcess(config, components));
    }

    @Provides
    @Singleton
    Optional<ProcessQueries> processQueries(Optional<QueryProcess> process, InterlaceConfig config,
            io.micrometer.core.instrument.MeterRegistry registry) {
        return process.map(p -> new ProcessQueries(p, config.sqlTimeoutMillis(), config.readWaitMillis(), registry));
    }
}
