package dev.interlace.runtime.log;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The replay path of the writer: checks which quarantined entries are still unreplayed, appends their events through
 * the {@link AppendWriter} (deduplication, backpressure, publish record) and marks them replayed, all inside the
 * writer's transaction, so that the append and the marks commit together or not at all. Owned by the writer thread,
 * like its prepared statements on the writer's connection.
 */
final class QuarantineWriter {

    private final Map<String, StreamState> states;
    private final AppendWriter appendWriter;
    private PreparedStatement selectReplay;
    private PreparedStatement markReplayed;

    QuarantineWriter(Map<String, StreamState> states, AppendWriter appendWriter) {
        this.states = states;
        this.appendWriter = appendWriter;
    }

    /** Prepares the statements on {@code connection}: at start-up, and again whenever the writer replaces it. */
    void prepare(Connection connection) throws SQLException {
        selectReplay = connection.prepareStatement(
                "SELECT replayed_offset, replayed_by FROM quarantine WHERE stream_id = ? AND seq = ?");
        markReplayed = connection.prepareStatement("UPDATE quarantine SET replayed_offset = ?, replayed_by = ?,"
                + " replayed_at = ? WHERE stream_id = ? AND seq = ? AND replayed_by IS NULL");
    }

    /**
     * Writes one replay inside the writer's transaction: entries already replayed (before, or earlier in this
     * request) and unknown ones are only reported; the others are appended as one request and marked replayed with
     * their offsets. Moves the stream's {@code pending} positions; the writer applies them once it commits (or drops
     * them, for a dry run or a refusal, after rolling back).
     */
    ReplayResult write(ReplayRequest request, long now, Map<StreamState, AppendWriter.Pending> pendingByStream)
            throws SQLException {
        StreamState state = states.get(request.stream());
        if (state == null) {
            throw new IllegalArgumentException("stream " + request.stream() + " is not registered with the log");
        }
        ReplayResult.EntryResult[] results = new ReplayResult.EntryResult[request.entries().size()];
        List<ReplayRequest.Entry> toAppend = new ArrayList<>();
        List<Integer> positions = new ArrayList<>();
        Set<Long> seen = new HashSet<>();
        for (int i = 0; i < results.length; i++) {
            ReplayRequest.Entry entry = request.entries().get(i);
            selectReplay.setInt(1, state.id);
            selectReplay.setLong(2, entry.seq());
            try (ResultSet row = selectReplay.executeQuery()) {
                if (!row.next()) {
                    results[i] = new ReplayResult.EntryResult(entry.seq(), ReplayResult.Status.UNKNOWN, 0);
                } else if (row.getString(2) != null) {
                    results[i] = new ReplayResult.EntryResult(entry.seq(), ReplayResult.Status.ALREADY_REPLAYED,
                            row.getLong(1));
                } else if (!seen.add(entry.seq())) {
                    results[i] = null; // the same entry twice in one request: answered like the first, below
                } else {
                    toAppend.add(entry);
                    positions.add(i);
                }
            }
        }
        if (!toAppend.isEmpty()) {
            AppendResult appended = appendWriter.write(request.asAppend(toAppend), now, pendingByStream);
            if (appended instanceof AppendResult.Backpressure refused) {
                return new ReplayResult.Backpressure(refused.pending(), refused.newEntries(), refused.maxPending());
            }
            List<AppendResult.EntryResult> fates = ((AppendResult.Committed) appended).entries();
            for (int j = 0; j < fates.size(); j++) {
                AppendResult.EntryResult fate = fates.get(j);
                long seq = toAppend.get(j).seq();
                markReplayed.setLong(1, fate.offset());
                markReplayed.setString(2, request.requestId());
                markReplayed.setLong(3, now);
                markReplayed.setInt(4, state.id);
                markReplayed.setLong(5, seq);
                if (markReplayed.executeUpdate() != 1) {
                    throw new IllegalStateException("quarantine entry " + seq + " of " + state.name
                            + " changed during its replay");
                }
                results[positions.get(j)] = new ReplayResult.EntryResult(seq,
                        fate.status() == AppendResult.Status.ACCEPTED ? ReplayResult.Status.ACCEPTED
                                : ReplayResult.Status.DUPLICATE, fate.offset());
            }
        }
        for (int i = 0; i < results.length; i++) {
            if (results[i] == null) { // a repeated seq: replayed by its first occurrence in this request
                long seq = request.entries().get(i).seq();
                long offset = 0;
                for (ReplayResult.EntryResult result : results) {
                    if (result != null && result.seq() == seq) {
                        offset = result.offset();
                        break;
                    }
                }
                results[i] = new ReplayResult.EntryResult(seq, ReplayResult.Status.ALREADY_REPLAYED, offset);
            }
        }
        return new ReplayResult.Replayed(List.of(results), request.dryRun());
    }
}
