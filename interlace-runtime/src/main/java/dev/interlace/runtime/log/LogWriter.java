package dev.interlace.runtime.log;

import dev.interlace.runtime.health.ComponentHealth;
import dev.interlace.runtime.ops.EpochMicros;
import dev.interlace.runtime.ops.FatalErrors;
import dev.interlace.runtime.stream.StreamDescriptor;
import dev.interlace.runtime.dedup.DedupIndex;
import dev.interlace.runtime.dedup.SegmentListener;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The log's writer: one thread, {@code interlace-log-writer}, owning the write connection, its statements and the
 * streams' positions. Appends queue up in front of it; it takes everything queued (up to
 * {@link LogSettings#maxGroupRequests()}), writes all of it in one transaction and commits once, so concurrent
 * requests share one fsync (group commit); each request's future completes only after that commit, on the
 * {@code interlace-log-ack} thread or, for a lone request, on the writer ({@link Acknowledger}). Registration, trims,
 * consumer-group work and publish-record retention go through the same queue. After a failed write the connection is replaced and the positions reread ({@link
 * WriterConnection}); while writes fail, the idle writer probes every second. A group's transaction and what follows
 * its commit are {@link GroupCommit}'s, the answers {@link Acknowledger}'s; the queue holds {@link WriterTask}s.
 */
final class LogWriter {

    /** Log lines keep the name of the log they come from. */
    private static final Logger LOG = Logger.getLogger(SqliteStreamLog.class.getName());

    private final LogSettings settings;
    private final Clock clock;
    private final ComponentHealth components;

    private final BlockingQueue<WriterTask> queue = new LinkedBlockingQueue<>();
    private final Thread writer;
    private volatile boolean closed;

    // Owned by the writer thread: the connection (replaced after a failed write), the streams and their statements.
    private final WriterConnection writerConnection;
    private final Map<String, StreamState> states = new HashMap<>();
    private final StreamStates streams;
    private final PublishIndex publishIndex;
    private final AppendWriter appendWriter;
    private final QuarantineWriter quarantineWriter;
    private final KeyBlocks keyBlocks = new KeyBlocks();
    private final DedupIndexes dedupIndexes;
    /** Completes appends' futures after their commit, off the writer thread. */
    private final Acknowledger acknowledger;
    private final GroupCommit groupCommit;
    /** Whether a {@link WriterTask.Checkpoint} waits in the queue. */
    private final AtomicBoolean checkpointQueued = new AtomicBoolean();
    /** While writes fail, how often the idle writer checks whether the log can write again. */
    private static final long PROBE_MILLIS = 1_000;

    /**
     * Opens the write connection, creates or migrates the schema and loads the streams' positions and the publish
     * index; {@link #start} then starts the writer thread.
     */
    LogWriter(LogConnections connections, LogSettings settings, Watermarks watermarks, CommitListener listener,
            Clock clock, Map<String, StreamHead> heads,
            Map<String, AtomicReference<CompletableFuture<Void>>> advances, List<AppendListener> appendListeners,
            SegmentListener segmentListener, ComponentHealth components) throws SQLException {
        this.components = components;
        this.settings = settings;
        this.clock = clock;
        this.publishIndex = new PublishIndex(states, settings.publishIndexMillis(), clock);
        this.dedupIndexes = new DedupIndexes(connections.file().getParent(), connections, settings.dedup(),
                segmentListener, clock);
        this.streams = new StreamStates(states, heads, advances, dedupIndexes);
        this.appendWriter = new AppendWriter(states, settings, new AppendDecision(settings, watermarks),
                new StoredStreams(), publishIndex);
        this.quarantineWriter = new QuarantineWriter(appendWriter);
        this.writerConnection = new WriterConnection(connections, settings);
        this.acknowledger = new Acknowledger(components);
        this.groupCommit = new GroupCommit(writerConnection, appendWriter, quarantineWriter, keyBlocks, publishIndex,
                streams, listener, appendListeners, acknowledger, components, clock);
        writerConnection.owner(new WriterConnection.Owner() {
            @Override
            public void prepare(Connection connection) throws SQLException {
                appendWriter.prepare(connection);
                quarantineWriter.prepare(connection);
                keyBlocks.prepare(connection);
                publishIndex.prepare(connection);
            }

            @Override
            public void reload(Connection connection) throws SQLException {
                // After a commit whose outcome is unknown: positions, keys and the publish index as stored.
                streams.reload(connection, micros());
                publishIndex.load(connection);
            }
        });
        Connection connection = writerConnection.connection();
        appendWriter.prepare(connection);
        quarantineWriter.prepare(connection);
        keyBlocks.prepare(connection);
        publishIndex.prepare(connection);
        streams.load(connection);
        publishIndex.load(connection);
        connection.commit();
        writer = new Thread(this::runWriterUntilStopped, "interlace-log-writer");
    }

    void start() {
        writer.start();
    }

    /** See {@link EventLog#register}: on the writer thread, waited for. */
    void register(StreamDescriptor stream) {
        WriterTask.Register task = new WriterTask.Register(stream);
        submitOrFail(task);
        await(task.done());
    }

    /** What the deduplication index of {@code stream} holds; any thread. */
    Optional<DedupIndex.Stats> dedupStats(String stream) {
        return dedupIndexes.stats(stream);
    }

    /** Queues one request for the next group commit. */
    CompletableFuture<AppendResult> append(AppendRequest request) {
        WriterTask.Append task = new WriterTask.Append(request);
        submitOrFail(task);
        return task.result();
    }

    /** Queues one replay; it runs on the writer thread in a transaction of its own (see {@link GroupCommit#runReplay}). */
    CompletableFuture<ReplayResult> replay(ReplayRequest request) {
        WriterTask.Replay task = new WriterTask.Replay(request);
        submitOrFail(task);
        return task.result();
    }

    /**
     * See {@link EventLog#trim}: on the writer thread, waited for, in transactions of at most
     * {@link #TRIM_EVENTS_BATCH} events each so that publishes are written between them.
     */
    long trim(String stream, long throughOffset) {
        return inBatches(TRIM_EVENTS_BATCH, () -> {
            WriterTask.Trim task = new WriterTask.Trim(stream, throughOffset, TRIM_EVENTS_BATCH);
            submitOrFail(task);
            return await(task.done());
        });
    }

    /** The most events one transaction of a trim removes: a retention sweep holds publishes up a few ms at a time. */
    static final long TRIM_EVENTS_BATCH = 10_000;

    /**
     * Removes publish records committed before {@code beforeMicros}, on the writer thread, in transactions of at most
     * {@link PublishIndex#TRIM_BATCH} records each so that publishes are written between them; returns how many.
     */
    long trimPublishes(long beforeMicros) {
        return inBatches(PublishIndex.TRIM_BATCH,
                () -> group(null, (connection, state, now) -> publishIndex.trim(connection, beforeMicros)));
    }

    /** Runs {@code batch} until it removes fewer than {@code batchSize} rows; returns how many it removed in all. */
    private static long inBatches(long batchSize, java.util.function.LongSupplier batch) {
        long removed = 0;
        long last;
        do {
            last = batch.getAsLong();
            removed += last;
        } while (last == batchSize);
        return removed;
    }

    /** Runs {@code work} on the writer thread in a transaction of its own and waits for its result. */
    <T> T group(String stream, WriterTask.GroupWork<T> work) {
        WriterTask.Group<T> task = new WriterTask.Group<>(stream, work);
        if (!submit(task)) {
            throw new LogUnavailableException("the stream log is closed");
        }
        return await(task.done());
    }

    /** Reads a pragma on the writer connection. */
    String pragma(String name) {
        if (!name.matches("[a-z_]+")) {
            throw new IllegalArgumentException("not a pragma name: " + name);
        }
        WriterTask.Pragma task = new WriterTask.Pragma(name);
        submitOrFail(task);
        return await(task.done());
    }

    /**
     * Asks the writer for a passive checkpoint of its own before its next group, unless one is queued already; see
     * {@link WalCheckpointer}. Returns at once.
     */
    void checkpointBetweenGroups() {
        if (checkpointQueued.compareAndSet(false, true) && !submit(new WriterTask.Checkpoint())) {
            checkpointQueued.set(false);
        }
    }

    /**
     * The writer's own checkpoint. Between two groups the writer holds no transaction, so it copies into the database
     * what the background checkpoint left (the few groups committed since), unless a reader still needs older frames;
     * the writer's next transaction then starts the WAL over from its beginning. Only the writer can do that without
     * stopping the writes: a RESTART from another connection holds the write lock while readers finish. A failure
     * here is not a failed write: the next group finds out whether the connection still works.
     */
    private void checkpoint(Connection connection) {
        checkpointQueued.set(false);
        try (Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery("PRAGMA wal_checkpoint(PASSIVE)")) {
            row.next();
        } catch (SQLException e) {
            LOG.log(Level.FINE, "the writer's checkpoint failed; the background checkpoints go on", e);
        }
    }

    /** Why the last write failed, or null. */
    String failure() {
        return writerConnection.failure();
    }

    /**
     * Stops the writer thread after what is queued before the stop, fails the appends queued after it, and closes the
     * write connection after a final TRUNCATE checkpoint; {@code beforeFinalCheckpoint} runs in between (the
     * checkpointer and the readers are closed first).
     */
    void close(Runnable beforeFinalCheckpoint) {
        closed = true;
        queue.add(new WriterTask.Stop());
        try {
            writer.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        acknowledger.close();
        for (WriterTask task : queue) {
            task.fail(new LogUnavailableException("the stream log is closed"));
        }
        dedupIndexes.close();
        streams.close();
        beforeFinalCheckpoint.run();
        writerConnection.close();
    }

    /** Queues {@code task}, or fails it at once when the log is closed (so that nobody waits for it). */
    private void submitOrFail(WriterTask task) {
        if (!submit(task)) {
            task.fail(new LogUnavailableException("the stream log is closed"));
        }
    }

    private boolean submit(WriterTask task) {
        if (closed) {
            return false;
        }
        queue.add(task);
        return true;
    }

    private static <T> T await(CompletableFuture<T> future) {
        try {
            return future.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LogUnavailableException("interrupted while waiting for the stream log", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new LogUnavailableException(e.getCause().getMessage(), e.getCause());
        }
    }

    // ---------------------------------------------------------------- writer thread

    /**
     * The writer thread: {@link #runWriter}, and should anything end it other than a stop (a failure outside a group,
     * e.g. while probing), says that the writer is dead, so that the process exits rather than leave every caller
     * waiting.
     */
    private void runWriterUntilStopped() {
        try {
            runWriter();
        } catch (Throwable e) {
            FatalErrors.exitIfFatal(e);
            components.failed(ComponentHealth.Component.LOG_WRITER, null, e, ComponentHealth.Fate.DEAD);
            throw e;
        }
    }

    private void runWriter() {
        List<WriterTask> group = new ArrayList<>();
        while (true) {
            WriterTask first;
            try {
                first = writerConnection.failure() == null ? queue.take()
                        : queue.poll(PROBE_MILLIS, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            if (first == null) {
                writerConnection.probe();
                continue;
            }
            if (first instanceof WriterTask.Stop) {
                return;
            }
            try {
                if (runGroup(first, group)) {
                    return;
                }
            } catch (Throwable e) {
                // Out of memory: any thread may have died half way, so the process ends (status 3) and a supervisor
                // restarts it; what was acknowledged is fsynced already. Halting is safe for the log: an uncommitted
                // transaction in the WAL (synchronous=FULL) is discarded on the next open, as after a power cut.
                FatalErrors.exitIfFatal(e);
                // Otherwise never let the writer die: every queued caller would wait forever. Fail this group's
                // callers and start the next write on a fresh connection with the state reread.
                writerConnection.writerFailed(e);
                LOG.log(Level.SEVERE, "stream log writer failed; answering the group 503", e);
                // Not a failed write (those are SQLExceptions, handled in the group): a fault of this process. The
                // writer restarts on a fresh connection; health says so until a group commits again.
                components.failed(ComponentHealth.Component.LOG_WRITER, null, e, ComponentHealth.Fate.RESTARTING);
                // It may have failed after the group's commit (answering it): the outcome is not known.
                acknowledger.failLater(group, LogUnavailableException.outcomeUnknown(writerConnection.failure(), e));
            }
        }
    }

    /** Runs one batch of queued tasks; returns true when the log is stopping. */
    private boolean runGroup(WriterTask first, List<WriterTask> group) {
        group.clear();
        group.add(first);
        queue.drainTo(group, settings.maxGroupRequests() - 1);
        List<WriterTask.Append> appends = new ArrayList<>(group.size());
        boolean stop = false;
        for (WriterTask task : group) {
            if (task instanceof WriterTask.Append append) {
                appends.add(append);
            } else {
                if (!appends.isEmpty()) {
                    groupCommit.commitGroup(appends);
                    appends = new ArrayList<>();
                }
                if (task instanceof WriterTask.Stop) {
                    stop = true;
                    break;
                }
                runMaintenance(task);
            }
        }
        if (!appends.isEmpty()) {
            groupCommit.commitGroup(appends);
        }
        return stop;
    }

    private void runMaintenance(WriterTask task) {
        if (task instanceof WriterTask.Checkpoint) {
            checkpoint(writerConnection.connection());
            return;
        }
        if (!(task instanceof WriterTask.Pragma)) {
            LogUnavailableException notReady = writerConnection.ready();
            if (notReady != null) {
                task.fail(notReady);
                return;
            }
        }
        Connection connection = writerConnection.connection();
        PublishIndex.Mark indexBefore = publishIndex.mark();
        try {
            if (task instanceof WriterTask.Register register) {
                streams.register(connection, register.stream(), micros());
                connection.commit();
                register.done().complete(null);
            } else if (task instanceof WriterTask.Trim trim) {
                // The publish records riding on the rows about to go are copied out first.
                publishIndex.index(connection);
                long removed = streams.trim(connection, trim.stream(), trim.throughOffset(), trim.maxEvents());
                connection.commit();
                trim.done().complete(removed);
            } else if (task instanceof WriterTask.Group<?> group) {
                group.run(states, connection, micros());
            } else if (task instanceof WriterTask.Replay replay) {
                groupCommit.runReplay(replay);
            } else if (task instanceof WriterTask.Pragma pragma) {
                try (Statement statement = connection.createStatement();
                        ResultSet row = statement.executeQuery("PRAGMA " + pragma.name())) {
                    pragma.done().complete(row.next() ? row.getString(1) : null);
                }
            }
        } catch (SQLException e) {
            publishIndex.restore(indexBefore);
            writerConnection.failed(e);
            task.fail(new LogUnavailableException("stream log maintenance failed: " + e.getMessage(), e));
        } catch (RuntimeException e) {
            publishIndex.restore(indexBefore);
            writerConnection.rollback();
            task.fail(new LogUnavailableException("stream log maintenance failed: " + e.getMessage(), e));
        }
    }

    private long micros() {
        return EpochMicros.now(clock);
    }
}
