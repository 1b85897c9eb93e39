package dev.interlace.warehouse.duckdb;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.interlace.runtime.ops.EpochMicros;
import dev.interlace.runtime.ops.TraceIds;
import dev.interlace.runtime.warehouse.ModelOutcome;
import dev.interlace.runtime.warehouse.RunHistory;
import dev.interlace.runtime.warehouse.RunRecord;
import dev.interlace.runtime.warehouse.RunStatus;
import dev.interlace.runtime.warehouse.StreamTables.WarehouseException;
import dev.interlace.runtime.warehouse.Trigger;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/** Run history in DuckDB: {@code interlace.runs} and {@code interlace.run_models}; times stored in UTC. */
final class DuckDbRuns implements RunHistory {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Supplier<Connection> connections;

    /** @param connections a new connection per call, closed by this class */
    DuckDbRuns(Supplier<Connection> connections) {
        this.connections = connections;
    }

    @Override
    public void prepareRuns(long nowMicros) {
        try (Connection c = connections.get(); Statement statement = c.createStatement()) {
            statement.execute("CREATE SCHEMA IF NOT EXISTS interlace");
            statement.execute("CREATE TABLE IF NOT EXISTS interlace.runs (id VARCHAR PRIMARY KEY,"
                    + " \"trigger\" VARCHAR NOT NULL, triggers JSON NOT NULL, status VARCHAR NOT NULL,"
                    + " queued_at TIMESTAMP NOT NULL, started_at TIMESTAMP, finished_at TIMESTAMP)");
            statement.execute("CREATE TABLE IF NOT EXISTS interlace.run_models (run_id VARCHAR NOT NULL,"
                    + " position INTEGER NOT NULL, model VARCHAR NOT NULL, status VARCHAR NOT NULL, \"rows\" BIGINT,"
                    + " duration_ms BIGINT, error VARCHAR)");
            // Added with W3C trace context: the trace ids of the requests the triggering flushes materialised.
            statement.execute("ALTER TABLE interlace.runs ADD COLUMN IF NOT EXISTS trace_ids VARCHAR");
            statement.execute("ALTER TABLE interlace.runs ADD COLUMN IF NOT EXISTS trace_count BIGINT");
            try (PreparedStatement interrupted = c.prepareStatement("UPDATE interlace.runs SET status = 'failed',"
                    + " finished_at = ? WHERE status IN ('queued', 'running')")) {
                interrupted.setObject(1, time(nowMicros));
                interrupted.executeUpdate();
            }
        } catch (SQLException e) {
            throw new WarehouseException("cannot prepare the interlace schema: " + e.getMessage(), e);
        }
    }

