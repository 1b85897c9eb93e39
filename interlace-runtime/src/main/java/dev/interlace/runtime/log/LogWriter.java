package dev.interlace.runtime.log;

import dev.interlace.runtime.ops.ComponentHealth;
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
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The log's writer: one thread, {@code interlace-log-writer}, owning the write connection, its statements and the
 * streams' positions. Appends queue up in front of it; it takes everything queued (up to
 * {@link LogSettings#maxGroupRequests()}), writes all of it in one transaction and commits once, so concurrent
 * requests share one fsync (group commit); each request's future completes only after that commit, on the
 * {@code interlace-log-ack} thread. Registration, trims, consumer-group work and publish-record retention go through
 * the same queue. After a failed write the connection is replaced and the positions reread ({@link
 * WriterConnection}); while writes fail, the idle writer probes every second.
 */
final class LogWriter {

    /** Log lines keep the name of the log they come from. */
    private static final Logger LOG = Logger.getLogger(SqliteStreamLog.class.getName());

    private final LogSettings settings;
    private final Watermarks watermarks;
    private final CommitListener listener;
    private final Clock clock;
    private final ComponentHealth components;

    private final BlockingQueue<Task> queue = new LinkedBlockingQueue<>();
    private final Thread writer;
    private volatile boolean closed;
    private final Map<String, StreamHead> heads;
    private final Map<String, AtomicReference<CompletableFuture<Void>>> advances;
    private final List<AppendListener> appendListeners;

    // Owned by the writer thread: the connection (replaced after a failed write), the streams and their statements.
    private final WriterConnection writerConnection;
    private final Map<String, StreamState> states = new HashMap<>();
    private final StreamStates streams;
    private final PublishIndex publishIndex;
    private final AppendWriter appendWriter;
    private final QuarantineWriter quarantineWriter;
    private final KeyBlocks keyBlocks = new KeyBlocks();
    private final DedupIndexes dedupIndexes;
    /** Completes appends' futures after their commit, off the writer thread (see {@link #acknowledge}). */
    private final ExecutorService acknowledger = Executors.newSingleThreadExecutor(runnable -> {
        Thread thread = new Thread(runnable, "interlace-log-ack");
        thread.setDaemon(true);
        return thread;
    });
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
        this.publishIndex = new PublishIndex(states, settings.publishIndexMillis());
        this.watermarks = watermarks;
        this.listener = listener;
        this.clock = clock;
        this.heads = heads;
        this.advances = advances;
        this.appendListeners = appendListeners;
        this.dedupIndexes = new DedupIndexes(connections.file().getParent(), connections, settings.dedup(),
                segmentListener, clock);
        this.streams = new StreamStates(states, heads, advances, dedupIndexes);
        this.appendWriter = new AppendWriter(states, settings, watermarks, publishIndex);
        this.quarantineWriter = new QuarantineWriter(states, appendWriter);
        this.writerConnection = new WriterConnection(connections, settings);
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
        RegisterTask task = new RegisterTask(stream);
        submit(task);
        await(task.done);
    }

    /** What the deduplication index of {@code stream} holds; any thread. */
    Optional<DedupIndex.Stats> dedupStats(String stream) {
        return dedupIndexes.stats(stream);
    }

    /** Queues one request for the next group commit. */
    CompletableFuture<AppendResult> append(AppendRequest request) {
        AppendTask task = new AppendTask(request);
        if (!submit(task)) {
            task.result.completeExceptionally(new LogUnavailableException("the stream log is closed"));
        }
        return task.result;
    }

    /** Queues one replay; it runs on the writer thread in a transaction of its own (see {@link #runReplay}). */
    CompletableFuture<ReplayResult> replay(ReplayRequest request) {
        ReplayTask task = new ReplayTask(request);
        if (!submit(task)) {
            task.result.completeExceptionally(new LogUnavailableException("the stream log is closed"));
        }
        return task.result;
    }

    /** See {@link EventLog#trim}: on the writer thread, waited for. */
    long trim(String stream, long throughOffset) {
        TrimTask task = new TrimTask(stream, throughOffset);
        submit(task);
        return await(task.done);
    }

    /** Removes publish records received before {@code beforeMicros}, on the writer thread; returns how many. */
    long trimPublishes(long beforeMicros) {
        return group(null, (connection, state, now) -> publishIndex.trim(connection, beforeMicros));
    }

    /** Runs {@code work} on the writer thread in a transaction of its own and waits for its result. */
    <T> T group(String stream, GroupWork<T> work) {
        GroupTask<T> task = new GroupTask<>(stream, work);
        if (!submit(task)) {
            throw new LogUnavailableException("the stream log is closed");
        }
        return await(task.done);
    }

    /** Reads a pragma on the writer connection. */
    String pragma(String name) {
        if (!name.matches("[a-z_]+")) {
            throw new IllegalArgumentException("not a pragma name: " + name);
        }
        PragmaTask task = new PragmaTask(name);
        submit(task);
        return await(task.done);
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
        queue.add(new StopTask());
        try {
            writer.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        acknowledger.shutdown();
        try {
            acknowledger.awaitTermination(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (Task task : queue) {
            if (task instanceof AppendTask append) {
                append.result.completeExceptionally(new LogUnavailableException("the stream log is closed"));
            }
        }
        dedupIndexes.close();
        streams.close();
        beforeFinalCheckpoint.run();
        writerConnection.close();
    }

    private boolean submit(Task task) {
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
        List<Task> group = new ArrayList<>();
        while (true) {
            Task first;
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
            if (first instanceof StopTask) {
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
                failLater(group, new LogUnavailableException(writerConnection.failure(), e));
            }
        }
    }

    /** Runs one batch of queued tasks; returns true when the log is stopping. */
    private boolean runGroup(Task first, List<Task> group) {
        group.clear();
        group.add(first);
        queue.drainTo(group, settings.maxGroupRequests() - 1);
        List<AppendTask> appends = new ArrayList<>(group.size());
        boolean stop = false;
        for (Task task : group) {
            if (task instanceof AppendTask append) {
                appends.add(append);
            } else {
                if (!appends.isEmpty()) {
                    commitGroup(appends);
                    appends = new ArrayList<>();
                }
                if (task instanceof StopTask) {
                    stop = true;
                    break;
                }
                runMaintenance(task);
            }
        }
        if (!appends.isEmpty()) {
            commitGroup(appends);
        }
        return stop;
    }

    /** Writes every request of the group in one transaction, commits once, then answers them all. */
    private void commitGroup(List<AppendTask> group) {
        LogUnavailableException notReady = writerConnection.ready();
        if (notReady != null) {
            failLater(group, notReady);
            return;
        }
        Connection connection = writerConnection.connection();
        long now = micros();
        Map<StreamState, AppendWriter.Pending> pending = new HashMap<>();
        List<AppendResult> results = new ArrayList<>(group.size());
        int entries = 0;
        PublishIndex.Mark indexBefore = publishIndex.mark();
        try {
            appendWriter.beginGroup();
            for (AppendTask task : group) {
                AppendResult result = appendWriter.write(task.request, now, pending);
                results.add(result);
                entries += task.request.size();
            }
            appendWriter.insertEvents();
            writeKeyBlocks(pending);
            if (publishIndex.due()) {
                publishIndex.index(connection);
            }
            listener.beforeCommit(group.size(), entries);
            connection.commit();
        } catch (SQLException | RuntimeException e) {
            publishIndex.restore(indexBefore);
            writerConnection.failed(e);
            LOG.log(Level.WARNING, "stream log write failed; " + group.size() + " requests answered 503", e);
            failLater(group, new LogUnavailableException(writerConnection.failure(), e));
            return;
        }
        committed(group.size(), entries, pending);
        acknowledge(group, results);
        tellAppended(pending);
    }

    /** Writes the block of keys each stream gained in the current transaction (read at start-up instead of events). */
    private void writeKeyBlocks(Map<StreamState, AppendWriter.Pending> pending) throws SQLException {
        for (Map.Entry<StreamState, AppendWriter.Pending> stream : pending.entrySet()) {
            keyBlocks.write(stream.getKey(), stream.getValue().newKeys.values(),
                    stream.getValue().newKeysReceivedAtMicros);
        }
    }

    /**
     * After a durable commit of {@code requests} requests: tells the commit listeners, then makes the tentative
     * positions and keys of {@code pending} the streams' own (before anyone is answered).
     */
    private void committed(int requests, int entries, Map<StreamState, AppendWriter.Pending> pending) {
        writerConnection.succeeded();
        components.recovered(ComponentHealth.Component.LOG_WRITER, null);
        try {
            listener.afterCommit(requests, entries);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "a commit listener failed after a durable commit; ignored", e);
        }
        for (Map.Entry<StreamState, AppendWriter.Pending> entry : pending.entrySet()) {
            StreamState state = entry.getKey();
            AppendWriter.Pending tentative = entry.getValue();
            state.head = tentative.head;
            state.quarantineHead = tentative.quarantineHead;
            if (state.dedup != null) {
                for (AppendWriter.NewKey key : tentative.newKeys.values()) {
                    state.dedup.add(key.hash(), key.offset());
                }
                state.dedup.committed(state.head);
                Throwable sealFailure = state.dedup.sealFailure();
                if (sealFailure != null) {
                    components.failed(ComponentHealth.Component.DEDUP_SEALER, state.name, sealFailure,
                            ComponentHealth.Fate.RESTARTING);
                } else {
                    components.recovered(ComponentHealth.Component.DEDUP_SEALER, state.name);
                }
            }
            streams.publishHead(state);
        }
    }

    /** Wakes whoever waits for new entries of the streams just committed (long polls, the flusher). */
    private void tellAppended(Map<StreamState, AppendWriter.Pending> pending) {
        for (StreamState state : pending.keySet()) {
            for (AppendListener appendListener : appendListeners) {
                appendListener.appended(state.name);
            }
        }
    }

    /**
     * Completes the group's futures on the {@code interlace-log-ack} thread, in commit order: waking each caller's
     * continuation costs a system call or two per request, which the writer would otherwise pay before it can start
     * the next group.
     */
    private void acknowledge(List<AppendTask> group, List<AppendResult> results) {
        Runnable complete = () -> {
            try {
                for (int i = 0; i < group.size(); i++) {
                    group.get(i).result.complete(results.get(i));
                }
            } catch (Error e) {
                // The rest of the group would wait for ever: the acknowledging thread is as good as dead.
                FatalErrors.exitIfFatal(e);
                components.failed(ComponentHealth.Component.LOG_ACK, null, e, ComponentHealth.Fate.DEAD);
                throw e;
            }
        };
        try {
            acknowledger.execute(complete);
        } catch (RejectedExecutionException e) {
            complete.run(); // closing
        }
    }

    /**
     * Fails the tasks on the {@code interlace-log-ack} thread, like {@link #acknowledge}: the callers' dependent stages
     * (building a 503 for each request) never run on the writer.
     */
    private void failLater(List<? extends Task> tasks, RuntimeException error) {
        List<Task> failed = List.copyOf(tasks); // the writer reuses its group list
        Runnable fail = () -> failed.forEach(task -> task.fail(error));
        try {
            acknowledger.execute(fail);
        } catch (RejectedExecutionException e) {
            fail.run(); // closing
        }
    }

    private void runMaintenance(Task task) {
        if (!(task instanceof PragmaTask)) {
            LogUnavailableException notReady = writerConnection.ready();
            if (notReady != null) {
                task.fail(notReady);
                return;
            }
        }
        Connection connection = writerConnection.connection();
        PublishIndex.Mark indexBefore = publishIndex.mark();
        try {
            if (task instanceof RegisterTask register) {
                streams.register(connection, register.stream, micros());
                connection.commit();
                register.done.complete(null);
            } else if (task instanceof TrimTask trim) {
                // The publish records riding on the rows about to go are copied out first.
                publishIndex.index(connection);
                long removed = streams.trim(connection, trim.stream, trim.throughOffset);
                connection.commit();
                trim.done.complete(removed);
            } else if (task instanceof GroupTask<?> group) {
                group.run(this);
            } else if (task instanceof ReplayTask replay) {
                runReplay(replay);
            } else if (task instanceof PragmaTask pragma) {
                try (Statement statement = connection.createStatement();
                        ResultSet row = statement.executeQuery("PRAGMA " + pragma.name)) {
                    pragma.done.complete(row.next() ? row.getString(1) : null);
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

    /**
     * Writes one replay (the appended events, their keys' block, their publish record and the marks on the quarantined
     * entries) and commits it like a group of one request; a dry run or a refused replay is rolled back instead,
     * leaving the positions and publish-record ids as they were.
     */
    private void runReplay(ReplayTask task) throws SQLException {
        Connection connection = writerConnection.connection();
        long now = micros();
        Map<StreamState, AppendWriter.Pending> pending = new HashMap<>();
        PublishIndex.Mark indexBefore = publishIndex.mark();
        ReplayResult result;
        try {
            appendWriter.beginGroup();
            result = quarantineWriter.write(task.request, now, pending);
            appendWriter.insertEvents();
        } catch (SQLException | RuntimeException e) {
            publishIndex.restore(indexBefore);
            throw e;
        }
        if (task.request.dryRun() || !(result instanceof ReplayResult.Replayed replayed)) {
            connection.rollback();
            publishIndex.restore(indexBefore);
            task.result.complete(result);
            return;
        }
        int entries = (int) (replayed.count(ReplayResult.Status.ACCEPTED)
                + replayed.count(ReplayResult.Status.DUPLICATE));
        try {
            writeKeyBlocks(pending);
            listener.beforeCommit(1, entries);
            connection.commit();
        } catch (SQLException | RuntimeException e) {
            publishIndex.restore(indexBefore);
            throw e;
        }
        committed(1, entries, pending);
        task.result.complete(result);
        tellAppended(pending);
    }

    private long micros() {
        return EpochMicros.now(clock);
    }

    // ---------------------------------------------------------------- writer state and tasks

    private sealed interface Task permits AppendTask, ReplayTask, RegisterTask, TrimTask, PragmaTask, GroupTask,
            StopTask {
        /** Completes the caller's future with {@code error} if it is still waiting. */
        default void fail(RuntimeException error) {
            if (this instanceof AppendTask append) {
                append.result.completeExceptionally(error);
            } else if (this instanceof RegisterTask register) {
                register.done.completeExceptionally(error);
            } else if (this instanceof TrimTask trim) {
                trim.done.completeExceptionally(error);
            } else if (this instanceof PragmaTask pragma) {
                pragma.done.completeExceptionally(error);
            } else if (this instanceof GroupTask<?> group) {
                group.done.completeExceptionally(error);
            } else if (this instanceof ReplayTask replay) {
                replay.result.completeExceptionally(error);
            }
        }
    }

    /** Work on the writer connection, run on the writer thread in a transaction of its own. */
    @FunctionalInterface
    interface GroupWork<T> {
        T run(Connection connection, StreamState state, long nowMicros) throws SQLException;
    }

    private record GroupTask<T>(String stream, GroupWork<T> work, CompletableFuture<T> done) implements Task {
        GroupTask(String stream, GroupWork<T> work) {
            this(stream, work, new CompletableFuture<>());
        }

        void run(LogWriter log) throws SQLException {
            StreamState state = stream == null ? null : log.states.get(stream);
            if (state == null && stream != null) {
                throw new IllegalArgumentException("stream " + stream + " is not registered with the log");
            }
            Connection connection = log.writerConnection.connection();
            T result = work.run(connection, state, log.micros());
            connection.commit();
            done.complete(result);
        }
    }

    private record AppendTask(AppendRequest request, CompletableFuture<AppendResult> result) implements Task {
        AppendTask(AppendRequest request) {
            this(request, new CompletableFuture<>());
        }
    }

    private record ReplayTask(ReplayRequest request, CompletableFuture<ReplayResult> result) implements Task {
        ReplayTask(ReplayRequest request) {
            this(request, new CompletableFuture<>());
        }
    }

    private record RegisterTask(StreamDescriptor stream, CompletableFuture<Void> done) implements Task {
        RegisterTask(StreamDescriptor stream) {
            this(stream, new CompletableFuture<>());
        }
    }

    private record TrimTask(String stream, long throughOffset, CompletableFuture<Long> done) implements Task {
        TrimTask(String stream, long throughOffset) {
            this(stream, throughOffset, new CompletableFuture<>());
        }
    }

    private record PragmaTask(String name, CompletableFuture<String> done) implements Task {
        PragmaTask(String name) {
            this(name, new CompletableFuture<>());
        }
    }

    private record StopTask() implements Task {}
}
