package dev.interlace.warehouse.duckdb;

import dev.interlace.runtime.stream.StreamPartitions;

import dev.interlace.annotations.Materialise;
import dev.interlace.runtime.warehouse.ModelStore;
import dev.interlace.runtime.warehouse.Queries;
import dev.interlace.runtime.warehouse.StreamTables;
import dev.interlace.runtime.warehouse.StreamTables.WarehouseException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Models in DuckDB: each model's output in its own schema, and {@code interlace.model_watermarks}. An incremental
 * model's output and its watermarks commit in one transaction, so each stream row is processed exactly once.
 */
final class DuckDbModels implements ModelStore {

    private static final String DELTA_PREFIX = "__interlace_delta_";

    private final Supplier<Connection> connections;
    private final Queries parser;

    /**
     * @param connections a new connection per call, closed by this class (model runs use their own)
     * @param parser rewrites an incremental model's SQL to read only new stream rows
     */
    DuckDbModels(Supplier<Connection> connections, Queries parser) {
        this.connections = connections;
        this.parser = parser;
    }

    @Override
    public void prepareModels() {
        try (Connection c = connections.get(); Statement statement = c.createStatement()) {
            statement.execute("CREATE SCHEMA IF NOT EXISTS interlace");
            statement.execute("CREATE TABLE IF NOT EXISTS interlace.model_watermarks (model VARCHAR NOT NULL,"
                    + " stream VARCHAR NOT NULL, watermark BIGINT NOT NULL, PRIMARY KEY (model, stream))");
        } catch (SQLException e) {
            throw new WarehouseException("cannot prepare the interlace schema: " + e.getMessage(), e);
        }
    }

    @Override
    public boolean modelExists(String schema, String name) {
        try (Connection c = connections.get(); PreparedStatement select = c.prepareStatement(
                "SELECT count(*) FROM information_schema.tables WHERE table_schema = ? AND table_name = ?")) {
            select.setString(1, schema);
            select.setString(2, name);
            try (ResultSet row = select.executeQuery()) {
                row.next();
                return row.getLong(1) > 0;
            }
        } catch (SQLException e) {
            throw new WarehouseException("cannot inspect model " + name + ": " + e.getMessage(), e);
        }
    }

    @Override
    public long modelWatermark(String model, String stream) {
        try (Connection c = connections.get()) {
            return modelWatermark(c, model, stream);
        } catch (SQLException e) {
            throw new WarehouseException("cannot read the watermarks of model " + model + ": " + e.getMessage(), e);
        }
    }

    @Override
    public boolean isBehindStreams(String model, List<String> streams) {
        try (Connection c = connections.get()) {
            for (String stream : streams) {
                if (streamWatermark(c, stream) > modelWatermark(c, model, stream)) {
                    return true;
                }
            }
            return false;
        } catch (SQLException e) {
            throw new WarehouseException("cannot read the watermarks of model " + model + ": " + e.getMessage(), e);
        }
    }

    @Override
    public long materialise(ModelOutput model, Steps steps) throws SQLException {
        try (Connection c = connections.get(); Statement statement = c.createStatement()) {
            c.setAutoCommit(false);
            try {
                // First in the transaction: the watermarks must come from the same snapshot as the rows read below,
                // or rows of a flush committed in between would be skipped while the model's watermark passes them.
                Map<String, Long> streamWatermarks = flushedWatermarks(c, model);
                statement.execute("CREATE SCHEMA IF NOT EXISTS " + Sql.quote(model.schema()));
                String target = Sql.quote(model.schema()) + "." + Sql.quote(model.name());
                long rows;
                if (model.java() != null) {
                    rows = runJava(model, c, streamWatermarks, steps);
                } else switch (model.materialise()) {
                    case VIEW -> {
                        statement.execute("CREATE OR REPLACE VIEW " + target + " AS " + model.sql());
                        rows = 0;
                    }
                    case TABLE -> {
                        statement.execute("CREATE OR REPLACE TABLE " + target + " AS " + model.sql());
                        rows = count(statement, "SELECT count(*) FROM " + target);
                    }
                    default -> rows = incremental(model, target, statement, streamWatermarks, steps);
                }
                for (Map.Entry<String, Long> watermark : streamWatermarks.entrySet()) {
                    try (PreparedStatement record = c.prepareStatement("INSERT OR REPLACE INTO"
                            + " interlace.model_watermarks VALUES (?, ?, ?)")) {
                        record.setString(1, model.name());
                        record.setString(2, watermark.getKey());
                        record.setLong(3, watermark.getValue());
                        record.executeUpdate();
                    }
                }
                steps.beforeCommit();
                c.commit();
                return rows;
            } catch (SQLException | RuntimeException | Error e) {
                c.rollback();
                throw e;
            }
        }
    }

