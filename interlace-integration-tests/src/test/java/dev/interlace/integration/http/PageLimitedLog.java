package dev.interlace.integration.http;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.DriverPropertyInfo;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Logger;

/**
 * A test-only fault: caps how many pages one data directory's {@code log.sqlite} may hold (SQLite's
 * {@code max_page_count}), so that its writes fail with {@code SQLITE_FULL} as on a full disk, without privileges.
 *
 * <p>{@code max_page_count} belongs to a connection, so this JDBC driver sits in front of SQLite's for that one file:
 * it opens every connection through SQLite's driver and sets the cap on it, and {@link #limit} changes the cap of
 * every open connection at once ("making room"). The shipped runtime has no such switch.
 */
final class PageLimitedLog implements Driver, AutoCloseable {

    private final String url;
    private final Driver sqlite;
    private final List<Connection> connections = new CopyOnWriteArrayList<>();
    private volatile long maxPages = Integer.MAX_VALUE;

    private PageLimitedLog(Path dataDirectory, Driver sqlite) {
        this.url = "jdbc:sqlite:" + dataDirectory.resolve("log.sqlite");
        this.sqlite = sqlite;
    }

    /** Puts itself in front of SQLite's driver for {@code dataDirectory}'s log, with no cap until {@link #limit}. */
    static PageLimitedLog install(Path dataDirectory) throws SQLException {
        Driver sqlite = DriverManager.getDriver("jdbc:sqlite:");
        PageLimitedLog limited = new PageLimitedLog(dataDirectory, sqlite);
        // The first driver that accepts a URL opens it: this one, then SQLite's own for every other file.
        DriverManager.deregisterDriver(sqlite);
        DriverManager.registerDriver(limited);
        DriverManager.registerDriver(sqlite);
        return limited;
    }

    /** Caps the log at {@code pages} pages (SQLite never caps below the pages already in use). */
    void limit(long pages) throws SQLException {
        maxPages = pages;
        for (Connection connection : connections) {
            if (connection.isClosed()) {
                connections.remove(connection);
            } else {
                apply(connection);
            }
        }
    }

    /** The pages the log holds now (its file plus what the WAL adds). */
    long pageCount() throws SQLException {
        try (Connection connection = sqlite.connect(url, new Properties());
                Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery("PRAGMA page_count")) {
            row.next();
            return row.getLong(1);
        }
    }

    @Override
    public Connection connect(String url, Properties info) throws SQLException {
        if (!this.url.equals(url)) {
            return null;
        }
        Connection connection = sqlite.connect(url, info);
        apply(connection);
        connections.add(connection);
        return connection;
    }

    private void apply(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute("PRAGMA max_page_count=" + maxPages);
        }
    }

    @Override
    public boolean acceptsURL(String url) {
        return this.url.equals(url);
    }

    @Override
    public DriverPropertyInfo[] getPropertyInfo(String url, Properties info) throws SQLException {
        return sqlite.getPropertyInfo(url, info);
    }

    @Override
    public int getMajorVersion() {
        return sqlite.getMajorVersion();
    }

    @Override
    public int getMinorVersion() {
        return sqlite.getMinorVersion();
    }

    @Override
    public boolean jdbcCompliant() {
        return false;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException();
    }

    @Override
    public void close() throws SQLException {
        DriverManager.deregisterDriver(this);
    }
}
