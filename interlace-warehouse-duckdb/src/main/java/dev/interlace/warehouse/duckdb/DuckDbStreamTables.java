package dev.interlace.warehouse.duckdb;

import dev.interlace.annotations.SchemaDrift;
import dev.interlace.runtime.warehouse.AppendSteps;
import dev.interlace.runtime.stream.Column;
import dev.interlace.runtime.stream.StreamDescriptor;
import dev.interlace.runtime.warehouse.FlushRecord;
import dev.interlace.runtime.warehouse.StreamTables;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Logger;
import org.duckdb.DuckDBAppender;
import org.duckdb.DuckDBConnection;

/**
 * Stream tables in DuckDB: schema {@code streams} with a table per stream, a quarantine table per stream and
 * {@code streams._watermarks}; creates and migrates them, claims them for a flusher and appends rows.
 *
 * <p>A flush is one transaction that first runs the watermark compare-and-set and only then appends the rows with
 * DuckDB's Appender. The order matters: on a connection with auto-commit off, an Appender used before any
 * statement ran in the transaction commits on its own and survives a rollback; after the update it is part of the
 * transaction.
 */
final class DuckDbStreamTables implements StreamTables {

    private static final Logger LOG = Logger.getLogger(DuckDbWarehouse.class.getName());
    private static final int CLAIM_ATTEMPTS = 20;

    private final DuckDbConnections connections;
    private final AppendSteps listener;
    /** Each stream table's columns in table order, name to DuckDB type; the Appender fills them in this order. */
    private final Map<String, LinkedHashMap<String, String>> layouts = new ConcurrentHashMap<>();
    private final Map<String, Set<String>> declaredColumns = new ConcurrentHashMap<>();
    private final List<String> migrations = new java.util.concurrent.CopyOnWriteArrayList<>();

    DuckDbStreamTables(DuckDbConnections connections, AppendSteps listener) {
        this.connections = connections;
        this.listener = listener;
    }

    @Override
    public Positions prepare(StreamDescriptor stream) {
        DuckDBConnection c = connections.borrow();
        try (Statement statement = c.createStatement()) {
            migrate(c, stream);
            layouts.put(stream.stream(), layout(c, stream.stream()));
            declaredColumns.put(stream.stream(), Set.copyOf(stream.columnNames()));
            statement.execute("CREATE TABLE IF NOT EXISTS " + Sql.streamsTable(Target.quarantine(stream.name()).table())
                    + " (_seq BIGINT NOT NULL, _ingested_at TIMESTAMP NOT NULL, _request_id VARCHAR NOT NULL,"
                    + " payload JSON NOT NULL, errors JSON NOT NULL)");
            for (Target target : List.of(Target.events(stream.name()), Target.quarantine(stream.name()))) {
                try (PreparedStatement insert = c.prepareStatement("INSERT INTO streams._watermarks"
                        + " VALUES (?, 0, 0, make_timestamp(?)) ON CONFLICT DO NOTHING")) {
                    insert.setString(1, target.key());
                    insert.setLong(2, Sql.nowMicros());
                    insert.executeUpdate();
                }
            }
            return new Positions(watermark(c, Target.events(stream.name())),
                    watermark(c, Target.quarantine(stream.name())));
        } catch (SQLException e) {
            throw new WarehouseException("cannot prepare the tables of stream " + stream.stream() + ": "
                    + e.getMessage(), e);
        } finally {
            connections.release(c);
        }
    }

