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

    /**
     * Writes a consistent copy of the warehouse into {@code directory} (an online backup): no write of the warehouse
     * commits while the copy is taken, so its rows, its watermarks and its models' tables agree with one another.
     * Queries go on meanwhile; flushes and model runs wait for it.
     *
     * @return the names of the files written, and each stream target's watermark in the copy (by the key of
     *     {@code streams._watermarks}: the stream's name, or {@code <name>__quarantine})
     */
    Snapshot snapshotInto(java.nio.file.Path directory) throws java.io.IOException;

    /** What {@link #snapshotInto} wrote: the files (names within the directory) and the copy's watermarks. */
    record Snapshot(java.util.List<String> files, java.util.Map<String, Long> watermarks) {}

    @Override
    void close();
}