    /**
     * Runs an incremental model over the rows each stream flushed since the model's watermark: {@code streams.X} in
     * its SQL is rewritten (by DuckDB's parser) to a view of only those rows.
     */
    private long incremental(ModelOutput model, String target, Statement statement,
            Map<String, Long> streamWatermarks, Steps steps) throws SQLException {
        // Each log stream's new rows; a stream of several partitions has one range per partition (its log streams,
        // each with its own watermark), told apart by _partition.
        Map<String, List<String>> ranges = new LinkedHashMap<>();
        for (Map.Entry<String, Long> logStream : streamWatermarks.entrySet()) {
            long from = modelWatermark(statement.getConnection(), model.name(), logStream.getKey());
            String range = "_offset > " + from + " AND _offset <= " + logStream.getValue();
            ranges.computeIfAbsent(StreamPartitions.streamOf(logStream.getKey()), s -> new ArrayList<>())
                    .add(StreamPartitions.partitionOf(logStream.getKey()) + ":" + range);
        }
        Map<String, String> replacements = new LinkedHashMap<>();
        for (Map.Entry<String, List<String>> stream : ranges.entrySet()) {
            List<String> where = new ArrayList<>();
            for (String partitionRange : stream.getValue()) {
                int colon = partitionRange.indexOf(':');
                String range = partitionRange.substring(colon + 1);
                where.add(stream.getValue().size() == 1 ? range
                        : "(_partition = " + partitionRange.substring(0, colon) + " AND " + range + ")");
            }
            String view = DELTA_PREFIX + stream.getKey();
            statement.execute("CREATE OR REPLACE TEMP VIEW " + Sql.quote(view) + " AS SELECT * FROM streams."
                    + Sql.quote(stream.getKey()) + " WHERE " + String.join(" OR ", where));
            replacements.put("streams." + stream.getKey(), view);
        }
        String delta = parser.replaceTables(model.sql(), replacements);
        statement.execute("CREATE TABLE IF NOT EXISTS " + target + " AS SELECT * FROM (" + delta + ") WHERE false");
        statement.execute("CREATE OR REPLACE TEMP TABLE __interlace_output AS " + delta);
        if (model.uniqueKey() != null) {
            statement.execute("DELETE FROM " + target + " WHERE " + Sql.quote(model.uniqueKey()) + " IN (SELECT "
                    + Sql.quote(model.uniqueKey()) + " FROM __interlace_output)");
        }
        statement.execute("INSERT INTO " + target + " BY NAME SELECT * FROM __interlace_output");
        long rows = count(statement, "SELECT count(*) FROM __interlace_output");
        statement.execute("DROP TABLE __interlace_output");
        steps.afterOutput(rows);
        return rows;
    }

    private static long runJava(ModelOutput model, Connection c, Map<String, Long> streamWatermarks, Steps steps)
            throws SQLException {
        Map<String, Delta> deltas = new LinkedHashMap<>();
        if (model.materialise() == Materialise.INCREMENTAL) {
            for (Map.Entry<String, Long> stream : streamWatermarks.entrySet()) {
                deltas.put(stream.getKey(), new Delta(stream.getKey(),
                        modelWatermark(c, model.name(), stream.getKey()), stream.getValue()));
            }
        }
        long rows = model.java().run(c, deltas);
        if (model.materialise() == Materialise.INCREMENTAL) {
            steps.afterOutput(rows);
        }
        return rows;
    }

    private static Map<String, Long> flushedWatermarks(Connection c, ModelOutput model) throws SQLException {
        Map<String, Long> watermarks = new LinkedHashMap<>();
        for (String stream : model.streams()) {
            watermarks.put(stream, streamWatermark(c, stream));
        }
        return watermarks;
    }

    private static long streamWatermark(Connection c, String stream) throws SQLException {
        try (PreparedStatement select = c.prepareStatement(
                "SELECT watermark FROM streams._watermarks WHERE stream = ?")) {
            select.setString(1, StreamTables.Target.events(stream).key());
            try (ResultSet row = select.executeQuery()) {
                return row.next() ? row.getLong(1) : 0;
            }
        }
    }

    private static long modelWatermark(Connection c, String model, String stream) throws SQLException {
        try (PreparedStatement select = c.prepareStatement(
                "SELECT watermark FROM interlace.model_watermarks WHERE model = ? AND stream = ?")) {
            select.setString(1, model);
            select.setString(2, stream);
            try (ResultSet row = select.executeQuery()) {
                return row.next() ? row.getLong(1) : 0;
            }
        }
    }

    private static long count(Statement statement, String sql) throws SQLException {
        try (ResultSet row = statement.executeQuery(sql)) {
            row.next();
            return row.getLong(1);
        }
    }
}