    @Override
    public void runStarted(RunRecord run) {
        try (Connection c = connections.get(); PreparedStatement insert = c.prepareStatement(
                "INSERT INTO interlace.runs (id, \"trigger\", triggers, status, queued_at, started_at, finished_at,"
                        + " trace_ids, trace_count) VALUES (?, ?, ?::JSON, 'running', ?, ?, NULL, ?, ?)")) {
            insert.setString(1, run.id());
            insert.setString(2, run.trigger().toString());
            insert.setString(3, triggersJson(run.triggers()));
            insert.setObject(4, time(run.queuedAtMicros()));
            insert.setObject(5, time(run.startedAtMicros()));
            insert.setString(6, run.traces().joined());
            insert.setLong(7, run.traces().count());
            insert.executeUpdate();
        } catch (SQLException e) {
            throw new WarehouseException("cannot record run " + run.id() + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void runFinished(String id, RunStatus status, long finishedAtMicros, List<RunRecord.ModelResult> results) {
        try (Connection c = connections.get()) {
            c.setAutoCommit(false);
            try (PreparedStatement update = c.prepareStatement(
                    "UPDATE interlace.runs SET status = ?, finished_at = ? WHERE id = ?");
                    PreparedStatement insert = c.prepareStatement(
                            "INSERT INTO interlace.run_models VALUES (?, ?, ?, ?, ?, ?, ?)")) {
                update.setString(1, status.wire());
                update.setObject(2, time(finishedAtMicros));
                update.setString(3, id);
                update.executeUpdate();
                for (int i = 0; i < results.size(); i++) {
                    RunRecord.ModelResult result = results.get(i);
                    insert.setString(1, id);
                    insert.setInt(2, i);
                    insert.setString(3, result.name());
                    insert.setString(4, result.status().wire());
                    insert.setLong(5, result.rows());
                    insert.setLong(6, result.durationMillis());
                    insert.setString(7, result.error());
                    insert.executeUpdate();
                }
            }
            c.commit();
        } catch (SQLException e) {
            throw new WarehouseException("cannot record the end of run " + id + ": " + e.getMessage(), e);
        }
    }

    @Override
    public RunRecord.Page runs(RunRecord.Filter filter) {
        StringBuilder where = new StringBuilder(" WHERE true");
        List<Object> parameters = new ArrayList<>();
        if (filter.model() != null) {
            where.append(" AND id IN (SELECT run_id FROM interlace.run_models WHERE model = ?)");
            parameters.add(filter.model());
        }
        if (filter.status() != null) {
            where.append(" AND status = ?");
            parameters.add(filter.status().wire());
        }
        if (filter.trigger() != null) {
            // Any of the triggers coalesced into the run (the first one is also in the list).
            where.append(" AND list_contains(from_json(triggers, '[\"VARCHAR\"]'), ?)");
            parameters.add(filter.trigger().toString());
        }
        if (filter.sinceMicros() != null) {
            where.append(" AND queued_at >= ?");
            parameters.add(time(filter.sinceMicros()));
        }
        if (filter.untilMicros() != null) {
            where.append(" AND queued_at < ?");
            parameters.add(time(filter.untilMicros()));
        }
        try (Connection c = connections.get()) {
            long total;
            try (PreparedStatement count = c.prepareStatement("SELECT count(*) FROM interlace.runs" + where)) {
                bind(count, parameters);
                try (ResultSet row = count.executeQuery()) {
                    row.next();
                    total = row.getLong(1);
                }
            }
            List<RunRecord> runs = new ArrayList<>();
            try (PreparedStatement select = c.prepareStatement("SELECT id FROM interlace.runs" + where
                    + " ORDER BY queued_at DESC, id DESC LIMIT " + filter.limit())) {
                bind(select, parameters);
                try (ResultSet rows = select.executeQuery()) {
                    while (rows.next()) {
                        run(c, rows.getString(1), false).ifPresent(runs::add);
                    }
                }
            }
            return new RunRecord.Page(runs, total);
        } catch (SQLException e) {
            throw new WarehouseException("cannot read the runs: " + e.getMessage(), e);
        }
    }

    @Override
    public Optional<RunRecord> run(String id) {
        try (Connection c = connections.get()) {
            return run(c, id, true);
        } catch (SQLException e) {
            throw new WarehouseException("cannot read run " + id + ": " + e.getMessage(), e);
        }
    }

    private static Optional<RunRecord> run(Connection c, String id, boolean withModels) throws SQLException {
        RunRecord record;
        try (PreparedStatement select = c.prepareStatement("SELECT \"trigger\", triggers, status, queued_at,"
                + " started_at, finished_at, trace_ids, coalesce(trace_count, 0) FROM interlace.runs WHERE id = ?")) {
            select.setString(1, id);
            try (ResultSet row = select.executeQuery()) {
                if (!row.next()) {
                    return Optional.empty();
                }
                Trigger first = stored(Trigger.parse(row.getString(1)), "trigger", row.getString(1));
                List<Trigger> triggers = new ArrayList<>();
                try {
                    for (JsonNode trigger : JSON.readTree(row.getString(2))) {
                        triggers.add(stored(Trigger.parse(trigger.asText()), "trigger", trigger.asText()));
                    }
                } catch (IOException e) {
                    triggers.add(first);
                }
                record = new RunRecord(id, first, triggers,
                        stored(RunStatus.fromWire(row.getString(3)), "status", row.getString(3)), micros(row, 4),
                        micros(row, 5), micros(row, 6), List.of(), TraceIds.parse(row.getString(7), row.getLong(8)));
            }
        }
        if (!withModels) {
            return Optional.of(record);
        }
        List<RunRecord.ModelResult> models = new ArrayList<>();
        try (PreparedStatement select = c.prepareStatement("SELECT model, status, \"rows\", duration_ms, error"
                + " FROM interlace.run_models WHERE run_id = ? ORDER BY position")) {
            select.setString(1, id);
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    models.add(new RunRecord.ModelResult(rows.getString(1),
                            stored(ModelOutcome.fromWire(rows.getString(2)), "model status", rows.getString(2)),
                            rows.getLong(3), rows.getLong(4), rows.getString(5)));
                }
            }
        }
        return Optional.of(new RunRecord(record.id(), record.trigger(), record.triggers(), record.status(),
                record.queuedAtMicros(), record.startedAtMicros(), record.finishedAtMicros(), models, record.traces()));
    }

    private static void bind(PreparedStatement statement, List<Object> parameters) throws SQLException {
        for (int i = 0; i < parameters.size(); i++) {
            statement.setObject(i + 1, parameters.get(i));
        }
    }

    private static long micros(ResultSet row, int column) throws SQLException {
        LocalDateTime time = row.getObject(column, LocalDateTime.class);
        if (time == null) {
            return 0;
        }
        return EpochMicros.of(time.toInstant(ZoneOffset.UTC));
    }

    private static LocalDateTime time(long micros) {
        return LocalDateTime.ofEpochSecond(Math.floorDiv(micros, 1_000_000L),
                (int) Math.floorMod(micros, 1_000_000L) * 1_000, ZoneOffset.UTC);
    }

    /** A value read from the run history; one this version does not know means the tables were changed by hand. */
    private static <T> T stored(Optional<T> value, String what, String text) {
        return value.orElseThrow(() -> new WarehouseException("interlace.runs holds an unknown " + what + " \""
                + text + "\"", null));
    }

    private static String triggersJson(List<Trigger> triggers) {
        ArrayNode array = JSON.createArrayNode();
        triggers.forEach(trigger -> array.add(trigger.toString()));
        return array.toString();
    }
}
