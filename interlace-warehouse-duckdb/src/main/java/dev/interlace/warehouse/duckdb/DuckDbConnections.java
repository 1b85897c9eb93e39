package dev.interlace.warehouse.duckdb;

import dev.interlace.runtime.sql.QueryException;
import dev.interlace.runtime.warehouse.StreamTables.WarehouseException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.duckdb.DuckDBConnection;
import org.duckdb.DuckDBDriver;

/**
 * The warehouse's DuckDB connections: the database opened once (external access off, a memory limit, a thread
 * count, then the configuration locked, so no connection can change it any more), a pool for the warehouse's own
 * work and a separate pool only {@code POST /sql} queries use.
 */
final class DuckDbConnections {

    /** The WAL size at which DuckDB checkpoints on its own (see where it is set). */
    static final String CHECKPOINT_THRESHOLD = "256MB";

    private static final Logger LOG = Logger.getLogger(DuckDbWarehouse.class.getName());
    private static final int IDLE_QUERY_CONNECTIONS = 8;

    private final Path file;
    private final DuckDBConnection connection;
    private final BlockingQueue<DuckDBConnection> idle = new LinkedBlockingQueue<>();
    /** Idle connections used only for {@code POST /sql} queries; at most {@link #IDLE_QUERY_CONNECTIONS} kept. */
    private final BlockingQueue<DuckDBConnection> idleForQueries = new LinkedBlockingQueue<>(IDLE_QUERY_CONNECTIONS);
    /** Statements prepared on a pooled connection, by SQL, kept for the connection's life ({@link #prepared}). */
    private final Map<DuckDBConnection, Map<String, PreparedStatement>> prepared = new ConcurrentHashMap<>();

    /** Opens (creating if needed) the database in {@code file}, with the schemas every part of it uses. */
    DuckDbConnections(Path file) {
        this.file = file;
        DuckDbNativeLibrary.load();
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
                // Added with W3C trace context: the batch's requests' trace ids (at most 16, comma-separated) and how
                // many there were.
                statement.execute("ALTER TABLE interlace.flushes ADD COLUMN IF NOT EXISTS trace_ids VARCHAR");
                statement.execute("ALTER TABLE interlace.flushes ADD COLUMN IF NOT EXISTS trace_count BIGINT");
                statement.execute("SET memory_limit = '" + memoryLimitMebibytes() + "MiB'");
                statement.execute("SET threads = " + threads());
                // DuckDB checkpoints its WAL into the database file once the WAL reaches this: at its default of 16 MB
                // a flush of a large backlog checkpointed every few batches and the commits took half of the flush
                // (1 M rows: 222 000 rows/s at 16 MB, 276 000-300 000 at 256 MB, measured back to back).
                statement.execute("SET checkpoint_threshold = '" + CHECKPOINT_THRESHOLD + "'");
                // Last: from here on no connection, ours or a query's, can change a setting.
                statement.execute("SET lock_configuration = true");
            }
        } catch (SQLException e) {
            throw new WarehouseException("cannot open the warehouse " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * DuckDB's threads: half the cores, at least one, so that the warehouse's parallel work leaves the publish path
     * cores of its own. With as many threads as cores, a flush's small statements ran on a DuckDB worker while the
     * flushing thread polled DuckDB's scheduler for them (a quarter of the flush threads' samples, on 2 cores): each
     * flush kept two cores busy, and a lone publisher waited for a core behind it.
     */
    static int threads() {
        return Math.max(1, Runtime.getRuntime().availableProcessors() / 2);
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

    /** A new connection of the caller's own (model runs, the run history, tests); the caller closes it. */
    Connection connect() {
        try {
            return connection.duplicate();
        } catch (SQLException e) {
            throw new WarehouseException("cannot open a connection to " + file + ": " + e.getMessage(), e);
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

    /** Gives back a connection that ran a transaction, with auto-commit on again as every idle connection has it. */
    void releaseAfterTransaction(DuckDBConnection c) {
        try {
            c.setAutoCommit(true);
        } catch (SQLException e) {
            LOG.log(Level.FINE, "resetting auto-commit failed", e);
        }
        release(c);
    }

    /**
     * {@code sql} prepared on {@code c}, a connection from {@link #borrow()}, once for as long as the connection lives;
     * the caller sets every parameter on each use and does not close it. For the statements every flush runs (its
     * watermark's compare-and-set, its flush record): preparing one cost DuckDB more than running it, a fifth of a
     * flush thread's time under many small flushes. A borrowed connection is one thread's at a time, and so are its
     * statements. DuckDB binds a prepared statement again by itself when the catalog has changed since.
     */
    PreparedStatement prepared(DuckDBConnection c, String sql) throws SQLException {
        Map<String, PreparedStatement> statements = prepared.computeIfAbsent(c, connection -> new HashMap<>());
        PreparedStatement statement = statements.get(sql);
        if (statement == null) {
            statement = c.prepareStatement(sql);
            statements.put(sql, statement);
        }
        return statement;
    }

    /** A connection only {@code POST /sql} queries use, in auto-commit mode with no transaction open. */
    DuckDBConnection borrowForQuery() {
        DuckDBConnection c = idleForQueries.poll();
        if (c != null) {
            return c;
        }
        try {
            DuckDBConnection fresh = (DuckDBConnection) connection.duplicate();
            try {
                BoundedFunctions.install(fresh);
            } catch (SQLException e) {
                closeQuietly(fresh);
                throw e;
            }
            return fresh;
        } catch (SQLException e) {
            throw new QueryException("cannot open a connection to " + file + ": " + e.getMessage(), false, e);
        }
    }

    void releaseForQuery(DuckDBConnection c) {
        if (!idleForQueries.offer(c)) {
            closeQuietly(c);
        }
    }

    static void closeQuietly(Connection c) {
        try {
            c.close();
        } catch (SQLException e) {
            LOG.log(Level.FINE, "closing a warehouse connection failed", e);
        }
    }

    static void rollbackQuietly(Connection c) {
        try {
            if (!c.getAutoCommit()) {
                c.rollback();
            }
        } catch (SQLException e) {
            LOG.log(Level.FINE, "rollback failed", e);
        }
    }

    /** Closes the idle connections, checkpoints and closes the database. */
    void close() {
        DuckDBConnection c;
        while ((c = idle.poll()) != null) {
            Map<String, PreparedStatement> statements = prepared.remove(c);
            if (statements != null) {
                for (PreparedStatement statement : statements.values()) {
                    try {
                        statement.close();
                    } catch (SQLException e) {
                        LOG.log(Level.FINE, "closing a prepared statement failed", e);
                    }
                }
            }
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
