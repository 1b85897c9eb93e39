package dev.interlace.runtime.log;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Connections to the log's database: every connection is opened here with the same settings (WAL,
 * {@code synchronous=FULL}), and the readers' connections are pooled. The writer and the checkpointer own their
 * connections; readers borrow one per read.
 */
final class LogConnections {

    /** Log lines keep the name of the log they come from. */
    private static final Logger LOG = Logger.getLogger(SqliteStreamLog.class.getName());
    private static final int READERS = 4;
    /** SQLite's {@code SQLITE_OPEN_READONLY} flag. */
    private static final int SQLITE_OPEN_READONLY = 0x00000001;

    private final Path file;
    private final BlockingQueue<Connection> readers = new ArrayBlockingQueue<>(READERS);
    private volatile boolean closed;
    /** Whether the connections only read: another process owns the file ({@link SqliteLogFollower}). */
    private final boolean readOnly;

    LogConnections(Path file) {
        this(file, false);
    }

    LogConnections(Path file, boolean readOnly) {
        this.file = file;
        this.readOnly = readOnly;
    }

    /** The database file. */
    Path file() {
        return file;
    }

    Connection open() throws SQLException {
        Properties properties = new Properties();
        if (readOnly) {
            properties.setProperty("open_mode", Integer.toString(SQLITE_OPEN_READONLY));
            properties.setProperty("busy_timeout", "10000");
            return DriverManager.getConnection("jdbc:sqlite:" + file, properties);
        }
        properties.setProperty("journal_mode", "WAL");
        properties.setProperty("synchronous", "FULL");
        properties.setProperty("busy_timeout", "10000");
        // The driver otherwise runs "SELECT last_insert_rowid()" after every insert; nothing here uses it.
        properties.setProperty("jdbc.get_generated_keys", "false");
        return DriverManager.getConnection("jdbc:sqlite:" + file, properties);
    }

    Connection borrowReader() {
        Connection reader = readers.poll();
        if (reader != null) {
            return reader;
        }
        try {
            return open();
        } catch (SQLException e) {
            throw new LogUnavailableException("cannot open a reader on " + file + ": " + e.getMessage(), e);
        }
    }

    /** A read on a reader connection. */
    @FunctionalInterface
    interface Read<T> {
        T on(Connection reader) throws SQLException;
    }

    /**
     * Runs {@code read} on a borrowed reader connection and gives the connection back; a failure is the log
     * unavailable, "cannot {@code doing}".
     */
    <T> T withReader(String doing, Read<T> read) {
        Connection reader = borrowReader();
        try {
            return read.on(reader);
        } catch (SQLException e) {
            throw new LogUnavailableException("cannot " + doing + ": " + e.getMessage(), e);
        } finally {
            returnReader(reader);
        }
    }

    void returnReader(Connection reader) {
        if (closed || !readers.offer(reader)) {
            closeQuietly(reader);
        }
    }

    /** From now on, readers given back are closed instead of pooled. */
    void closing() {
        closed = true;
    }

    /** Closes the pooled readers. */
    void closeReaders() {
        Connection reader;
        while ((reader = readers.poll()) != null) {
            closeQuietly(reader);
        }
    }

    static void closeQuietly(Connection connection) {
        if (connection == null) {
            return;
        }
        try {
            connection.close();
        } catch (SQLException e) {
            LOG.log(Level.FINE, "closing a stream log connection failed", e);
        }
    }
}
