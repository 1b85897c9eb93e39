package dev.interlace.warehouse.duckdb;

import dev.interlace.runtime.warehouse.Warehouse;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Online copies of the warehouse's file. Every write of the warehouse (a flush, a claim, a model run, a run record)
 * holds the shared side of one lock; a snapshot holds its exclusive side, so that while it copies no transaction
 * commits and DuckDB writes neither its file nor its WAL: the file and the WAL copied then are exactly the committed
 * state, rows and watermarks together. Queries take no part in the lock and go on.
 *
 * <p>A copy rather than {@code ATTACH} and {@code COPY FROM DATABASE}: the database runs with external access off
 * and its configuration locked, so it cannot attach a file outside itself.
 */
final class DuckDbSnapshots {

    private static final Logger LOG = Logger.getLogger(DuckDbSnapshots.class.getName());

    /** Work on the warehouse that may throw {@link SQLException}. */
    @FunctionalInterface
    interface Work<T> {
        T run() throws SQLException;
    }

    private final Path file;
    private final DuckDbConnections connections;
    private final ReadWriteLock writes = new ReentrantReadWriteLock();

    DuckDbSnapshots(Path file, DuckDbConnections connections) {
        this.file = file;
        this.connections = connections;
    }

    /** Runs a write of the warehouse; it waits while a snapshot is being taken. */
    <T> T writingSql(Work<T> work) throws SQLException {
        writes.readLock().lock();
        try {
            return work.run();
        } finally {
            writes.readLock().unlock();
        }
    }

    /** {@link #writingSql} for work that throws no checked exception. */
    <T> T writing(java.util.function.Supplier<T> work) {
        writes.readLock().lock();
        try {
            return work.get();
        } finally {
            writes.readLock().unlock();
        }
    }

    /** {@link #writing(java.util.function.Supplier)} for work that returns nothing. */
    void writing(Runnable work) {
        writing(() -> {
            work.run();
            return null;
        });
    }

    /**
     * Checkpoints (so that the copy is one file when it can be), then copies the database file and its WAL, if any,
     * into {@code directory}, with no write in progress.
     */
    Warehouse.Snapshot snapshotInto(Path directory) throws IOException {
        writes.writeLock().lock();
        try {
            Map<String, Long> watermarks = new TreeMap<>();
            try (Connection connection = connections.connect()) {
                try (Statement checkpoint = connection.createStatement()) {
                    checkpoint.execute("CHECKPOINT");
                } catch (SQLException e) {
                    // A query's open transaction can hold a checkpoint off (and a failed statement is closed); the
                    // WAL is copied with the file then.
                    LOG.log(Level.FINE, "no checkpoint before the warehouse snapshot; its WAL is copied too", e);
                }
                try (Statement statement = connection.createStatement();
                        ResultSet rows = statement.executeQuery("SELECT stream, watermark FROM streams._watermarks")) {
                    while (rows.next()) {
                        watermarks.put(rows.getString(1), rows.getLong(2));
                    }
                }
            } catch (SQLException e) {
                throw new IOException("cannot read the warehouse's watermarks: " + e.getMessage(), e);
            }
            List<String> files = new ArrayList<>();
            for (Path source : List.of(file, file.resolveSibling(file.getFileName() + ".wal"))) {
                if (Files.exists(source)) {
                    Files.copy(source, directory.resolve(source.getFileName()), StandardCopyOption.COPY_ATTRIBUTES);
                    files.add(source.getFileName().toString());
                }
            }
            return new Warehouse.Snapshot(files, watermarks);
        } finally {
            writes.writeLock().unlock();
        }
    }
}
