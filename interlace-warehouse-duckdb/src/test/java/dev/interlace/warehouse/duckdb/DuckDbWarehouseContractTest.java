package dev.interlace.warehouse.duckdb;

import dev.interlace.runtime.flush.FlushListener;
import dev.interlace.runtime.warehouse.Warehouse;
import dev.interlace.runtime.warehouse.tck.WarehouseContract;
import java.nio.file.Path;

/**
 * The DuckDB warehouse against the {@link WarehouseContract}: the reference run of the warehouse conformance suite.
 * Each test's warehouse is {@code <dir>/warehouse.duckdb} in its own temporary directory, opened through the factory
 * the runtime finds with {@code ServiceLoader}.
 */
class DuckDbWarehouseContractTest extends WarehouseContract {

    @Override
    protected Warehouse openWarehouse(Path dataDirectory, FlushListener listener) {
        return new DuckDbWarehouseFactory().open(dataDirectory, listener);
    }
}