    /**
     * Creates {@code streams.<name>}, or brings it to the declared schema: declared columns the table lacks are added
     * when nullable; anything else (a removed or retyped column, a new {@code not null} column) stops start-up.
     */
    private void migrate(DuckDBConnection c, StreamDescriptor stream) throws SQLException {
        Map<String, String[]> existing = columns(c, stream.stream());
        String table = Sql.streamsTable(stream.stream());
        if (existing.isEmpty()) {
            StringBuilder create = new StringBuilder("CREATE TABLE ").append(table).append(" (");
            for (Column column : stream.columns()) {
                create.append(Sql.quote(column.name())).append(' ').append(column.sqlType())
                        .append(column.notNull() ? " NOT NULL" : "").append(", ");
            }
            create.append("_offset BIGINT NOT NULL, ")
                    .append(stream.partitioned() ? "_partition INTEGER NOT NULL, " : "")
                    .append("_ingested_at TIMESTAMP NOT NULL, _request_id VARCHAR NOT NULL)");
            try (Statement statement = c.createStatement()) {
                statement.execute(create.toString());
            }
            return;
        }
        List<String> problems = new ArrayList<>();
        List<Column> added = new ArrayList<>();
        for (Column column : stream.columns()) {
            String[] found = existing.get(column.name());
            if (found == null) {
                if (column.notNull()) {
                    problems.add("column " + column.name() + " is new and declared not null, but the table already"
                            + " has rows without it: declare it nullable (\"" + column.name() + " "
                            + column.canonicalType() + "\")");
                } else {
                    added.add(column);
                }
            } else if (!found[0].equalsIgnoreCase(column.sqlType())) {
                problems.add("column " + column.name() + " changed type from " + found[0] + " to "
                        + column.sqlType() + ": keep the old type, or add a new column with the new type");
            } else if (found[1].equals("YES") == column.notNull()) {
                problems.add("column " + column.name() + " changed nullability to "
                        + (column.notNull() ? "not null" : "nullable") + ": keep it as it was");
            }
        }
        List<String> declared = stream.columnNames();
        for (String name : existing.keySet()) {
            if (!declared.contains(name) && !name.startsWith("_") && stream.onSchemaDrift() != SchemaDrift.EVOLVE) {
                problems.add("column " + name + " is in " + stream.table() + " but no longer declared: declare it"
                        + " again (its data is kept), or rename the stream to start a new table");
            }
        }
        if (!problems.isEmpty()) {
            throw new MigrationException("stream " + stream.stream() + " (" + stream.declaredBy() + ") cannot be"
                    + " migrated automatically: " + String.join("; ", problems));
        }
        if (stream.partitioned() && !existing.containsKey(PARTITION_COLUMN)) {
            // A table made before its stream was partitioned (its log since recreated): its rows are partition 0's.
            try (Statement statement = c.createStatement()) {
                statement.execute("ALTER TABLE " + table + " ADD COLUMN " + PARTITION_COLUMN + " INTEGER DEFAULT 0");
            }
            migrations.add("stream " + stream.stream() + ": added column " + PARTITION_COLUMN + " (0 for its rows)"
                    + " to streams." + stream.stream());
        }
        for (Column column : added) {
            try (Statement statement = c.createStatement()) {
                statement.execute("ALTER TABLE " + table + " ADD COLUMN " + Sql.quote(column.name()) + " "
                        + column.sqlType());
            }
            LOG.info("stream " + stream.stream() + ": added column " + column.name() + " " + column.sqlType());
            migrations.add("stream " + stream.stream() + ": added column " + column.name() + " " + column.sqlType()
                    + " to streams." + stream.stream());
        }
    }

    private static LinkedHashMap<String, String> layout(Connection c, String table) throws SQLException {
        LinkedHashMap<String, String> layout = new LinkedHashMap<>();
        columns(c, table).forEach((name, description) -> layout.put(name, description[0]));
        return layout;
    }

