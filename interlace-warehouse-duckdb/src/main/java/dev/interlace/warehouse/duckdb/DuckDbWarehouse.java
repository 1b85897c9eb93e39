package dev.interlace.warehouse.duckdb;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.interlace.annotations.SchemaDrift;
import dev.interlace.runtime.flush.FlushListener;
import dev.interlace.runtime.ops.EpochMicros;
import dev.interlace.runtime.sql.QueryException;
import dev.interlace.runtime.sql.QueryLimits;
import dev.interlace.runtime.sql.QueryResult;
import dev.interlace.runtime.stream.Column;
import dev.interlace.runtime.stream.StreamDescriptor;
import dev.interlace.runtime.warehouse.FlushRecord;
import dev.interlace.runtime.warehouse.RunRecord;
import dev.interlace.runtime.warehouse.Warehouse;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.UnaryOperator;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.duckdb.DuckDBAppender;
import org.duckdb.DuckDBConnection;
import org.duckdb.DuckDBDriver;

/**
 * The DuckDB warehouse: one file, schema {@code streams} with a table per stream, a quarantine table per stream and
 * {@code streams._watermarks}.
 *
 * <p>A flush is one transaction that first runs the watermark compare-and-set and only then appends the rows with
 * DuckDB's Appender. The order matters: on a connection with auto-commit off, an Appender used before any
 * statement ran in the transaction commits on its own and survives a rollback; after the update it is part of the
 * transaction.
 *
 * <p>{@code POST /sql} queries run on connections of their own ({@link #query}), never on the ones the flusher and
 * the model runner use, and once start-up has set what the warehouse needs (external access off, a memory limit, a
 * thread count) the configuration is locked, so no connection can change it any more.
 */
final class DuckDbWarehouse implements Warehouse {

    private static final Logger LOG = Logger.getLogger(DuckDbWarehouse.class.getName());
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int CLAIM_ATTEMPTS = 20;
    private static final int IDLE_QUERY_CONNECTIONS = 8;

