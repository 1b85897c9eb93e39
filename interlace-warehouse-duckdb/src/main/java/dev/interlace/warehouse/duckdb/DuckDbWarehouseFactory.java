package dev.interlace.warehouse.duckdb;

import dev.interlace.runtime.warehouse.AppendSteps;
import dev.interlace.runtime.warehouse.Warehouse;
import dev.interlace.runtime.warehouse.WarehouseFactory;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.function.UnaryOperator;
import java.util.logging.Level;
import java.util.logging.Logger;

/** Opens {@code <data-dir>/warehouse.duckdb}; listed in {@code META-INF/services} for the runtime to find. */
public final class DuckDbWarehouseFactory implements WarehouseFactory {

    private static final Logger LOG = Logger.getLogger(DuckDbWarehouseFactory.class.getName());

    /**
     * Unpacks and loads DuckDB's native library (tens of megabytes inflated from the jar at every start). A failure is
     * logged with its cause here: opening the warehouse then fails on another thread, which Java 17 tells only that
     * the class could not be initialised.
     */
    @Override
    public void load() {
        try {
            DuckDbNativeLibrary.load();
        } catch (LinkageError | RuntimeException e) {
            LOG.log(Level.SEVERE, "cannot load DuckDB's native library; the warehouse cannot open", e);
        }
    }

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
