package dev.interlace.runtime.log;

import dev.interlace.runtime.health.ComponentHealth;
import dev.interlace.runtime.ops.EpochMicros;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The {@link LogWriter}'s commits of appends: a group of requests (or one replay) written in one transaction and
 * committed once; then the streams' tentative positions and keys become their own, the callers are answered and
 * whoever waits for new entries is woken. On the writer thread.
 */
final class GroupCommit {

    /** Log lines keep the name of the log they come from. */
    private static final Logger LOG = Logger.getLogger(SqliteStreamLog.class.getName());
    /** SQLite's result code for a full disk (the low byte of the extended codes sqlite-jdbc reports). */
    private static final int SQLITE_FULL = 13;

    private final WriterConnection writerConnection;
    private final AppendWriter appendWriter;
    private final QuarantineWriter quarantineWriter;
    private final KeyBlocks keyBlocks;
    private final PublishIndex publishIndex;
    private final StreamStates streams;
    private final CommitListener listener;
    private final List<AppendListener> appendListeners;
    private final Acknowledger acknowledger;
    private final ComponentHealth components;
    private final Clock clock;

    GroupCommit(WriterConnection writerConnection, AppendWriter appendWriter, QuarantineWriter quarantineWriter,
            KeyBlocks keyBlocks, PublishIndex publishIndex, StreamStates streams, CommitListener listener,
            List<AppendListener> appendListeners, Acknowledger acknowledger, ComponentHealth components,
            Clock clock) {
        this.writerConnection = writerConnection;
        this.appendWriter = appendWriter;
        this.quarantineWriter = quarantineWriter;
        this.keyBlocks = keyBlocks;
        this.publishIndex = publishIndex;
        this.streams = streams;
        this.listener = listener;
        this.appendListeners = appendListeners;
        this.acknowledger = acknowledger;
        this.components = components;
        this.clock = clock;
    }

    /** Writes every request of the group in one transaction, commits once, then answers them all. */
    void commitGroup(List<WriterTask.Append> group) {
        LogUnavailableException notReady = writerConnection.ready();
        if (notReady != null) {
            acknowledger.failLater(group, notReady);
            return;
        }
        Connection connection = writerConnection.connection();
        long now = micros();
        Map<StreamState, AppendDecision.Tentative> pending = new HashMap<>();
        List<AppendResult> results = new ArrayList<>(group.size());
        int entries = 0;
        PublishIndex.Mark indexBefore = publishIndex.mark();
        boolean committing = false;
        try {
            appendWriter.beginGroup();
            for (WriterTask.Append task : group) {
                AppendResult result = appendWriter.write(task.request(), now, pending);
                results.add(result);
                entries += task.request().size();
            }
            appendWriter.insertEvents();
            writeKeyBlocks(pending);
            if (publishIndex.due()) {
                publishIndex.index(connection);
            }
            listener.beforeCommit(group.size(), entries);
            committing = true;
            connection.commit();
        } catch (SQLException | RuntimeException e) {
            publishIndex.restore(indexBefore);
            writerConnection.failed(e);
            LOG.log(Level.WARNING, "stream log write failed; " + group.size() + " requests answered 503", e);
            // A commit that failed after writing its frames (an fsync error) may be found committed in the WAL when
            // the log is opened again; a full disk fails before the commit frame is written.
            acknowledger.failLater(group, committing && !diskFull(e)
                    ? LogUnavailableException.outcomeUnknown(writerConnection.failure(), e)
                    : new LogUnavailableException(writerConnection.failure(), e));
            return;
        }
        committed(group.size(), entries, pending);
        acknowledger.acknowledge(group, results);
        tellAppended(pending);
    }

    private static boolean diskFull(Exception e) {
        return e instanceof SQLException sql && (sql.getErrorCode() & 0xff) == SQLITE_FULL;
    }

    /** Writes the block of keys each stream gained in the current transaction (read at start-up instead of events). */
    private void writeKeyBlocks(Map<StreamState, AppendDecision.Tentative> pending) throws SQLException {
        for (Map.Entry<StreamState, AppendDecision.Tentative> stream : pending.entrySet()) {
            keyBlocks.write(stream.getKey(), stream.getValue().newKeys(),
                    stream.getValue().newKeysReceivedAtMicros());
        }
    }

    /**
     * After a durable commit of {@code requests} requests: tells the commit listeners, then makes the tentative
     * positions and keys of {@code pending} the streams' own (before anyone is answered).
     */
    private void committed(int requests, int entries, Map<StreamState, AppendDecision.Tentative> pending) {
        writerConnection.succeeded();
        components.recovered(ComponentHealth.Component.LOG_WRITER, null);
        try {
            listener.afterCommit(requests, entries);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "a commit listener failed after a durable commit; ignored", e);
        }
        for (Map.Entry<StreamState, AppendDecision.Tentative> entry : pending.entrySet()) {
            StreamState state = entry.getKey();
            AppendDecision.Tentative tentative = entry.getValue();
            state.head = tentative.head();
            state.quarantineHead = tentative.quarantineHead();
            if (state.dedup != null) {
                for (AppendDecision.NewKey key : tentative.newKeys()) {
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
    private void tellAppended(Map<StreamState, AppendDecision.Tentative> pending) {
        for (StreamState state : pending.keySet()) {
            for (AppendListener appendListener : appendListeners) {
                appendListener.appended(state.name);
            }
        }
    }

    /**
     * Writes one replay (the appended events, their keys' block, their publish record and the marks on the quarantined
     * entries) and commits it like a group of one request; a dry run or a refused replay is rolled back instead,
     * leaving the positions and publish-record ids as they were.
     */
    void runReplay(WriterTask.Replay task) throws SQLException {
        Connection connection = writerConnection.connection();
        long now = micros();
        Map<StreamState, AppendDecision.Tentative> pending = new HashMap<>();
        PublishIndex.Mark indexBefore = publishIndex.mark();
        ReplayResult result;
        try {
            appendWriter.beginGroup();
            result = quarantineWriter.write(task.request(), now, pending);
            appendWriter.insertEvents();
        } catch (SQLException | RuntimeException e) {
            publishIndex.restore(indexBefore);
            throw e;
        }
        if (task.request().dryRun() || !(result instanceof ReplayResult.Replayed replayed)) {
            connection.rollback();
            publishIndex.restore(indexBefore);
            task.result().complete(result);
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
        task.result().complete(result);
        tellAppended(pending);
    }

    private long micros() {
        return EpochMicros.now(clock);
    }
}
