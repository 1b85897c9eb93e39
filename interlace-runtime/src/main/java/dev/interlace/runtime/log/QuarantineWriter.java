package dev.interlace.runtime.log;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Map;

/**
 * The replay path of the writer: asks the {@link AppendDecision} which quarantined entries are appended (and with
 * what fates), writes their events through the {@link AppendWriter} and marks them replayed, all inside the writer's
 * transaction, so that the append and the marks commit together or not at all. Owned by the writer thread, like its
 * prepared statements on the writer's connection.
 */
final class QuarantineWriter {

    private final AppendWriter appendWriter;
    private PreparedStatement markReplayed;

    QuarantineWriter(AppendWriter appendWriter) {
        this.appendWriter = appendWriter;
    }

    /** Prepares the statements on {@code connection}: at start-up, and again whenever the writer replaces it. */
    void prepare(Connection connection) throws SQLException {
        markReplayed = connection.prepareStatement("UPDATE quarantine SET replayed_offset = ?, replayed_by = ?,"
                + " replayed_at = ?, replayed_partition = ? WHERE stream_id = ? AND seq = ? AND replayed_by IS NULL");
    }

    /**
     * Writes one replay inside the writer's transaction, as decided: the entries appended as one request and marked
     * replayed with their offsets (nothing for a dry run or a refusal). Moves the stream's positions in
     * {@code groupByStream}; the writer applies them once it commits (or drops them, for a dry run or a refusal,
     * after rolling back).
     */
    ReplayResult write(ReplayRequest request, long now, Map<StreamState, AppendDecision.Tentative> groupByStream)
            throws SQLException {
        // The quarantine is the stream's (partition 0's, for a stream of several partitions); the events go to the
        // target, the partition their keys hash to: one writer holds both, so the marks commit with the append.
        StreamState state = appendWriter.state(request.stream());
        StreamState target = request.elsewhere() ? appendWriter.state(request.target()) : state;
        StoredStream<SQLException> stored = appendWriter.stored(target);
        AppendDecision.Tentative group = new AppendDecision.Tentative(stored);
        AppendDecision.Replay replay = appendWriter.decision().replay(request, group,
                request.elsewhere() ? appendWriter.stored(state) : stored, stored, now);
        if (replay.append() == null || request.dryRun()) {
            return replay.result();
        }
        groupByStream.put(target, group);
        appendWriter.write(replay.append(), replay.appended(), target, group, now);
        for (int j = 0; j < replay.seqs().size(); j++) {
            long seq = replay.seqs().get(j);
            markReplayed.setLong(1, replay.appended().entries().get(j).offset());
            markReplayed.setString(2, request.requestId());
            markReplayed.setLong(3, now);
            markReplayed.setInt(4, dev.interlace.runtime.stream.StreamPartitions.partitionOf(request.target()));
            markReplayed.setInt(5, state.id);
            markReplayed.setLong(6, seq);
            if (markReplayed.executeUpdate() != 1) {
                throw new IllegalStateException("quarantine entry " + seq + " of " + state.name
                        + " changed during its replay");
            }
        }
        return replay.result();
    }
}
