package dev.interlace.runtime.log;

import dev.interlace.runtime.stream.StreamDescriptor;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
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
public final class SqliteLogFollower implements StreamLog {

    private static final Logger LOG = Logger.getLogger(SqliteLogFollower.class.getName());
    static final long POLL_MILLIS = 20;

    private final LogConnections connections;
    private final EventReader events;
    private final PublishRecordReader publishRecords;
    private final Map<String, StreamHead> heads = new ConcurrentHashMap<>();
    private final Map<String, AtomicReference<CompletableFuture<Void>>> advances = new ConcurrentHashMap<>();
    private final List<AppendListener> appendListeners = new CopyOnWriteArrayList<>();
    private final FollowerGroups groups;
    private final Thread poller;
    private volatile String problem;
    private volatile boolean closed;

    /** Follows {@code <serverDataDirectory>/log.sqlite}, which the server has created. */
    public SqliteLogFollower(Path serverDataDirectory, Clock clock) {
        this.connections = new LogConnections(serverDataDirectory.resolve(SqliteStreamLog.FILE_NAME), true);
        this.events = new EventReader(connections, heads, advances);
        this.publishRecords = new PublishRecordReader(connections);
        this.groups = new FollowerGroups(clock, stream -> {
            StreamHead head = heads.get(stream);
            return head == null ? 0 : head.head();
        });
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
        try (Statement statement = reader.createStatement();
                ResultSet rows = statement.executeQuery("SELECT s.name, s.trimmed_through,"
                        + " max(s.trimmed_through, coalesce((SELECT max(\"offset\") FROM events e"
                        + " WHERE e.stream_id = s.id), 0)),"
                        + " max(s.quarantine_trimmed_through, coalesce((SELECT max(seq) FROM quarantine q"
                        + " WHERE q.stream_id = s.id), 0)) FROM streams s")) {
            while (rows.next()) {
                StreamHead next = new StreamHead(rows.getString(1), rows.getLong(3), rows.getLong(4),
                        rows.getLong(2) + 1);
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

    @Override
    public List<QuarantineEntry> replayedBy(String stream, String requestId, int limit) {
        return events.replayedBy(stream, requestId, limit);
    }

    @Override
    public List<LogEntry> read(String stream, long afterOffset, int limit, long maxBytes, Duration wait)
            throws InterruptedException {
        return events.read(stream, afterOffset, limit, maxBytes, wait);
    }

    @Override
    public List<LogEntry> read(String stream, long afterOffset, int limit, long maxBytes,
            PayloadAllowance allowance) {
        return events.read(stream, afterOffset, limit, maxBytes, allowance);
    }

    @Override
    public List<QuarantineEntry> readQuarantine(String stream, long afterSeq, int limit, long maxBytes) {
        return events.readQuarantine(stream, afterSeq, limit, maxBytes);
    }

    @Override
    public void addAppendListener(AppendListener listener) {
        appendListeners.add(listener);
    }

    @Override
    public List<LogEntry> latest(String stream, int limit, long maxBytes) {
        return events.latest(stream, limit, maxBytes, PayloadAllowance.UNLIMITED);
    }

    @Override
    public Map<String, StreamHead> heads() {
        return Map.copyOf(heads);
    }

    /** Nothing is trimmed from here: the server trims its log. */
    @Override
    public long trim(String stream, long throughOffset) {
        return 0;
    }

    @Override
    public long firstOffsetSince(String stream, long epochMicros) {
        return events.firstOffsetSince(stream, epochMicros);
    }

    @Override
    public long offsetOfKey(String stream, String key) {
        return events.offsetOfKey(stream, key);
    }

    @Override
    public Health health() {
        String now = problem;
        return closed ? new Health(false, "the log follower is closed")
                : now == null ? Health.ok() : new Health(false, now);
    }

    @Override
    public Leases.LeaseResult lease(String stream, String group, String owner, Duration ttl, Leases.Actor actor) {
        return groups.lease(stream, group, owner, ttl, actor);
    }

    @Override
    public Leases.CommitResult commit(String stream, String group, Leases.Token token, long offset,
            Leases.Actor actor) {
        return groups.commit(stream, group, token, offset, actor);
    }

    @Override
    public Leases.ReleaseResult release(String stream, String group, Leases.Token token, Leases.Actor actor) {
        return groups.release(stream, group, token, actor);
    }

    @Override
    public Leases.Group grant(String stream, String group, String keyId) {
        return groups.grant(stream, group, keyId);
    }

    @Override
    public List<Leases.Group> groups(String stream) {
        return groups.groups(stream);
    }

    @Override
    public PublishRecord.Page publishes(PublishRecord.Filter filter) {
        return publishRecords.publishes(filter);
    }

    @Override
    public List<String> traceIds(String stream, long afterOffset, long throughOffset) {
        return publishRecords.traceIds(stream, afterOffset, throughOffset);
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
