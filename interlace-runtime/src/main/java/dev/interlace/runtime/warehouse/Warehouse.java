package dev.interlace.runtime.warehouse;

/**
 * The whole warehouse: {@link StreamTables} (stream tables, watermarks and appends), {@link FlushRecords},
 * {@link Queries}, {@link ModelStore} and {@link RunHistory}. The DuckDB implementation lives in
 * {@code interlace-warehouse-duckdb}. Code that uses the warehouse depends on the narrowest of these interfaces it
 * needs; this aggregate is what a {@link WarehouseFactory} opens and what owns the lifetime.
 */
public interface Warehouse extends StreamTables, FlushRecords, Queries, ModelStore, RunHistory, AutoCloseable {

    /** A new connection to the warehouse, for tests and tools that inspect it directly; the caller closes it. */
    java.sql.Connection connect();

    @Override
    void close();
}
