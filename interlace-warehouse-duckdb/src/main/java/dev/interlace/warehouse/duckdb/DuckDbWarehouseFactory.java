package dev.interlace.warehouse.duckdb;

import dev.interlace.runtime.flush.FlushListener;
import dev.interlace.runtime.warehouse.Warehouse;
import dev.interlace.runtime.warehouse.WarehouseFactory;
import java.nio.file.Path;

/** Opens {@code <data-dir>/warehouse.duckdb}; listed in {@code META-INF/services} for the runtime to find. */
public final class DuckDbWarehouseFactory implements WarehouseFactory {

    @Override
    public Warehouse open(Path dataDirectory, FlushListener listener) {
        return new DuckDbWarehouse(dataDirectory.resolve("warehouse.duckdb"), listener);
    }
}
