package dev.interlace.runtime.log;

import dev.interlace.runtime.stream.StreamDescriptor;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
 * <p>The replica's flusher groups live in this process's memory, not in the log: the log's trims do not wait for the
 * replica (a replica behind a trim rebuilds from what the log holds), and nothing here writes to the server's file.
 * A group's first token is the time it was made, in microseconds, so that each run's tokens are higher than those an
 * earlier run recorded in the replica's warehouse. Appends, replays, trims and grants are refused.
 */
public final class SqliteLogFollower extends SqliteLogReads {

    private static final Logger LOG = Logger.getLogger(SqliteLogFollower.class.getName());
    static final long POLL_MILLIS = 20;

    private final Clock clock;
    private final Map<String, Leases.Group> groups = new HashMap<>();
    private final Thread poller;
    private volatile String problem;
    private volatile boolean closed;

    /** Follows {@code <serverDataDirectory>/log.sqlite}, which the server has created. */
    public SqliteLogFollower(Path serverDataDirectory, Clock clock) {
        super(new LogConnections(serverDataDirectory.resolve(SqliteStreamLog.FILE_NAME), true));
        this.clock = clock;
        poll();
        poller = new Thread(this::follow, "interlace-log-follower");
        poller.setDaemon(true);
        poller.start();
    }

    private void follow() {
        while (!closed) {
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
    public CompletableFuture<AppendResult> append(AppendRequest request) {
        return CompletableFuture.failedFuture(refused("append to"));
    }

    @Override
    public CompletableFuture<ReplayResult> replay(ReplayRequest request) {
        return CompletableFuture.failedFuture(refused("replay into"));
    }

    /** Nothing is trimmed from here: the server trims its log. */
    @Override
    public long trim(String stream, long throughOffset) {
        return 0;
    }

    @Override
    public Health health() {
        String now = problem;
        return closed ? new Health(false, "the log follower is closed")
                : now == null ? Health.ok() : new Health(false, now);
    }

    @Override
    public synchronized Leases.LeaseResult lease(String stream, String group, String owner, Duration ttl,
            Leases.Actor actor) {
        return decide(stream, group, current -> GroupRules.lease(stream, group, current, owner, ttl, actor, now()));
    }

    @Override
    public synchronized Leases.CommitResult commit(String stream, String group, Leases.Token token, long offset,
            Leases.Actor actor) {
        StreamHead head = heads.get(stream);
        long at = head == null ? 0 : head.head();
        return decide(stream, group, current -> GroupRules.commit(current, token, offset, at, actor, now()));
    }

    @Override
    public synchronized Leases.ReleaseResult release(String stream, String group, Leases.Token token,
            Leases.Actor actor) {
        return decide(stream, group, current -> GroupRules.release(current, token, actor, now()));
    }

    @Override
    public Leases.Group grant(String stream, String group, String keyId) {
        throw refused("grant groups of");
    }

    @Override
    public synchronized List<Leases.Group> groups(String stream) {
        return groups.values().stream().filter(group -> group.stream().equals(stream)).toList();
    }

    private <T> T decide(String stream, String group, java.util.function.Function<Leases.Group,
            GroupRules.Decision<T>> rule) {
        String key = stream + "\u0000" + group;
        // A new group starts at this moment's microseconds, above any token an earlier run of this process recorded.
        Leases.Group current = groups.computeIfAbsent(key, k -> new Leases.Group(stream, group, 0, now(), null, null,
                0, null, List.of()));
        GroupRules.Decision<T> decision = rule.apply(current);
        if (decision.next() != null) {
            groups.put(key, decision.next());
        }
        return decision.answer();
    }

    private long now() {
        return dev.interlace.runtime.ops.EpochMicros.now(clock);
    }

    /** The server trims its publish records. */
    @Override
    public long trimPublishes(long beforeMicros) {
        return 0;
    }

    private static UnsupportedOperationException refused(String what) {
        return new UnsupportedOperationException("a query process only reads the server's log; it cannot " + what
                + " it");
    }

    @Override
    public void close() {
        closed = true;
        poller.interrupt();
        connections.closing();
        connections.closeReaders();
    }
}