    /** The table's columns: name to {data type, is_nullable}. */
    private static Map<String, String[]> columns(Connection c, String table) throws SQLException {
        Map<String, String[]> columns = new LinkedHashMap<>();
        try (PreparedStatement select = c.prepareStatement("SELECT column_name, data_type, is_nullable"
                + " FROM information_schema.columns WHERE table_schema = 'streams' AND table_name = ?"
                + " ORDER BY ordinal_position")) {
            select.setString(1, table);
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    columns.put(rows.getString(1), new String[] {rows.getString(2), rows.getString(3)});
                }
            }
        }
        return columns;
    }

    /**
     * Records the flusher's lease token as the target's fencing token, in a transaction of its own, unless a newer one
     * is recorded. A plain {@code UPDATE} (not {@code UPDATE ... RETURNING}, which DuckDB 2.0 lets through without a
     * write-write conflict against a flush transaction that is still open, losing that flush's watermark) conflicts
     * with an open flush; the claim is then retried, so once it returns no append with an older token can commit.
     */
    @Override
    public long claim(Target target, long token) {
        SQLException last = null;
        for (int attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
            DuckDBConnection c = connections.borrow();
            try {
                c.setAutoCommit(false);
                try (PreparedStatement claim = c.prepareStatement("UPDATE streams._watermarks"
                        + " SET fencing_token = ?, updated_at = make_timestamp(?)"
                        + " WHERE stream = ? AND fencing_token <= ?");
                        PreparedStatement read = c.prepareStatement(
                                "SELECT watermark, fencing_token FROM streams._watermarks WHERE stream = ?")) {
                    claim.setLong(1, token);
                    claim.setLong(2, Sql.nowMicros());
                    claim.setString(3, target.key());
                    claim.setLong(4, token);
                    int updated = claim.executeUpdate();
                    read.setString(1, target.key());
                    try (ResultSet row = read.executeQuery()) {
                        if (!row.next()) {
                            c.rollback();
                            throw new WarehouseException("no watermark row for " + target.key()
                                    + "; prepare the stream first", null);
                        }
                        if (updated != 1) {
                            long recorded = row.getLong(2);
                            c.rollback();
                            throw new FencedException("streams._watermarks records fencing token " + recorded
                                    + " for " + target.key() + ", newer than this flusher's lease token " + token
                                    + ": another flusher holds the stream (if the log was restored from an older"
                                    + " copy, its flush lease tokens went back; restore the warehouse from the same"
                                    + " point in time)");
                        }
                        long watermark = row.getLong(1);
                        c.commit();
                        return watermark;
                    }
                }
            } catch (SQLException e) {
                DuckDbConnections.rollbackQuietly(c);
                last = e;
                try {
                    Thread.sleep(10L * (attempt + 1));
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    break;
                }
            } finally {
                connections.releaseAfterTransaction(c);
            }
        }
        throw new WarehouseException("cannot claim " + target.key() + ": " + (last == null ? "interrupted"
                : last.getMessage()), last);
    }

    @Override
    public List<String> migrationsApplied() {
        return List.copyOf(migrations);
    }

    @Override
    public void append(StreamDescriptor stream, Target target, long fencingToken, long expectedWatermark,
            long newWatermark, List<Row> rows, FlushRecord record) {
        Map<String, String> layout = target.quarantine() ? Map.of() : layouts.get(stream.stream());
        if (layout == null) {
            throw new WarehouseException("stream " + stream.stream() + " was not prepared", null);
        }
        if (!target.quarantine() && stream.onSchemaDrift() == SchemaDrift.EVOLVE) {
            layout = evolve(stream, rows);
        }
        Map<String, Integer> declared = new HashMap<>();
        for (int i = 0; i < stream.columns().size(); i++) {
            declared.put(stream.columns().get(i).name(), i);
        }
        // Where each cell of a row comes from, worked out once per batch rather than once per cell.
        String[] names = layout.keySet().toArray(new String[0]);
        String[] types = layout.values().toArray(new String[0]);
        int[] sources = new int[names.length];
        for (int i = 0; i < names.length; i++) {
            sources[i] = source(names[i], declared);
        }
        DuckDBConnection c = connections.borrow();
        try {
            c.setAutoCommit(false);
            PreparedStatement advance = connections.prepared(c, ADVANCE_WATERMARK);
            advance.setLong(1, newWatermark);
            advance.setLong(2, Sql.nowMicros());
            advance.setString(3, target.key());
            advance.setLong(4, expectedWatermark);
            advance.setLong(5, fencingToken);
            if (advance.executeUpdate() != 1) {
                c.rollback();
                throw new FencedException("the watermark of " + target.key() + " is no longer " + expectedWatermark
                        + " with token " + fencingToken + ": another flusher took over");
            }
            listener.afterWatermarkUpdate(target, newWatermark);
            try (DuckDBAppender appender = c.createAppender("streams", target.table())) {
                for (Row row : rows) {
                    appender.beginRow();
                    if (target.quarantine()) {
                        appender.append(row.offset());
                        appender.appendEpochMicros(row.ingestedAtMicros());
                        appender.append(row.requestId());
                        appender.append((String) row.values().get(0));
                        appender.append((String) row.values().get(1));
                    } else {
                        for (int i = 0; i < sources.length; i++) {
                            if (sources[i] == PARTITION) {
                                appender.append(stream.partition());
                            } else {
                                appendColumn(appender, row, sources[i], names[i], types[i]);
                            }
                        }
                    }
                    appender.endRow();
                }
            }
            if (record != null) {
                DuckDbFlushRecords.insert(connections, c, record, true);
            }
            listener.beforeCommit(target, newWatermark, rows.size());
            c.commit();
        } catch (SQLException | RuntimeException e) {
            DuckDbConnections.rollbackQuietly(c);
            if (e instanceof FencedException fenced) {
                throw fenced;
            }
            throw new WarehouseException("flushing " + rows.size() + " rows into " + Sql.streamsTable(target.table())
                    + " failed: " + e.getMessage(), e);
        } catch (Error e) {
            // Rolled back here, not left open: turning auto-commit back on below would commit half a batch with its
            // watermark.
            DuckDbConnections.rollbackQuietly(c);
            throw e;
        } finally {
            connections.releaseAfterTransaction(c);
        }
    }

    /** A flush's compare-and-set of its watermark, fenced by the flusher's token (prepared once per connection). */
    private static final String ADVANCE_WATERMARK = "UPDATE streams._watermarks SET watermark = ?,"
            + " updated_at = make_timestamp(?) WHERE stream = ? AND watermark = ? AND fencing_token = ?";

    private static final int OFFSET = -1;
    private static final int INGESTED_AT = -2;
    private static final int REQUEST_ID = -3;
    private static final int EVOLVED = -4;
    private static final int PARTITION = -5;
    /** The column of a partitioned stream's table saying which partition (log stream) a row came from. */
    private static final String PARTITION_COLUMN = "_partition";

    /** Where a column's cells come from: a declared column's index, or one of the negative kinds above. */
    private static int source(String column, Map<String, Integer> declared) {
        Integer index = declared.get(column);
        if (index != null) {
            return index;
        }
        return switch (column) {
            case "_offset" -> OFFSET;
            case "_ingested_at" -> INGESTED_AT;
            case "_request_id" -> REQUEST_ID;
            case PARTITION_COLUMN -> PARTITION;
            default -> EVOLVED;
        };
    }

    /** Appends one cell: a declared column's typed value, a bookkeeping column, or an evolved column's value. */
    private static void appendColumn(DuckDBAppender appender, Row row, int source, String column, String type)
            throws SQLException {
        switch (source) {
            case OFFSET -> appender.append(row.offset());
            case INGESTED_AT -> appender.appendEpochMicros(row.ingestedAtMicros());
            case REQUEST_ID -> appender.append(row.requestId());
            case EVOLVED -> {
                String json = row.undeclaredFields().get(column);
                appendValue(appender, json == null ? null : EvolvedTypes.convert(json, type));
            }
            default -> appendValue(appender, row.values().get(source));
        }
    }

    /**
     * Adds or widens the columns an evolving stream's rows need, each change in a transaction of its own before the
     * rows are written. A crash after it leaves a column that is merely empty, and the same rows infer the same
     * (or a narrower) type when flushed again, so no change is ever needed twice or undone.
     */
    private Map<String, String> evolve(StreamDescriptor stream, List<Row> rows) {
        LinkedHashMap<String, String> needed = new LinkedHashMap<>();
        for (Row row : rows) {
            for (Map.Entry<String, String> field : row.undeclaredFields().entrySet()) {
                needed.put(field.getKey(), EvolvedTypes.widen(needed.get(field.getKey()),
                        EvolvedTypes.infer(field.getValue())));
            }
        }
        LinkedHashMap<String, String> layout = layouts.get(stream.stream());
        List<String> changes = new ArrayList<>();
        for (Map.Entry<String, String> field : needed.entrySet()) {
            String column = field.getKey();
            String type = field.getValue();
            if (type == null) {
                continue;
            }
            String existing = layout.get(column);
            if (existing == null) {
                changes.add("ADD COLUMN IF NOT EXISTS " + Sql.quote(column) + " " + type);
            } else {
                String widened = EvolvedTypes.widen(existing, type);
                if (!widened.equals(existing)) {
                    changes.add("ALTER COLUMN " + Sql.quote(column) + " SET DATA TYPE " + widened);
                }
            }
        }
        if (changes.isEmpty()) {
            return layout;
        }
        DuckDBConnection c = connections.borrow();
        try (Statement statement = c.createStatement()) {
            for (String change : changes) {
                listener.beforeAlter(stream.table(), change);
                statement.execute("ALTER TABLE " + Sql.streamsTable(stream.stream()) + " " + change);
                LOG.info("stream " + stream.stream() + " evolved: " + change);
            }
            LinkedHashMap<String, String> updated = layout(c, stream.stream());
            layouts.put(stream.stream(), updated);
            return updated;
        } catch (SQLException e) {
            throw new WarehouseException("evolving " + stream.table() + " failed: " + e.getMessage(), e);
        } finally {
            connections.release(c);
        }
    }

    @Override
    public Map<String, String> evolvedColumns(String stream) {
        LinkedHashMap<String, String> layout = layouts.get(stream);
        Set<String> declared = declaredColumns.getOrDefault(stream, Set.of());
        Map<String, String> evolved = new LinkedHashMap<>();
        if (layout != null) {
            layout.forEach((name, type) -> {
                if (!declared.contains(name) && !StreamDescriptor.RESERVED_COLUMNS.contains(name)) {
                    evolved.put(name, EvolvedTypes.canonical(type));
                }
            });
        }
        return evolved;
    }

    private static void appendValue(DuckDBAppender appender, Object value) throws SQLException {
        if (value == null) {
            appender.appendNull();
        } else if (value instanceof String text) {
            appender.append(text);
        } else if (value instanceof Long number) {
            appender.append(number.longValue());
        } else if (value instanceof Double number) {
            appender.append(number.doubleValue());
        } else if (value instanceof BigDecimal decimal) {
            appender.append(decimal);
        } else if (value instanceof Boolean flag) {
            appender.append(flag.booleanValue());
        } else if (value instanceof Instant instant) {
            appender.appendEpochMicros(Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000L),
                    instant.getNano() / 1_000));
        } else if (value instanceof LocalDate date) {
            appender.append(date);
        } else {
            throw new IllegalArgumentException("no warehouse type for " + value.getClass().getName());
        }
    }

    @Override
    public long watermark(Target target) {
        DuckDBConnection c = connections.borrow();
        try {
            return watermark(c, target);
        } catch (SQLException e) {
            throw new WarehouseException("cannot read the watermark of " + target.key() + ": " + e.getMessage(), e);
        } finally {
            connections.release(c);
        }
    }

    private static long watermark(Connection c, Target target) throws SQLException {
        try (PreparedStatement select = c.prepareStatement(
                "SELECT watermark FROM streams._watermarks WHERE stream = ?")) {
            select.setString(1, target.key());
            try (ResultSet row = select.executeQuery()) {
                return row.next() ? row.getLong(1) : 0;
            }
        }
    }
}