    private final Path file;
    private final FlushListener listener;
    private final DuckDBConnection connection;
    private final BlockingQueue<DuckDBConnection> idle = new LinkedBlockingQueue<>();
    /** Idle connections used only for {@code POST /sql} queries; at most {@link #IDLE_QUERY_CONNECTIONS} kept. */
    private final BlockingQueue<DuckDBConnection> idleForQueries = new LinkedBlockingQueue<>(IDLE_QUERY_CONNECTIONS);
    /** Each stream table's columns in table order, name to DuckDB type; the Appender fills them in this order. */
    private final Map<String, LinkedHashMap<String, String>> layouts = new ConcurrentHashMap<>();
    private final Map<String, Set<String>> declaredColumns = new ConcurrentHashMap<>();
    private final List<String> migrations = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final DuckDbModels models;
    private final DuckDbRuns runs;
    private final ScheduledExecutorService watchdog = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "interlace-sql-timeout");
        thread.setDaemon(true);
        return thread;
    });

    DuckDbWarehouse(Path file, FlushListener listener) {
        this(file, listener, UnaryOperator.identity());
    }

    /**
     * @param modelConnections applied to each connection a model run or the run history uses (fault-injection tests
     *     wrap them; otherwise the identity)
     */
    DuckDbWarehouse(Path file, FlushListener listener, UnaryOperator<Connection> modelConnections) {
        this.file = file;
        this.listener = listener;
        this.models = new DuckDbModels(() -> modelConnections.apply(connect()), this);
        this.runs = new DuckDbRuns(() -> modelConnections.apply(connect()));
        try {
            Properties properties = new Properties();
            // Nothing in the warehouse reads or writes files other than its own; queries cannot either.
            properties.setProperty("enable_external_access", "false");
            // The driver directly, not DriverManager: it must not depend on service registration in shaded jars.
            connection = (DuckDBConnection) new DuckDBDriver().connect("jdbc:duckdb:" + file, properties);
            try (Statement statement = connection.createStatement()) {
                statement.execute("CREATE SCHEMA IF NOT EXISTS streams");
                statement.execute("CREATE TABLE IF NOT EXISTS streams._watermarks ("
                        + " stream VARCHAR PRIMARY KEY,"
                        + " watermark BIGINT NOT NULL,"
                        + " fencing_token BIGINT NOT NULL,"
                        + " updated_at TIMESTAMP NOT NULL)");
                statement.execute("CREATE SCHEMA IF NOT EXISTS interlace");
                statement.execute("CREATE TABLE IF NOT EXISTS interlace.flushes ("
                        + " flush_id VARCHAR NOT NULL,"
                        + " stream VARCHAR NOT NULL,"
                        + " target VARCHAR NOT NULL,"
                        + " first_offset BIGINT NOT NULL,"
                        + " last_offset BIGINT NOT NULL,"
                        + " \"rows\" BIGINT NOT NULL,"
                        + " started_at TIMESTAMP NOT NULL,"
                        + " committed_at TIMESTAMP,"
                        + " error VARCHAR)");
                statement.execute("SET memory_limit = '" + memoryLimitMebibytes() + "MiB'");
                statement.execute("SET threads = " + Runtime.getRuntime().availableProcessors());
                // Last: from here on no connection, ours or a query's, can change a setting.
                statement.execute("SET lock_configuration = true");
            }
        } catch (SQLException e) {
            throw new WarehouseException("cannot open the warehouse " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * Half the machine's memory (as the JVM sees it, container limits included), at least 256 MiB: DuckDB's own
     * default is 80 %, which leaves too little for the JVM and SQLite in the same process.
     */
    private static long memoryLimitMebibytes() {
        long total = 0;
        if (java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                instanceof com.sun.management.OperatingSystemMXBean os) {
            total = os.getTotalMemorySize();
        }
        return Math.max(256, total / 2 / (1 << 20));
    }

    @Override
    public Positions prepare(StreamDescriptor stream) {
        DuckDBConnection c = borrow();
        try (Statement statement = c.createStatement()) {
            migrate(c, stream);
            layouts.put(stream.name(), layout(c, stream.name()));
            declaredColumns.put(stream.name(), Set.copyOf(stream.columnNames()));
            statement.execute("CREATE TABLE IF NOT EXISTS " + Sql.streamsTable(Target.quarantine(stream.name()).table())
                    + " (_seq BIGINT NOT NULL, _ingested_at TIMESTAMP NOT NULL, _request_id VARCHAR NOT NULL,"
                    + " payload JSON NOT NULL, errors JSON NOT NULL)");
            for (Target target : List.of(Target.events(stream.name()), Target.quarantine(stream.name()))) {
                try (PreparedStatement insert = c.prepareStatement("INSERT INTO streams._watermarks"
                        + " VALUES (?, 0, 0, make_timestamp(?)) ON CONFLICT DO NOTHING")) {
                    insert.setString(1, target.key());
                    insert.setLong(2, nowMicros());
                    insert.executeUpdate();
                }
            }
            return new Positions(watermark(c, Target.events(stream.name())),
                    watermark(c, Target.quarantine(stream.name())));
        } catch (SQLException e) {
            throw new WarehouseException("cannot prepare the tables of stream " + stream.name() + ": "
                    + e.getMessage(), e);
        } finally {
            release(c);
        }
    }

    /**
     * Creates {@code streams.<name>}, or brings it to the declared schema: declared columns the table lacks are added
     * when nullable; anything else (a removed or retyped column, a new {@code not null} column) stops start-up.
     */
    private void migrate(DuckDBConnection c, StreamDescriptor stream) throws SQLException {
        Map<String, String[]> existing = columns(c, stream.name());
        String table = Sql.streamsTable(stream.name());
        if (existing.isEmpty()) {
            StringBuilder create = new StringBuilder("CREATE TABLE ").append(table).append(" (");
            for (Column column : stream.columns()) {
                create.append(Sql.quote(column.name())).append(' ').append(column.sqlType())
                        .append(column.notNull() ? " NOT NULL" : "").append(", ");
            }
            create.append("_offset BIGINT NOT NULL, _ingested_at TIMESTAMP NOT NULL, _request_id VARCHAR NOT NULL)");
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
            throw new MigrationException("stream " + stream.name() + " (" + stream.declaredBy() + ") cannot be"
                    + " migrated automatically: " + String.join("; ", problems));
        }
        for (Column column : added) {
            try (Statement statement = c.createStatement()) {
                statement.execute("ALTER TABLE " + table + " ADD COLUMN " + Sql.quote(column.name()) + " "
                        + column.sqlType());
            }
            LOG.info("stream " + stream.name() + ": added column " + column.name() + " " + column.sqlType());
            migrations.add("stream " + stream.name() + ": added column " + column.name() + " " + column.sqlType()
                    + " to streams." + stream.name());
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
            DuckDBConnection c = borrow();
            try {
                c.setAutoCommit(false);
                try (PreparedStatement claim = c.prepareStatement("UPDATE streams._watermarks"
                        + " SET fencing_token = ?, updated_at = make_timestamp(?)"
                        + " WHERE stream = ? AND fencing_token <= ?");
                        PreparedStatement read = c.prepareStatement(
                                "SELECT watermark, fencing_token FROM streams._watermarks WHERE stream = ?")) {
                    claim.setLong(1, token);
                    claim.setLong(2, nowMicros());
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
                rollbackQuietly(c);
                last = e;
                try {
                    Thread.sleep(10L * (attempt + 1));
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    break;
                }
            } finally {
                try {
                    c.setAutoCommit(true);
                } catch (SQLException e) {
                    LOG.log(Level.FINE, "resetting auto-commit failed", e);
                }
                release(c);
            }
        }
        throw new WarehouseException("cannot claim " + target.key() + ": " + (last == null ? "interrupted"
                : last.getMessage()), last);
    }

    /**
     * Now as epoch microseconds, for {@code make_timestamp(?)}: stored times are UTC whatever the session time zone
     * ({@code current_timestamp} into a {@code TIMESTAMP} column would be local wall-clock time).
     */
    private static long nowMicros() {
        return EpochMicros.now(java.time.Clock.systemUTC());
    }

    /** Inserts a flush record; a committed batch's commit time is now (UTC, like every stored time). */
    private static void insertFlushRecord(Connection c, FlushRecord record, boolean committed) throws SQLException {
        try (PreparedStatement insert = c.prepareStatement("INSERT INTO interlace.flushes VALUES (?, ?, ?, ?, ?, ?,"
                + " make_timestamp(?), make_timestamp(?), ?)")) {
            insert.setString(1, record.id());
            insert.setString(2, record.stream());
            insert.setString(3, record.target());
            insert.setLong(4, record.firstOffset());
            insert.setLong(5, record.lastOffset());
            insert.setLong(6, record.rows());
            insert.setLong(7, record.startedAtMicros());
            if (committed) {
                insert.setLong(8, nowMicros());
            } else {
                insert.setNull(8, java.sql.Types.BIGINT);
            }
            insert.setString(9, record.error());
            insert.executeUpdate();
        }
    }

    @Override
    public List<String> migrationsApplied() {
        return List.copyOf(migrations);
    }

    @Override
    public void recordFailedFlush(FlushRecord record) {
        DuckDBConnection c = borrow();
        try {
            insertFlushRecord(c, record, false);
        } catch (SQLException e) {
            throw new WarehouseException("cannot record the failed flush " + record.id() + ": " + e.getMessage(), e);
        } finally {
            release(c);
        }
    }

    @Override
    public FlushRecord.Page flushes(FlushRecord.Filter filter) {
        String where = " FROM interlace.flushes WHERE stream = ? AND target = ? AND first_offset <= ?"
                + " AND last_offset >= ?";
        DuckDBConnection c = borrow();
        try {
            c.setAutoCommit(false); // count and page from one snapshot
        } catch (SQLException e) {
            release(c);
            throw new WarehouseException("cannot read flush records: " + e.getMessage(), e);
        }
        try (PreparedStatement count = c.prepareStatement("SELECT count(*)" + where);
                PreparedStatement select = c.prepareStatement("SELECT flush_id, first_offset, last_offset, \"rows\","
                        + " epoch_us(started_at), coalesce(epoch_us(committed_at), 0), error" + where
                        + " ORDER BY started_at, first_offset LIMIT ?")) {
            for (PreparedStatement statement : List.of(count, select)) {
                statement.setString(1, filter.stream());
                statement.setString(2, filter.target());
                statement.setLong(3, filter.toOffset());
                statement.setLong(4, filter.fromOffset());
            }
            select.setInt(5, filter.limit());
            long total;
            try (ResultSet row = count.executeQuery()) {
                row.next();
                total = row.getLong(1);
            }
            List<FlushRecord> records = new ArrayList<>();
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    records.add(new FlushRecord(rows.getString(1), filter.stream(), filter.target(), rows.getLong(2),
                            rows.getLong(3), rows.getLong(4), rows.getLong(5), rows.getLong(6), rows.getString(7)));
                }
            }
            return new FlushRecord.Page(records, total);
        } catch (SQLException e) {
            throw new WarehouseException("cannot read flush records: " + e.getMessage(), e);
        } finally {
            rollbackQuietly(c);
            try {
                c.setAutoCommit(true);
            } catch (SQLException e) {
                LOG.log(Level.FINE, "resetting auto-commit failed", e);
            }
            release(c);
        }
    }

    @Override
    public long trimFlushes(long beforeMicros) {
        DuckDBConnection c = borrow();
        try (PreparedStatement delete = c.prepareStatement(
                "DELETE FROM interlace.flushes WHERE started_at < make_timestamp(?)")) {
            delete.setLong(1, beforeMicros);
            return delete.executeUpdate();
        } catch (SQLException e) {
            throw new WarehouseException("cannot remove expired flush records: " + e.getMessage(), e);
        } finally {
            release(c);
        }
    }

    @Override
    public void append(StreamDescriptor stream, Target target, long fencingToken, long expectedWatermark,
            long newWatermark, List<Row> rows, FlushRecord record) {
        Map<String, String> layout = target.quarantine() ? Map.of() : layouts.get(stream.name());
        if (layout == null) {
            throw new WarehouseException("stream " + stream.name() + " was not prepared", null);
        }
        if (!target.quarantine() && stream.onSchemaDrift() == SchemaDrift.EVOLVE) {
            layout = evolve(stream, rows);
        }
        Map<String, Integer> declared = new HashMap<>();
        for (int i = 0; i < stream.columns().size(); i++) {
            declared.put(stream.columns().get(i).name(), i);
        }
        DuckDBConnection c = borrow();
        try {
            c.setAutoCommit(false);
            try (PreparedStatement advance = c.prepareStatement("UPDATE streams._watermarks"
                    + " SET watermark = ?, updated_at = make_timestamp(?)"
                    + " WHERE stream = ? AND watermark = ? AND fencing_token = ?")) {
                advance.setLong(1, newWatermark);
                advance.setLong(2, nowMicros());
                advance.setString(3, target.key());
                advance.setLong(4, expectedWatermark);
                advance.setLong(5, fencingToken);
                if (advance.executeUpdate() != 1) {
                    c.rollback();
                    throw new FencedException("the watermark of " + target.key() + " is no longer " + expectedWatermark
                            + " with token " + fencingToken + ": another flusher took over");
                }
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
                        for (Map.Entry<String, String> column : layout.entrySet()) {
                            appendColumn(appender, row, column.getKey(), column.getValue(), declared);
                        }
                    }
                    appender.endRow();
                }
            }
            if (record != null) {
                insertFlushRecord(c, record, true);
            }
            listener.beforeCommit(target, newWatermark, rows.size());
            c.commit();
        } catch (SQLException | RuntimeException e) {
            rollbackQuietly(c);
            if (e instanceof FencedException fenced) {
                throw fenced;
            }
            throw new WarehouseException("flushing " + rows.size() + " rows into " + Sql.streamsTable(target.table())
                    + " failed: " + e.getMessage(), e);
        } finally {
            try {
                c.setAutoCommit(true);
            } catch (SQLException e) {
                LOG.log(Level.FINE, "resetting auto-commit failed", e);
            }
            release(c);
        }
    }

    /** Appends one cell: a declared column's typed value, a bookkeeping column, or an evolved column's value. */
    private static void appendColumn(DuckDBAppender appender, Row row, String column, String type,
            Map<String, Integer> declared) throws SQLException {
        Integer index = declared.get(column);
        if (index != null) {
            appendValue(appender, row.values().get(index));
            return;
        }
        switch (column) {
            case "_offset" -> appender.append(row.offset());
            case "_ingested_at" -> appender.appendEpochMicros(row.ingestedAtMicros());
            case "_request_id" -> appender.append(row.requestId());
            default -> {
                String json = row.undeclaredFields().get(column);
                appendValue(appender, json == null ? null : EvolvedTypes.convert(json, type));
            }
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
        LinkedHashMap<String, String> layout = layouts.get(stream.name());
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
        DuckDBConnection c = borrow();
        try (Statement statement = c.createStatement()) {
            for (String change : changes) {
                listener.beforeAlter(stream.table(), change);
                statement.execute("ALTER TABLE " + Sql.streamsTable(stream.name()) + " " + change);
                LOG.info("stream " + stream.name() + " evolved: " + change);
            }
            LinkedHashMap<String, String> updated = layout(c, stream.name());
            layouts.put(stream.name(), updated);
            return updated;
        } catch (SQLException e) {
            throw new WarehouseException("evolving " + stream.table() + " failed: " + e.getMessage(), e);
        } finally {
            release(c);
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
        DuckDBConnection c = borrow();
        try {
            return watermark(c, target);
        } catch (SQLException e) {
            throw new WarehouseException("cannot read the watermark of " + target.key() + ": " + e.getMessage(), e);
        } finally {
            release(c);
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

    /**
     * Runs one query that cannot change anything: DuckDB's parser must classify the text as exactly one query
     * ({@link QueryClassifier}), and it runs in a {@code READ ONLY} transaction that is always rolled back, on a
     * connection used only for these queries. A connection whose state is not known to be clean afterwards (the
     * query failed, was cancelled, or the rollback failed) is closed instead of reused.
     */
    @Override
    public QueryResult query(String sql, QueryLimits limits) {
        DuckDBConnection c = borrowForQuery();
        try {
            QueryClassifier.requireOneQuery(c, sql);
        } catch (QueryException refused) {
            releaseForQuery(c); // classification ran one SELECT in auto-commit: no transaction is left open
            throw refused;
        }
        boolean clean = false;
        ScheduledFuture<?> deadline = null;
        AtomicBoolean cancelled = new AtomicBoolean();
        try (Statement statement = c.createStatement()) {
            statement.execute("BEGIN TRANSACTION READ ONLY");
            deadline = watchdog.schedule(() -> {
                cancelled.set(true);
                try {
                    statement.cancel();
                } catch (SQLException e) {
                    LOG.log(Level.FINE, "cancelling a query failed", e);
                }
            }, Math.max(1, limits.timeout().toMillis()), TimeUnit.MILLISECONDS);
            QueryResult result;
            try (ResultSet rows = statement.executeQuery(sql)) {
                result = collect(rows, limits);
            }
            deadline.cancel(false);
            statement.execute("ROLLBACK");
            clean = !cancelled.get();
            return result;
        } catch (SQLException e) {
            throw new QueryException(cancelled.get() ? "the query ran longer than " + limits.timeout().toMillis()
                    + " ms and was cancelled" : e.getMessage(), cancelled.get(), e);
        } finally {
            if (deadline != null) {
                deadline.cancel(false);
            }
            if (clean) {
                releaseForQuery(c);
            } else {
                closeQuietly(c);
            }
        }
    }

    /** Reads rows until the result ends, {@code maxRows} are read, or the values reach {@code maxAnswerBytes}. */
    private static QueryResult collect(ResultSet rows, QueryLimits limits) throws SQLException {
        ResultSetMetaData meta = rows.getMetaData();
        List<QueryResult.ResultColumn> columns = new ArrayList<>();
        for (int i = 1; i <= meta.getColumnCount(); i++) {
            columns.add(new QueryResult.ResultColumn(meta.getColumnName(i), meta.getColumnTypeName(i)));
        }
        List<List<Object>> values = new ArrayList<>();
        long bytes = 0;
        while (rows.next()) {
            if (values.size() == limits.maxRows()) {
                return new QueryResult(columns, values, true);
            }
            List<Object> row = new ArrayList<>(columns.size());
            for (int i = 1; i <= columns.size(); i++) {
                Object value = value(rows, i, columns.get(i - 1).type());
                bytes += estimatedBytes(value);
                if (bytes > limits.maxAnswerBytes()) {
                    return new QueryResult(columns, values, true);
                }
                row.add(value);
            }
            values.add(row);
        }
        return new QueryResult(columns, values, false);
    }

    /** About how many bytes a value takes in an answer: its text's length, plus a separator. */
    private static long estimatedBytes(Object value) {
        if (value == null || value instanceof Number || value instanceof Boolean) {
            return 24;
        }
        if (value instanceof CharSequence text) {
            return text.length() + 3L;
        }
        return value.toString().length() + 3L;
    }

    /** A column value in a JSON-friendly Java type: timestamps as UTC instants, dates as local dates. */
    private static Object value(ResultSet rows, int index, String type) throws SQLException {
        Object value = rows.getObject(index);
        if (value == null) {
            return null;
        }
        if (type.equals("TIMESTAMP") || type.startsWith("TIMESTAMP_")) {
            return rows.getObject(index, LocalDateTime.class).toInstant(ZoneOffset.UTC);
        }
        if (type.equals("TIMESTAMP WITH TIME ZONE")) {
            return rows.getObject(index, OffsetDateTime.class).toInstant();
        }
        if (type.equals("DATE")) {
            return rows.getObject(index, LocalDate.class);
        }
        return value;
    }

    @Override
    public Connection connect() {
        try {
            return connection.duplicate();
        } catch (SQLException e) {
            throw new WarehouseException("cannot open a connection to " + file + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void prepareModels() {
        models.prepareModels();
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
        return models.materialise(model, steps);
    }

    @Override
    public void prepareRuns(long nowMicros) {
        runs.prepareRuns(nowMicros);
    }

    @Override
    public void runStarted(RunRecord run) {
        runs.runStarted(run);
    }

    @Override
    public void runFinished(String id, String status, long finishedAtMicros, List<RunRecord.ModelResult> results) {
        runs.runFinished(id, status, finishedAtMicros, results);
    }

    @Override
    public RunRecord.Page runs(RunRecord.Filter filter) {
        return runs.runs(filter);
    }

    @Override
    public Optional<RunRecord> run(String id) {
        return runs.run(id);
    }

    @Override
    public List<TableReference> tablesReadBy(String select) {
        JsonNode tree = serialize(select);
        Set<String> cteNames = new HashSet<>();
        List<TableReference> tables = new ArrayList<>();
        collect(tree, cteNames, tables);
        List<TableReference> read = new ArrayList<>();
        for (TableReference table : tables) {
            boolean cte = table.schema().isEmpty() && cteNames.contains(table.table());
            if (!cte && !read.contains(table)) {
                read.add(table);
            }
        }
        return read;
    }

    @Override
    public String replaceTables(String select, Map<String, String> replacements) {
        JsonNode tree = serialize(select);
        replace(tree, replacements);
        DuckDBConnection c = borrow();
        try (PreparedStatement deserialize = c.prepareStatement("SELECT json_deserialize_sql(?::JSON)")) {
            deserialize.setString(1, JSON.writeValueAsString(tree));
            try (ResultSet row = deserialize.executeQuery()) {
                row.next();
                return row.getString(1);
            }
        } catch (SQLException | IOException e) {
            throw new QueryException("cannot rewrite the query: " + e.getMessage(), false, e);
        } finally {
            release(c);
        }
    }

    /** The parse tree of one SELECT, from DuckDB's own parser. */
    private JsonNode serialize(String select) {
        DuckDBConnection c = borrow();
        try (PreparedStatement serialize = c.prepareStatement("SELECT json_serialize_sql(?)")) {
            serialize.setString(1, select);
            JsonNode tree;
            try (ResultSet row = serialize.executeQuery()) {
                row.next();
                tree = JSON.readTree(row.getString(1));
            }
            if (tree.path("error").asBoolean()) {
                throw new QueryException(tree.path("error_message").asText("the query cannot be parsed"), false,
                        null);
            }
            if (tree.path("statements").size() != 1) {
                throw new QueryException("a model is exactly one SELECT statement", false, null);
            }
            return tree;
        } catch (SQLException | IOException e) {
            throw new QueryException(e.getMessage(), false, e);
        } finally {
            release(c);
        }
    }

    private static void collect(JsonNode node, Set<String> cteNames, List<TableReference> tables) {
        if (node.isObject()) {
            if ("BASE_TABLE".equals(node.path("type").asText())) {
                tables.add(new TableReference(node.path("schema_name").asText(""), node.path("table_name").asText()));
            }
            JsonNode ctes = node.path("cte_map").path("map");
            for (JsonNode cte : ctes) {
                cteNames.add(cte.path("key").asText());
            }
            node.forEach(child -> collect(child, cteNames, tables));
        } else if (node.isArray()) {
            node.forEach(child -> collect(child, cteNames, tables));
        }
    }

    private static void replace(JsonNode node, Map<String, String> replacements) {
        if (node instanceof ObjectNode object) {
            if ("BASE_TABLE".equals(object.path("type").asText())) {
                String key = object.path("schema_name").asText("") + "." + object.path("table_name").asText();
                String replacement = replacements.get(key);
                if (replacement != null) {
                    if (object.path("alias").asText("").isEmpty()) {
                        object.put("alias", object.path("table_name").asText());
                    }
                    object.put("schema_name", "");
                    object.put("catalog_name", "");
                    object.put("table_name", replacement);
                    if (object.has("qualified_name")) {
                        // Newer DuckDB versions print the relation from its qualified path.
                        object.putObject("qualified_name").putArray("path").add(replacement);
                    }
                }
            }
            object.forEach(child -> replace(child, replacements));
        } else if (node.isArray()) {
            node.forEach(child -> replace(child, replacements));
        }
    }

    /** A connection of its own for the calling thread's work (DuckDB connections are not thread-safe). */
    DuckDBConnection borrow() {
        DuckDBConnection c = idle.poll();
        if (c != null) {
            return c;
        }
        try {
            return (DuckDBConnection) connection.duplicate();
        } catch (SQLException e) {
            throw new WarehouseException("cannot open a connection to " + file + ": " + e.getMessage(), e);
        }
    }

    void release(DuckDBConnection c) {
        idle.offer(c);
    }

    /** A connection only {@code POST /sql} queries use, in auto-commit mode with no transaction open. */
    private DuckDBConnection borrowForQuery() {
        DuckDBConnection c = idleForQueries.poll();
        if (c != null) {
            return c;
        }
        try {
            return (DuckDBConnection) connection.duplicate();
        } catch (SQLException e) {
            throw new QueryException("cannot open a connection to " + file + ": " + e.getMessage(), false, e);
        }
    }

    private void releaseForQuery(DuckDBConnection c) {
        if (!idleForQueries.offer(c)) {
            closeQuietly(c);
        }
    }

    private static void closeQuietly(Connection c) {
        try {
            c.close();
        } catch (SQLException e) {
            LOG.log(Level.FINE, "closing a warehouse connection failed", e);
        }
    }

    private static void rollbackQuietly(Connection c) {
        try {
            if (!c.getAutoCommit()) {
                c.rollback();
            }
        } catch (SQLException e) {
            LOG.log(Level.FINE, "rollback failed", e);
        }
    }

    @Override
    public void close() {
        watchdog.shutdownNow();
        DuckDBConnection c;
        while ((c = idle.poll()) != null) {
            closeQuietly(c);
        }
        while ((c = idleForQueries.poll()) != null) {
            closeQuietly(c);
        }
        try (Statement statement = connection.createStatement()) {
            statement.execute("CHECKPOINT");
        } catch (SQLException e) {
            LOG.log(Level.FINE, "final warehouse checkpoint failed", e);
        }
        try {
            connection.close();
        } catch (SQLException e) {
            LOG.log(Level.WARNING, "closing the warehouse failed", e);
        }
    }
}
