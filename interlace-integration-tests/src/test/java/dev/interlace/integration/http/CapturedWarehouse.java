package dev.interlace.integration.http;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import dev.interlace.runtime.config.InterlaceConfig;
import dev.interlace.runtime.flush.FlushListener;
import dev.interlace.runtime.warehouse.Warehouse;
import dev.interlace.warehouse.duckdb.DuckDbWarehouseFactory;
import java.util.Optional;
import java.util.Set;

/** Opens the real DuckDB warehouse as the server would, and keeps it so that a test can read it directly. */
final class CapturedWarehouse extends AbstractModule {

    private volatile Warehouse warehouse;

    @Provides
    @Singleton
    Optional<Warehouse> warehouse(InterlaceConfig config, Set<FlushListener> listeners) {
        FlushListener listener = FlushListener.all(listeners);
        warehouse = new DuckDbWarehouseFactory().open(config.dataDirectory(), listener);
        return Optional.of(warehouse);
    }

    Warehouse get() {
        if (warehouse == null) {
            throw new IllegalStateException("the server has not opened its warehouse");
        }
        return warehouse;
    }
}
