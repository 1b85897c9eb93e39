package dev.interlace.runtime.log;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.interlace.runtime.ops.EpochMicros;
import dev.interlace.runtime.stream.StreamDescriptor;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The log's writer: one thread, {@code interlace-log-writer}, owning the write connection, its statements and the
 * streams' positions. Appends queue up in front of it; it takes everything queued (up to
 * {@link LogSettings#maxGroupRequests()}), writes all of it in one transaction and commits once, so concurrent
 * requests share one fsync (group commit); each request's future completes only after that commit. Registration,
 * trims, consumer-group work and publish-record retention go through the same queue. After a failed write the
 * connection is replaced and the positions reread; while writes fail, the idle writer probes every second.
 */
final class LogWriter {

    /** Log lines keep the name of the log they come from. */
    private static final Logger LOG = Logger.getLogger(SqliteStreamLog.class.getName());
    private static final ObjectMapper JSON = new ObjectMapper();

    private final LogSettings settings;
    private final Watermarks watermarks;
    private final CommitListener listener;
    private final Clock clock;

    private final BlockingQueue<Task> queue = new LinkedBlockingQueue<>();
    private final LogConnections connections;
    private final Thread writer;
    private volatile boolean closed;
    private final Map<String, StreamHead> heads;
    private final Map<String, AtomicReference<CompletableFuture<Void>>> advances;
    private final List<AppendListener> appendListeners;
    /** Why the last write failed; null while writes succeed. */
    private volatile String failure;

    // Owned by the writer thread. The connection and its statements are replaced after a failed write: SQLite may
    // have ended the transaction itself (SQLITE_FULL, SQLITE_IOERR) and the driver closes a statement that failed.
    private Connection connection;
    /** A write failed: the connection is replaced before the next write. */
    private boolean writerBroken;
    private boolean stateUncertain;
    private final Map<String, StreamState> states = new HashMap<>();
    private final StreamStates streams;
    private final PublishIndex publishIndex = new PublishIndex(states);
    private final AppendWriter appendWriter;
    private final QuarantineWriter quarantineWriter;
    /** While writes fail, how often the idle writer checks whether the log can write again. */
    private static final long PROBE_MILLIS = 1_000;
    /** What a probe writes (and removes again): room for a typical group of events. */
    private static final int PROBE_BYTES = 64 * 1024;
    /** SQLite's primary result code for "database or disk is full". */
    private static final int SQLITE_FULL = 13;

    /**
     * Opens the write connection, creates or migrates the schema and loads the streams' positions and the publish
     * index; {@link #start} then starts the writer thread.
     */
    LogWriter(LogConnections connections, LogSettings settings, Watermarks watermarks, CommitListener listener,
            Clock clock, Map<String, StreamHead> heads,
            Map<String, AtomicReference<CompletableFuture<Void>>> advances, List<AppendListener> appendListeners)
            throws SQLException {
        this.connections = connections;
        this.settings = settings;
        this.watermarks = watermarks;
        this.listener = listener;
        this.clock = clock;
        this.heads = heads;
        this.advances = advances;
        this.appendListeners = appendListeners;
        this.streams = new StreamStates(states, heads, advances);
        this.appendWriter = new AppendWriter(states, settings, watermarks, publishIndex);
        this.quarantineWriter = new QuarantineWriter(states, appendWriter);
        connection = connections.open();
        try (Statement statement = connection.createStatement()) {
            configureWriter(statement);
            LogSchema.create(statement);
        }
        connection.setAutoCommit(false);
        appendWriter.prepare(connection);
        quarantineWriter.prepare(connection);
        streams.load(connection);
        publishIndex.load(connection);
        connection.commit();
        writer = new Thread(this::runWriter, "interlace-log-writer");
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
        return failure;
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
        for (Task task : queue) {
            if (task instanceof AppendTask append) {
                append.result.completeExceptionally(new LogUnavailableException("the stream log is closed"));
            }
        }
        beforeFinalCheckpoint.run();
        try (Statement statement = connection.createStatement()) {
            connection.setAutoCommit(true);
            statement.execute("PRAGMA wal_checkpoint(TRUNCATE)");
        } catch (SQLException e) {
            LOG.log(Level.FINE, "final checkpoint failed; the WAL is replayed on the next start", e);
        }
        LogConnections.closeQuietly(connection);
    }

    private void configureWriter(Statement statement) throws SQLException {
        statement.execute("PRAGMA wal_autocheckpoint=0");
        statement.execute("PRAGMA journal_size_limit=" + settings.walCapBytes());
    }

    /**
     * Replaces the writer connection after a failed write. SQLite ends the transaction on its own after some errors
     * (a full disk, an I/O error); the driver's rollback then fails before it begins the next transaction, leaving
     * the connection committing every statement on its own, and the driver closes the statement that failed. A new
     * connection starts clean; closing the old one discards whatever it still held uncommitted.
     */
    private void reopenWriter() throws SQLException {
        LogConnections.closeQuietly(connection);
        Connection fresh = connections.open();
        try (Statement statement = fresh.createStatement()) {
            configureWriter(statement);
        } catch (SQLException e) {
            LogConnections.closeQuietly(fresh);
            throw e;
        }
        fresh.setAutoCommit(false);
        connection = fresh;
        appendWriter.prepare(connection);
        quarantineWriter.prepare(connection);
        writerBroken = false;
        stateUncertain = true;
    }

    /**
     * Makes the writer ready after a failure: a fresh connection, positions and keys reread from the database.
     *
     * @return null when ready, or why the log cannot write
     */
    private LogUnavailableException readyToWrite() {
        try {
            if (writerBroken) {
                reopenWriter();
            }
            if (stateUncertain) {
                reloadState();
            }
            return null;
        } catch (SQLException e) {
            failed(e);
            return new LogUnavailableException(failure, e);
        }
    }

    /**
     * Records a failed write: the transaction is discarded, the connection replaced before the next write and the
     * positions reread (a failed COMMIT may still have reached the disk); the log reports itself unavailable until a
     * write succeeds again.
     */
    private void failed(Exception e) {
        rollback();
        writerBroken = true;
        stateUncertain = true;
        failure = diskFull(e)
                ? "the disk holding the log is full (" + e.getMessage() + "); publishes are refused until space is"
                        + " freed, and the log retries by itself every second"
                : "the last write failed: " + e.getMessage() + "; the log retries by itself every second";
    }

    private static boolean diskFull(Throwable e) {
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof SQLException sql && (sql.getErrorCode() & 0xFF) == SQLITE_FULL) {
                return true;
            }
        }
        return false;
    }

    /**
     * While writes fail and nothing is queued, checks whether the log can write again by committing (and then
     * removing) a row of {@link #PROBE_BYTES}, so that readiness recovers when space returns, without traffic.
     */
    private void probe() {
        if (readyToWrite() != null) {
            return;
        }
        try {
            try (PreparedStatement insert = connection.prepareStatement(
                    "INSERT OR REPLACE INTO write_probe(id, filler) VALUES (1, zeroblob(?))")) {
                insert.setInt(1, PROBE_BYTES);
                insert.executeUpdate();
            }
            connection.commit();
            try (Statement delete = connection.createStatement()) {
                delete.executeUpdate("DELETE FROM write_probe");
            }
            connection.commit();
            failure = null;
            LOG.info("the stream log writes again");
        } catch (SQLException e) {
            // The probe touches no positions or keys: no need to reread them (costly with millions of keys).
            boolean uncertain = stateUncertain;
            failed(e);
            stateUncertain = uncertain;
        }
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

    private void runWriter() {
        List<Task> group = new ArrayList<>();
        while (true) {
            Task first;
            try {
                first = failure == null ? queue.take() : queue.poll(PROBE_MILLIS, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            if (first == null) {
                probe();
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
                // Never let the writer die: every queued caller would wait forever. Fail this group's callers and
                // start the next write on a fresh connection with the state reread.
                rollback();
                writerBroken = true;
                stateUncertain = true;
                failure = "the stream log writer failed: " + e;
                LOG.log(Level.SEVERE, "stream log writer failed; answering the group 503", e);
                LogUnavailableException unavailable = new LogUnavailableException(failure, e);
                for (Task task : group) {
                    task.fail(unavailable);
                }
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
        LogUnavailableException notReady = readyToWrite();
        if (notReady != null) {
            group.forEach(task -> task.result.completeExceptionally(notReady));
            return;
        }
        long now = micros();
        Map<StreamState, AppendWriter.Pending> pending = new HashMap<>();
        List<AppendResult> results = new ArrayList<>(group.size());
        int entries = 0;
        PublishIndex.Mark indexBefore = publishIndex.mark();
        try {
            for (AppendTask task : group) {
                AppendResult result = appendWriter.write(task.request, now, pending);
                results.add(result);
                entries += task.request.size();
            }
            if (publishIndex.due()) {
                publishIndex.index(connection);
            }
            listener.beforeCommit(group.size(), entries);
            connection.commit();
        } catch (SQLException | RuntimeException e) {
            publishIndex.restore(indexBefore);
            failed(e);
            LOG.log(Level.WARNING, "stream log write failed; " + group.size() + " requests answered 503", e);
            LogUnavailableException unavailable = new LogUnavailableException(failure, e);
            for (AppendTask task : group) {
                task.result.completeExceptionally(unavailable);
            }
            return;
        }
        failure = null;
        try {
            listener.afterCommit(group.size(), entries);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "a commit listener failed after a durable commit; ignored", e);
        }
        for (Map.Entry<StreamState, AppendWriter.Pending> entry : pending.entrySet()) {
            StreamState state = entry.getKey();
            AppendWriter.Pending tentative = entry.getValue();
            state.head = tentative.head;
            state.quarantineHead = tentative.quarantineHead;
            for (AppendWriter.NewKey key : tentative.newKeys.values()) {
                state.dedup.add(key.hash(), key.offset(), key.acceptedAtMicros());
            }
            streams.publishHead(state);
        }
        for (int i = 0; i < group.size(); i++) {
            group.get(i).result.complete(results.get(i));
        }
        for (StreamState state : pending.keySet()) {
            for (AppendListener appendListener : appendListeners) {
                appendListener.appended(state.name);
            }
        }
    }

    private void runMaintenance(Task task) {
        if (!(task instanceof PragmaTask)) {
            LogUnavailableException notReady = readyToWrite();
            if (notReady != null) {
                task.fail(notReady);
                return;
            }
        }
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
            failed(e);
            task.fail(new LogUnavailableException("stream log maintenance failed: " + e.getMessage(), e));
        } catch (RuntimeException e) {
            rollback();
            task.fail(new LogUnavailableException("stream log maintenance failed: " + e.getMessage(), e));
        }
    }

    /**
     * Writes one replay (the appended events, their publish record and the marks on the quarantined entries) and
     * commits it like a group of one request; a dry run or a refused replay is rolled back instead, leaving the
     * positions and publish-record ids as they were.
     */
    private void runReplay(ReplayTask task) throws SQLException {
        long now = micros();
        Map<StreamState, AppendWriter.Pending> pending = new HashMap<>();
        PublishIndex.Mark indexBefore = publishIndex.mark();
        ReplayResult result;
        try {
            result = quarantineWriter.write(task.request, now, pending);
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
            listener.beforeCommit(1, entries);
            connection.commit();
        } catch (SQLException | RuntimeException e) {
            publishIndex.restore(indexBefore);
            throw e;
        }
        failure = null;
        try {
            listener.afterCommit(1, entries);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "a commit listener failed after a durable commit; ignored", e);
        }
        for (Map.Entry<StreamState, AppendWriter.Pending> entry : pending.entrySet()) {
            StreamState state = entry.getKey();
            state.head = entry.getValue().head;
            state.quarantineHead = entry.getValue().quarantineHead;
            for (AppendWriter.NewKey key : entry.getValue().newKeys.values()) {
                state.dedup.add(key.hash(), key.offset(), key.acceptedAtMicros());
            }
            streams.publishHead(state);
        }
        task.result.complete(result);
        for (StreamState state : pending.keySet()) {
            for (AppendListener appendListener : appendListeners) {
                appendListener.appended(state.name);
            }
        }
    }

    /** Rereads the streams' positions and keys and the publish index, after a commit whose outcome is unknown. */
    private void reloadState() throws SQLException {
        streams.reload(connection, micros());
        publishIndex.load(connection);
        connection.commit();
        stateUncertain = false;
    }

    private void rollback() {
        try {
            connection.rollback();
        } catch (SQLException e) {
            // Expected after SQLITE_FULL or an I/O error (SQLite has rolled back already); the connection is replaced.
            LOG.log(Level.FINE, "rollback of the stream log failed", e);
        }
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
            T result = work.run(log.connection, state, log.micros());
            log.connection.commit();
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
