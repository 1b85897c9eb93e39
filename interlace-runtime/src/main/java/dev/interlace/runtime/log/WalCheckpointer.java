package dev.interlace.runtime.log;

import dev.interlace.runtime.ops.DaemonThreads;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Checkpoints the WAL in the background on a connection of its own, every {@value #CHECKPOINT_MILLIS} ms: PASSIVE, or
 * RESTART once the WAL passes its cap, so that the writer (with automatic checkpoints off) never pays for one.
 */
final class WalCheckpointer {

    /** Log lines keep the name of the log they come from. */
    private static final Logger LOG = Logger.getLogger(SqliteStreamLog.class.getName());
    /** How often the background connection checkpoints; often enough that the WAL rarely reaches its cap. */
    private static final long CHECKPOINT_MILLIS = 250;

    private final LogConnections connections;
    private final LogSettings settings;
    private final ScheduledExecutorService checkpointer;
    private Connection checkpointConnection;

    /** Snapshots being taken now ({@link #duringSnapshot}). */
    private final java.util.concurrent.atomic.AtomicInteger snapshots = new java.util.concurrent.atomic.AtomicInteger();

    /** Starts checkpointing on the {@code interlace-log-checkpoint} thread. */
    WalCheckpointer(LogConnections connections, LogSettings settings) {
        this.connections = connections;
        this.settings = settings;
        checkpointer = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("interlace-log-checkpoint"));
        checkpointer.scheduleWithFixedDelay(this::checkpoint, CHECKPOINT_MILLIS, CHECKPOINT_MILLIS,
                TimeUnit.MILLISECONDS);
    }

    private void checkpoint() {
        try {
            if (checkpointConnection == null) {
                checkpointConnection = connections.open();
            }
            Path wal = connections.file().resolveSibling(connections.file().getFileName() + "-wal");
            long walBytes = Files.exists(wal) ? Files.size(wal) : 0;
            // A RESTART waits for every reader to leave the WAL, holding the write lock; during a snapshot (one long
            // read) it would hold up every append, so the WAL may pass its cap until the snapshot ends.
            String mode = walBytes > settings.walCapBytes() && snapshots.get() == 0 ? "RESTART" : "PASSIVE";
            try (Statement statement = checkpointConnection.createStatement()) {
                statement.execute("PRAGMA wal_checkpoint(" + mode + ")");
            }
        } catch (SQLException | IOException e) {
            LOG.log(Level.FINE, "background checkpoint failed; it is retried", e);
        }
    }

    /** Runs a long read of the whole database (a snapshot) with passive checkpoints only. */
    <T> T duringSnapshot(java.util.concurrent.Callable<T> snapshot) throws Exception {
        snapshots.incrementAndGet();
        try {
            return snapshot.call();
        } finally {
            snapshots.decrementAndGet();
        }
    }

    /** Stops checkpointing (waiting for a checkpoint under way) and closes the connection. */
    void close() {
        checkpointer.shutdown();
        DaemonThreads.awaitTermination(checkpointer, Duration.ofSeconds(10));
        LogConnections.closeQuietly(checkpointConnection);
    }
}
