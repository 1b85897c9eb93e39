package dev.interlace.runtime.log;

import dev.interlace.runtime.ops.DaemonThreads;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Checkpoints the WAL in the background on a connection of its own, every {@value #CHECKPOINT_MILLIS} ms, so that the
 * writer (with automatic checkpoints off) pays for little of it.
 *
 * <p>A passive checkpoint copies pages into the database while the writer goes on, but under a steady stream of
 * commits it never catches up with the last one, and only a writer that starts a transaction on a fully copied WAL
 * (no reader still on its frames) starts the WAL over. So once a passive checkpoint found at least
 * {@value #WRITER_RESTART_BYTES} bytes of frames and copied them all, it asks the writer for a passive checkpoint of
 * its own between two groups (the few groups committed since); the writer's next commit then writes from the WAL's
 * start, which keeps the WAL and each checkpoint small. Only when readers keep that from happening and the WAL passes
 * its cap does the background connection RESTART it, which holds the writes up until those readers finish.
 */
final class WalCheckpointer {

    /** Log lines keep the name of the log they come from. */
    private static final Logger LOG = Logger.getLogger(SqliteStreamLog.class.getName());
    /** How often the background connection checkpoints; often enough that the WAL rarely reaches its cap. */
    private static final long CHECKPOINT_MILLIS = 250;
    /** Frames in the WAL, in bytes, past which a fully copied WAL is started over by the writer. */
    static final long WRITER_RESTART_BYTES = 16L << 20;

    private final LogConnections connections;
    private final LogSettings settings;
    private final ScheduledExecutorService checkpointer;
    /** Asks the writer for a checkpoint of its own between two groups. */
    private final Runnable writerCheckpoint;
    private Connection checkpointConnection;
    private long pageBytes;

    /** Snapshots being taken now ({@link #duringSnapshot}). */
    private final java.util.concurrent.atomic.AtomicInteger snapshots = new java.util.concurrent.atomic.AtomicInteger();

    /** Starts checkpointing on the {@code interlace-log-checkpoint} thread. */
    WalCheckpointer(LogConnections connections, LogSettings settings, Runnable writerCheckpoint) {
        this.connections = connections;
        this.settings = settings;
        this.writerCheckpoint = writerCheckpoint;
        checkpointer = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("interlace-log-checkpoint"));
        checkpointer.scheduleWithFixedDelay(this::checkpoint, CHECKPOINT_MILLIS, CHECKPOINT_MILLIS,
                TimeUnit.MILLISECONDS);
    }

    private void checkpoint() {
        try {
            if (checkpointConnection == null) {
                checkpointConnection = connections.open();
                try (Statement statement = checkpointConnection.createStatement();
                        ResultSet row = statement.executeQuery("PRAGMA page_size")) {
                    pageBytes = row.next() ? row.getLong(1) : 4096;
                }
            }
            Path wal = connections.file().resolveSibling(connections.file().getFileName() + "-wal");
            long walBytes = Files.exists(wal) ? Files.size(wal) : 0;
            // A RESTART waits for every reader to leave the WAL, holding the write lock; during a snapshot (one long
            // read) it would hold up every append, so the WAL may pass its cap until the snapshot ends.
            String mode = walBytes > settings.walCapBytes() && snapshots.get() == 0 ? "RESTART" : "PASSIVE";
            try (Statement statement = checkpointConnection.createStatement();
                    ResultSet row = statement.executeQuery("PRAGMA wal_checkpoint(" + mode + ")")) {
                // busy, frames in the WAL, frames copied into the database
                if (row.next() && row.getInt(1) == 0 && row.getLong(2) * pageBytes >= WRITER_RESTART_BYTES
                        && row.getLong(3) == row.getLong(2)) {
                    writerCheckpoint.run();
                }
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
