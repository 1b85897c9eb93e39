package dev.interlace.runtime.log;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The reads of a SQLite log file, one path for the log that writes it ({@link SqliteStreamLog}) and for a process
 * that follows another's ({@link SqliteLogFollower}): events, quarantine, keys and publish records on the readers'
 * connections ({@link EventReader}, {@link PublishRecordReader}), long polls woken through {@code advances}, and the
 * heads and append listeners that the writer thread (or the follower's poller) keeps up to date.
 */
abstract sealed class SqliteLogReads implements StreamLog permits SqliteStreamLog, SqliteLogFollower {

    final LogConnections connections;
    /** The heads the writer (or the poller) published last, by stream. */
    final Map<String, StreamHead> heads = new ConcurrentHashMap<>();
    /** Completed when a stream advances; long polls wait on them. */
    final Map<String, AtomicReference<CompletableFuture<Void>>> advances = new ConcurrentHashMap<>();
    final List<AppendListener> appendListeners = new CopyOnWriteArrayList<>();
    private final EventReader events;
    private final PublishRecordReader publishRecords;
    private final AtomicBoolean closed = new AtomicBoolean();

    SqliteLogReads(LogConnections connections) {
        this.connections = connections;
        this.events = new EventReader(connections, heads, advances);
        this.publishRecords = new PublishRecordReader(connections);
    }

    @Override
    public final List<QuarantineEntry> replayedBy(String stream, String requestId, int limit) {
        return events.replayedBy(stream, requestId, limit);
    }

    @Override
    public final List<LogEntry> read(String stream, long afterOffset, int limit, long maxBytes, Duration wait)
            throws InterruptedException {
        return events.read(stream, afterOffset, limit, maxBytes, wait);
    }

    @Override
    public final List<LogEntry> read(String stream, long afterOffset, int limit, long maxBytes,
            PayloadAllowance allowance) {
        return events.read(stream, afterOffset, limit, maxBytes, allowance);
    }

    @Override
    public final List<QuarantineEntry> readQuarantine(String stream, long afterSeq, int limit, long maxBytes) {
        return events.readQuarantine(stream, afterSeq, limit, maxBytes);
    }

    @Override
    public final List<QuarantineEntry> readQuarantine(String stream, long afterSeq, int limit, long maxBytes,
            PayloadAllowance allowance) {
        return events.readQuarantine(stream, afterSeq, limit, maxBytes, allowance);
    }

    @Override
    public final List<LogEntry> latest(String stream, int limit, long maxBytes) {
        return events.latest(stream, limit, maxBytes, PayloadAllowance.UNLIMITED);
    }

    @Override
    public final List<LogEntry> latest(String stream, int limit, long maxBytes, PayloadAllowance allowance) {
        return events.latest(stream, limit, maxBytes, allowance);
    }

    @Override
    public final long firstOffsetSince(String stream, long epochMicros) {
        return events.firstOffsetSince(stream, epochMicros);
    }

    @Override
    public final long offsetOfKey(String stream, String key) {
        return events.offsetOfKey(stream, key);
    }

    @Override
    public final void addAppendListener(AppendListener listener) {
        appendListeners.add(listener);
    }

    @Override
    public final Map<String, StreamHead> heads() {
        return Map.copyOf(heads);
    }

    /** Whether the log was closed. */
    final boolean isClosed() {
        return closed.get();
    }

    /** Closes the log once; closing it again does nothing. */
    @Override
    public final void close() {
        if (closed.compareAndSet(false, true)) {
            closeOnce();
        }
    }

    /** Stops what the log runs and closes its connections: called by the first {@link #close} only. */
    abstract void closeOnce();

    @Override
    public final PublishRecord.Page publishes(PublishRecord.Filter filter) {
        return publishRecords.publishes(filter);
    }

    @Override
    public final List<String> traceIds(String stream, long afterOffset, long throughOffset) {
        return publishRecords.traceIds(stream, afterOffset, throughOffset);
    }
}
