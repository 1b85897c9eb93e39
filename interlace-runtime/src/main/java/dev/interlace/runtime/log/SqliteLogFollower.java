package dev.interlace.runtime.log;

import dev.interlace.runtime.ops.DaemonThreads;
import dev.interlace.runtime.stream.StreamDescriptor;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Another process's SQLite log, read and never written: what a query process (a local replica of the server's
 * warehouse) flushes from. The log is in WAL mode, so this process reads committed transactions while the server
 * writes; it learns of appends by reading the streams' heads every {@value #POLL_MILLIS} ms, and tells its append
 * listeners (the flusher) when a head moved.
 *
 * <p>The replica's flusher groups live in this process's memory ({@link FollowerGroups}), not in the log: the log's
 * trims do not wait for the replica, and nothing here writes to the server's file. Appends, replays, trims and grants
 * are refused.
 */
public final class SqliteLogFollower extends SqliteLogReads implements ReadOnlyLog, ForwardingConsumerGroups {

    private static final Logger LOG = Logger.getLogger(SqliteLogFollower.class.getName());
    static final long POLL_MILLIS = 20;

    private final FollowerGroups groups;
    private final Thread poller;
    private volatile String problem;

    /** Follows {@code <serverDataDirectory>/log.sqlite}, which the server has created. */
    public SqliteLogFollower(Path serverDataDirectory, Clock clock) {
        super(new LogConnections(serverDataDirectory.resolve(SqliteStreamLog.FILE_NAME), true));
        this.groups = new FollowerGroups(clock, stream -> {
            StreamHead head = heads.get(stream);
            return head == null ? 0 : head.head();
        });
        poll();
        poller = DaemonThreads.thread(this::follow, "interlace-log-follower");
        poller.start();
    }

    private void follow() {
        while (!isClosed()) {
            try {
                Thread.sleep(POLL_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
            poll();
        }
    }

    /** Reads every stream's head and tells the waiting readers and the listeners of each that moved. */
    private void poll() {
        Connection reader = connections.borrowReader();
        try {
            for (StreamState state : StreamStates.stored(reader)) {
                StreamHead next = state.publishedHead();
                StreamHead previous = heads.put(next.stream(), next);
                if (!next.equals(previous)) {
                    advanced(next.stream());
                }
            }
            problem = null;
        } catch (SQLException | RuntimeException e) {
            if (problem == null) {
                LOG.log(Level.WARNING, "cannot read the heads of the log " + connections.file(), e);
            }
            problem = "cannot read the log " + connections.file() + ": " + e.getMessage();
        } finally {
            connections.returnReader(reader);
        }
    }

    private void advanced(String stream) {
        AtomicReference<CompletableFuture<Void>> advance =
                advances.computeIfAbsent(stream, name -> new AtomicReference<>(new CompletableFuture<>()));
        advance.getAndSet(new CompletableFuture<>()).complete(null);
        for (AppendListener listener : appendListeners) {
            listener.appended(stream);
        }
    }

    /** The server registers streams; here a stream is known once the server's log holds it. */
    @Override
    public void register(StreamDescriptor stream) {
        poll();
    }

    @Override
    public String followedLog() {
        return "the server's log";
    }

    @Override
    public Health health() {
        String now = problem;
        return isClosed() ? new Health(false, "the log follower is closed")
                : now == null ? Health.ok() : new Health(false, now);
    }

    @Override
    public ConsumerGroups consumerGroups() {
        return groups;
    }

    @Override
    void closeOnce() {
        poller.interrupt();
        connections.closing();
        connections.closeReaders();
    }
}
