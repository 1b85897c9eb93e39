package dev.interlace.warehouse.duckdb;

import dev.interlace.runtime.warehouse.AppendSteps;
import dev.interlace.runtime.sql.QueryLimits;
import dev.interlace.runtime.sql.RowAllowance;
import dev.interlace.runtime.sql.QueryResult;
import dev.interlace.runtime.stream.StreamDescriptor;
import dev.interlace.runtime.warehouse.FlushRecord;
import dev.interlace.runtime.warehouse.RunRecord;
import dev.interlace.runtime.warehouse.RunStatus;
import dev.interlace.runtime.warehouse.Warehouse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * The DuckDB warehouse, one file: a façade over one collaborator per concern, so that each stays small and the
 * runtime's narrow interfaces each have one implementation to read.
 *
 * <ul>
 *   <li>{@link DuckDbConnections}: the database, its locked configuration and the connection pools;
 *   <li>{@link DuckDbStreamTables}: {@code streams.*} tables, migrations, fencing claims and appends;
 *   <li>{@link DuckDbFlushRecords}: {@code interlace.flushes};
 *   <li>{@link DuckDbQueries}: read-only {@code POST /sql} queries ({@link QueryClassifier}) and parsing model SQL;
 *   <li>{@link DuckDbModels}: model output and {@code interlace.model_watermarks};
 *   <li>{@link DuckDbRuns}: {@code interlace.runs} and {@code interlace.run_models};
 *   <li>{@link DuckDbSnapshots}: online copies of the file (every write above goes through its lock).
 * </ul>
 */
final class DuckDbWarehouse implements Warehouse {

    private final DuckDbConnections connections;
    private final DuckDbStreamTables streams;
    private final DuckDbFlushRecords flushes;
    private final DuckDbQueries queries;
    private final DuckDbModels models;
    private final DuckDbRuns runs;
    private final DuckDbSnapshots snapshots;

    DuckDbWarehouse(Path file, AppendSteps listener) {
        this(file, listener, UnaryOperator.identity());
    }

    /**
     * @param modelConnections applied to each connection a model run or the run history uses (fault-injection tests
     *     wrap them; otherwise the identity)
     */
    DuckDbWarehouse(Path file, AppendSteps listener, UnaryOperator<Connection> modelConnections) {
        this.connections = new DuckDbConnections(file);
        this.streams = new DuckDbStreamTables(connections, listener);
        this.flushes = new DuckDbFlushRecords(connections);
        this.queries = new DuckDbQueries(connections);
        this.models = new DuckDbModels(() -> modelConnections.apply(connections.connect()), queries);
        this.runs = new DuckDbRuns(() -> modelConnections.apply(connections.connect()));
        this.snapshots = new DuckDbSnapshots(file, connections);
    }

    // ---------------------------------------------------------------- stream tables

    @Override
    public Positions prepare(StreamDescriptor stream) {
        return snapshots.writing(() -> streams.prepare(stream));
    }

    @Override
    public List<String> migrationsApplied() {
        return streams.migrationsApplied();
    }

    @Override
    public long claim(Target target, long token) {
        return snapshots.writing(() -> streams.claim(target, token));
    }

    @Override
    public void append(StreamDescriptor stream, Target target, long fencingToken, long expectedWatermark,
            long newWatermark, List<Row> rows, FlushRecord record) {
        snapshots.writing(() -> streams.append(stream, target, fencingToken, expectedWatermark, newWatermark, rows,
                record));
    }

    @Override
    public long watermark(Target target) {
        return streams.watermark(target);
    }

    @Override
    public Map<String, String> evolvedColumns(String stream) {
        return streams.evolvedColumns(stream);
    }

    // ---------------------------------------------------------------- flush records

    @Override
    public void recordFailedFlush(FlushRecord record) {
        snapshots.writing(() -> flushes.recordFailedFlush(record));
    }

    @Override
    public FlushRecord.Page flushes(FlushRecord.Filter filter) {
        return flushes.flushes(filter);
    }

    @Override
    public long trimFlushes(long beforeMicros) {
        return snapshots.writing(() -> flushes.trimFlushes(beforeMicros));
    }

    // ---------------------------------------------------------------- queries

    @Override
    public QueryResult query(String sql, QueryLimits limits, RowAllowance allowance) {
        return queries.query(sql, limits, allowance);
    }

    @Override
    public void stopQueries() {
        queries.stopQueries();
    }

    @Override
    public List<TableReference> tablesReadBy(String select) {
        return queries.tablesReadBy(select);
    }

    @Override
    public String replaceTables(String select, Map<String, String> replacements) {
        return queries.replaceTables(select, replacements);
    }

    // ---------------------------------------------------------------- models

    @Override
    public void prepareModels() {
        snapshots.writing(() -> models.prepareModels());
    }

    @Override
    public boolean modelExists(String schema, String name) {
        return models.modelExists(schema, name);
    }

    @Override
    public long modelWatermark(String model, String stream) {
        return models.modelWatermark(model, stream);
    }

    @Override
    public boolean isBehindStreams(String model, List<String> streams) {
        return models.isBehindStreams(model, streams);
    }

    @Override
    public long materialise(ModelOutput model, Steps steps) throws SQLException {
        return snapshots.writingSql(() -> models.materialise(model, steps));
    }

    // ---------------------------------------------------------------- run history

    @Override
    public void prepareRuns(long nowMicros) {
        snapshots.writing(() -> runs.prepareRuns(nowMicros));
    }

    @Override
    public void runStarted(RunRecord run) {
        snapshots.writing(() -> runs.runStarted(run));
    }

    @Override
    public void runFinished(String id, RunStatus status, long finishedAtMicros, List<RunRecord.ModelResult> results) {
        snapshots.writing(() -> runs.runFinished(id, status, finishedAtMicros, results));
    }

    @Override
    public RunRecord.Page runs(RunRecord.Filter filter) {
        return runs.runs(filter);
    }

    @Override
    public Optional<RunRecord> run(String id) {
        return runs.run(id);
    }

    // ---------------------------------------------------------------- lifetime

    @Override
    public Snapshot snapshotInto(java.nio.file.Path directory) throws java.io.IOException {
        return snapshots.snapshotInto(directory);
    }

    @Override
    public Connection connect() {
        return connections.connect();
    }

    @Override
    public void close() {
        queries.close();
        connections.close();
    }
}
