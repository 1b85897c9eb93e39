package dev.interlace.runtime.log;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The SQLite log's {@link StoredStream}s, over the writer's own state and tables: the committed heads of a
 * {@link StreamState}, its {@link dev.interlace.runtime.dedup.DedupIndex}'s candidates confirmed by the key and arrival
 * stored with the event, and the replay marks of the quarantine. Owned by the writer thread, like its prepared
 * statements on the writer's connection.
 */
final class StoredStreams {

    private PreparedStatement selectKey;
    private PreparedStatement selectReplay;
    /** The dedup index's candidates for the key being looked up: reused, as only the writer thread looks keys up. */
    private long[] candidates = new long[4];
    private int candidateCount;
    private final java.util.function.LongConsumer collectCandidate = offset -> {
        if (candidateCount == candidates.length) {
            candidates = java.util.Arrays.copyOf(candidates, candidateCount * 2);
        }
        candidates[candidateCount++] = offset;
    };

    /** Prepares the statements on {@code connection}: at start-up, and again whenever the writer replaces it. */
    void prepare(Connection connection) throws SQLException {
        selectKey = connection.prepareStatement(
                "SELECT dedup_key, ingested_at FROM events WHERE stream_id = ? AND \"offset\" = ?");
        selectReplay = connection.prepareStatement(
                "SELECT replayed_offset, replayed_by FROM quarantine WHERE stream_id = ? AND seq = ?");
    }

    /** What the log has stored of {@code state}'s stream, as the append decision asks it. */
    StoredStream<SQLException> of(StreamState state) {
        return new StoredStream<>() {
            @Override
            public String name() {
                return state.name;
            }

            @Override
            public long head() {
                return state.head;
            }

            @Override
            public long quarantineHead() {
                return state.quarantineHead;
            }

            @Override
            public long retentionMicros() {
                return state.retentionMicros;
            }

            @Override
            public Long offsetOfKey(String key, long hash, long notBefore) throws SQLException {
                return find(state, key, hash, notBefore);
            }

            @Override
            public Quarantined quarantined(long seq) throws SQLException {
                selectReplay.setInt(1, state.id);
                selectReplay.setLong(2, seq);
                try (ResultSet row = selectReplay.executeQuery()) {
                    if (!row.next()) {
                        return null;
                    }
                    return row.getString(2) != null ? new Quarantined(true, row.getLong(1)) : Quarantined.WAITING;
                }
            }
        };
    }

    /** The committed event carrying {@code key} within the window: a candidate of the index confirmed by its row. */
    private Long find(StreamState state, String key, long hash, long notBefore) throws SQLException {
        if (state.dedup == null) {
            return null;
        }
        candidateCount = 0;
        state.dedup.candidates(hash, notBefore, collectCandidate);
        for (int i = 0; i < candidateCount; i++) {
            long offset = candidates[i];
            selectKey.setInt(1, state.id);
            selectKey.setLong(2, offset);
            try (ResultSet row = selectKey.executeQuery()) {
                // Strictly after the window's start: a key exactly as old as the retention no longer deduplicates.
                if (row.next() && key.equals(row.getString(1)) && row.getLong(2) > notBefore) {
                    return offset;
                }
            }
        }
        return null;
    }
}
