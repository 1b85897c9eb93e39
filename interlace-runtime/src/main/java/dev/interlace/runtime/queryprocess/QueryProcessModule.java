package dev.interlace.runtime.queryprocess;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import dev.interlace.runtime.config.InterlaceConfig;
import dev.interlace.runtime.config.LogOptions;
import dev.interlace.runtime.config.SqlIsolation;
import dev.interlace.runtime.health.ComponentHealth;
import dev.interlace.runtime.warehouse.Warehouse;
import java.util.Optional;
import java.util.logging.Logger;

/**
 * The query process, with {@code --sql-isolation process} on a server that owns its log and its warehouse (the
 * SQLite log); none otherwise, and {@code POST /sql} runs in the server's warehouse.
 */
public final class QueryProcessModule extends AbstractModule {

    private static final Logger LOG = Logger.getLogger(QueryProcessModule.class.getName());

    @Provides
    @Singleton
    Optional<QueryProcess> queryProcess(InterlaceConfig config, Optional<Warehouse> warehouse,
            ComponentHealth components) {
        if (config.sqlIsolation() != SqlIsolation.PROCESS || warehouse.isEmpty()) {
            return Optional.empty();
        }
        if (!config.log().backend().equals(LogOptions.SQLITE)) {
            LOG.warning("--sql-isolation process is not available on the Kafka log yet: POST /sql runs in this"
                    + " node's warehouse, where an expression DuckDB cannot interrupt may outlive --sql-timeout-ms");
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
