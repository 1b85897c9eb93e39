package dev.interlace.runtime.log;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The log writer's connection and its recovery: after a failed write the connection is replaced and the streams'
 * positions and keys reread before the next write; while writes fail, the idle writer probes whether the log can
 * write again. Owned by the writer thread.
 */
final class WriterConnection {

    /** Log lines keep the name of the log they come from. */
    private static final Logger LOG = Logger.getLogger(SqliteStreamLog.class.getName());
    /** What a probe writes (and removes again): room for a typical group of events. */
    private static final int PROBE_BYTES = 64 * 1024;
    /** Changes nothing, but begins the transaction as a write (see {@link #ready}). */
    private static final String TAKE_WRITE_LOCK = "UPDATE streams SET id = id WHERE 0";
    /** SQLite's primary result code for "database or disk is full". */
    private static final int SQLITE_FULL = 13;

    /** What the writer does with a fresh connection: prepare its statements; reread its state when uncertain. */
    interface Owner {
        void prepare(Connection connection) throws SQLException;

        void reload(Connection connection) throws SQLException;
    }

    private final LogConnections connections;
    private final LogSettings settings;
    private Owner owner;
    // Replaced after a failed write: SQLite may have ended the transaction itself (SQLITE_FULL, SQLITE_IOERR) and
    // the driver closes a statement that failed.
    private Connection connection;
    /** See {@link #ready}: a write that changes nothing, run first in every transaction of the writer. */
    private PreparedStatement takeWriteLock;
    /** A write failed: the connection is replaced before the next write. */
    private boolean broken;
    /** A commit's outcome is unknown: positions and keys are reread before the next write. */
    private boolean stateUncertain;
    /** Why the last write failed; null while writes succeed. */
    private volatile String failure;

    WriterConnection(LogConnections connections, LogSettings settings) throws SQLException {
        this.connections = connections;
        this.settings = settings;
        connection = connections.open();
        try (Statement statement = connection.createStatement()) {
            configure(statement);
            LogSchema.create(statement);
        }
        connection.setAutoCommit(false);
        takeWriteLock = connection.prepareStatement(TAKE_WRITE_LOCK);
    }

    /** Sets who prepares statements on a fresh connection and rereads the state. */
    void owner(Owner owner) {
        this.owner = owner;
    }

    Connection connection() {
        return connection;
    }

    /** Why the last write failed, or null. */
    String failure() {
        return failure;
    }

    /** A write succeeded. */
    void succeeded() {
        failure = null;
    }

    private void configure(Statement statement) throws SQLException {
        statement.execute("PRAGMA wal_autocheckpoint=0");
        statement.execute("PRAGMA journal_size_limit=" + settings.walCapBytes());
    }

    /**
     * Replaces the writer connection after a failed write. SQLite ends the transaction on its own after some errors
     * (a full disk, an I/O error); the driver's rollback then fails before it begins the next transaction, leaving
     * the connection committing every statement on its own, and the driver closes the statement that failed. A new
     * connection starts clean; closing the old one discards whatever it still held uncommitted.
     */
    private void reopen() throws SQLException {
        LogConnections.closeQuietly(connection);
        Connection fresh = connections.open();
        try (Statement statement = fresh.createStatement()) {
            configure(statement);
        } catch (SQLException e) {
            LogConnections.closeQuietly(fresh);
            throw e;
        }
        fresh.setAutoCommit(false);
        connection = fresh;
        takeWriteLock = connection.prepareStatement(TAKE_WRITE_LOCK);
        owner.prepare(connection);
        broken = false;
        stateUncertain = true;
    }

    /**
     * Makes the writer ready for its next transaction: after a failure a fresh connection, positions and keys reread
     * from the database; and in every case the database's write lock taken before anything is read. The driver begins
     * transactions DEFERRED, and a transaction that reads first (a deduplication candidate's row) and then writes while
     * another connection holds the write lock (the background checkpointer's RESTART, which keeps it while it waits
     * for readers to leave the WAL) gets SQLITE_BUSY at once: SQLite skips the busy handler there, to avoid a deadlock.
     * A write that changes nothing, run first, waits for the lock within the busy timeout like any other write.
     *
     * @return null when ready, or why the log cannot write
     */
    LogUnavailableException ready() {
        try {
            if (broken) {
                reopen();
            }
            if (stateUncertain) {
                owner.reload(connection);
                connection.commit();
                stateUncertain = false;
            }
            takeWriteLock.executeUpdate();
            return null;
        } catch (SQLException e) {
            failed(e);
            return new LogUnavailableException(failure, e);
        }
    }

    /**
     * Records a failed write: the transaction is discarded, the connection replaced before the next write and the
     * positions reread (a failed COMMIT may still have reached the disk); the log reports itself unavailable until a
     * write succeeds again.
     */
    void failed(Exception e) {
        rollback();
        broken = true;
        stateUncertain = true;
        failure = diskFull(e)
                ? "the disk holding the log is full (" + e.getMessage() + "); publishes are refused until space is"
                        + " freed, and the log retries by itself every second"
                : "the last write failed: " + e.getMessage() + "; the log retries by itself every second";
    }

    /** Records that the writer itself failed unexpectedly (a bug): as {@link #failed}, with that reason. */
    void writerFailed(Throwable e) {
        rollback();
        broken = true;
        stateUncertain = true;
        failure = "the stream log writer failed: " + e;
    }

    private static boolean diskFull(Throwable e) {
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof SQLException sql && (sql.getErrorCode() & 0xFF) == SQLITE_FULL) {
                return true;
            }
        }
        return false;
    }

    /**
     * While writes fail and nothing is queued, checks whether the log can write again by committing (and then
     * removing) a row of {@link #PROBE_BYTES}, so that readiness recovers when space returns, without traffic.
     */
    void probe() {
        if (ready() != null) {
            return;
        }
        try {
            try (PreparedStatement insert = connection.prepareStatement(
                    "INSERT OR REPLACE INTO write_probe(id, filler) VALUES (1, zeroblob(?))")) {
                insert.setInt(1, PROBE_BYTES);
                insert.executeUpdate();
            }
            connection.commit();
            try (Statement delete = connection.createStatement()) {
                delete.executeUpdate("DELETE FROM write_probe");
            }
            connection.commit();
            failure = null;
            LOG.info("the stream log writes again");
        } catch (SQLException e) {
            // The probe touches no positions or keys: no need to reread them (costly with millions of keys).
            boolean uncertain = stateUncertain;
            failed(e);
            stateUncertain = uncertain;
        }
    }

    void rollback() {
        try {
            connection.rollback();
        } catch (SQLException e) {
            // Expected after SQLITE_FULL or an I/O error (SQLite has rolled back already); the connection is replaced.
            LOG.log(Level.FINE, "rollback of the stream log failed", e);
        }
    }

    /** After the writer stopped: a final TRUNCATE checkpoint, then the connection is closed. */
    void close() {
        try (Statement statement = connection.createStatement()) {
            connection.setAutoCommit(true);
            statement.execute("PRAGMA wal_checkpoint(TRUNCATE)");
        } catch (SQLException e) {
            LOG.log(Level.FINE, "final checkpoint failed; the WAL is replayed on the next start", e);
        }
        LogConnections.closeQuietly(connection);
    }
}
