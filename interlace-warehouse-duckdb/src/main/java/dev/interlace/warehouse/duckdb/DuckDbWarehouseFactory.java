package dev.interlace.warehouse.duckdb;

import dev.interlace.runtime.warehouse.AppendSteps;
import dev.interlace.runtime.warehouse.Warehouse;
import dev.interlace.runtime.warehouse.WarehouseFactory;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.function.UnaryOperator;

/** Opens {@code <data-dir>/warehouse.duckdb}; listed in {@code META-INF/services} for the runtime to find. */
public final class DuckDbWarehouseFactory implements WarehouseFactory {

    @Override
    public Warehouse open(Path dataDirectory, AppendSteps listener) {
        return new DuckDbWarehouse(dataDirectory.resolve("warehouse.duckdb"), listener);
    }

    /**
     * Opens the warehouse with each connection that model runs and the run history use passed through
     * {@code modelConnections} first: the model crash tests wrap them to stop at, or break, a model's commit.
     */
    public Warehouse open(Path dataDirectory, AppendSteps listener, UnaryOperator<Connection> modelConnections) {
        return new DuckDbWarehouse(dataDirectory.resolve("warehouse.duckdb"), listener, modelConnections);
    }
}
