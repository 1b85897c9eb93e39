package dev.interlace.runtime.log;

import dev.interlace.runtime.dedup.KeyHash;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.interlace.runtime.stream.FieldError;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The append path of a group commit: deduplication, backpressure and the rows of one request (events, quarantined
 * entries, the publish record). Owned by the writer thread, like its prepared statements on the writer's connection.
 */
final class AppendWriter {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** The writer's streams, by name (the writer's own map). */
    private final Map<String, StreamState> states;
    private final LogSettings settings;
    private final Watermarks watermarks;
    private final PublishIndex publishIndex;
    private final EventInserts eventInserts = new EventInserts();
    private PreparedStatement insertQuarantined;
    private PreparedStatement insertPublish;
    private PreparedStatement selectKey;
    /** The dedup index's candidates for the key being looked up: reused, as only the writer thread looks keys up. */
    private long[] candidates = new long[4];
    private int candidateCount;
    private final java.util.function.LongConsumer collectCandidate = offset -> {
        if (candidateCount == candidates.length) {
            candidates = java.util.Arrays.copyOf(candidates, candidateCount * 2);
        }
        candidates[candidateCount++] = offset;
    };

    AppendWriter(Map<String, StreamState> states, LogSettings settings, Watermarks watermarks,
            PublishIndex publishIndex) {
        this.states = states;
        this.settings = settings;
        this.watermarks = watermarks;
        this.publishIndex = publishIndex;
    }

    /** Prepares the statements on {@code connection}: at start-up, and again whenever the writer replaces it. */
    void prepare(Connection connection) throws SQLException {
        eventInserts.prepare(connection);
        insertQuarantined = connection.prepareStatement("INSERT INTO quarantine(stream_id, seq, request_id,"
                + " ingested_at, schema_version, payload, errors) VALUES (?, ?, ?, ?, ?, ?, ?)");
        insertPublish = connection.prepareStatement("INSERT INTO publishes(request_id, stream_id, accepted,"
                + " deduplicated, quarantined, first_offset, last_offset, received_at, committed_at,"
                + " duplicate_offsets, first_seq, last_seq, id, key_id, key_name, trace_id)"
                + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
        selectKey = connection.prepareStatement(
                "SELECT dedup_key, ingested_at FROM events WHERE stream_id = ? AND \"offset\" = ?");
    }

    /** Starts a group commit's writes (drops what a failed group may have left). */
    void beginGroup() {
        eventInserts.begin();
    }

    /** Inserts the events accepted since {@link #beginGroup()}: once every request of the group is written. */
    void insertEvents() throws SQLException {
        eventInserts.insert();
    }

    /**
     * Writes one request of a group inside the group's transaction: deduplicates its keys (against the window, the
     * request and the group), checks backpressure, queues its events for {@link #insertEvents()}, inserts its
     * quarantined entries (and a publish record without events), and moves the stream's {@code pending} positions;
     * the writer applies them once the group commits.
     */
    AppendResult write(AppendRequest request, long now, Map<StreamState, Pending> pendingByStream)
            throws SQLException {
        StreamState state = states.get(request.stream());
        if (state == null) {
            throw new IllegalArgumentException("stream " + request.stream() + " is not registered with the log");
        }
        Pending pending = pendingByStream.computeIfAbsent(state, Pending::new);
        long notBefore = state.retentionMicros > 0 ? now - state.retentionMicros : Long.MIN_VALUE;

        List<AppendResult.EntryResult> fates = new ArrayList<>(request.size());
        Map<String, NewKey> requestKeys = new HashMap<>();
        long nextOffset = pending.head + 1;
        long nextSeq = pending.quarantineHead + 1;
        for (AppendRequest.Entry entry : request.entries()) {
            if (entry instanceof AppendRequest.Event event) {
                String key = event.idempotencyKey();
                long hash = key == null ? 0 : KeyHash.of(key);
                Long original = key == null ? null : findKey(state, pending, requestKeys, key, hash, notBefore);
                if (original != null) {
                    fates.add(new AppendResult.EntryResult(AppendResult.Status.DUPLICATE, original));
                } else {
                    long offset = nextOffset++;
                    if (key != null) {
                        requestKeys.put(key, new NewKey(hash, offset));
                    }
                    fates.add(new AppendResult.EntryResult(AppendResult.Status.ACCEPTED, offset));
                }
            } else {
                fates.add(new AppendResult.EntryResult(AppendResult.Status.QUARANTINED, nextSeq++));
            }
        }
        long newEntries = (nextOffset - 1 - pending.head) + (nextSeq - 1 - pending.quarantineHead);
        long backlog = (pending.head - watermarks.events(state.name))
                + (pending.quarantineHead - watermarks.quarantine(state.name));
        if (newEntries > 0 && backlog + newEntries > settings.maxPending()) {
            return new AppendResult.Backpressure(backlog, newEntries, settings.maxPending());
        }

        long firstOffset = 0;
        long lastOffset = 0;
        long firstSeq = 0;
        long lastSeq = 0;
        java.util.TreeSet<Long> duplicateOffsets = null;
        for (AppendResult.EntryResult fate : fates) {
            if (fate.status() == AppendResult.Status.ACCEPTED) {
                firstOffset = firstOffset == 0 ? fate.offset() : firstOffset;
                lastOffset = fate.offset();
            } else if (fate.status() == AppendResult.Status.QUARANTINED) {
                firstSeq = firstSeq == 0 ? fate.offset() : firstSeq;
                lastSeq = fate.offset();
            } else if (settings.publishRecords()) {
                if (duplicateOffsets == null) {
                    duplicateOffsets = new java.util.TreeSet<>();
                }
                duplicateOffsets.add(fate.offset());
            }
        }
        AppendResult.Committed committed = new AppendResult.Committed(fates, now);
        // The publish record goes on the request's last event row: same page as the events, no extra page per commit.
        String publish = settings.publishRecords() && lastOffset > 0
                ? publishIndex.carry(new PublishIndex.Carried(publishIndex.nextId(), request.requestId(), state.id,
                        committed.count(AppendResult.Status.ACCEPTED), committed.count(AppendResult.Status.DUPLICATE),
                        committed.count(AppendResult.Status.QUARANTINED), firstOffset, lastOffset,
                        request.receivedAtMicros(), now, firstSeq, lastSeq, joined(duplicateOffsets), request.keyId(),
                        request.keyName(), request.traceId())).text()
                : null;
        for (int i = 0; i < fates.size(); i++) {
            AppendResult.EntryResult fate = fates.get(i);
            AppendRequest.Entry entry = request.entries().get(i);
            if (fate.status() == AppendResult.Status.ACCEPTED) {
                AppendRequest.Event event = (AppendRequest.Event) entry;
                String key = event.idempotencyKey();
                eventInserts.add(state.id, fate.offset(), request.requestId(), request.receivedAtMicros(),
                        request.schemaVersion(), key, key == null ? 0 : requestKeys.get(key).hash, event.payload(),
                        fate.offset() == lastOffset ? publish : null);
            } else if (fate.status() == AppendResult.Status.QUARANTINED) {
                AppendRequest.Quarantined quarantined = (AppendRequest.Quarantined) entry;
                insertQuarantined.setInt(1, state.id);
                insertQuarantined.setLong(2, fate.offset());
                insertQuarantined.setString(3, request.requestId());
                insertQuarantined.setLong(4, request.receivedAtMicros());
                insertQuarantined.setString(5, request.schemaVersion());
                insertQuarantined.setBytes(6, quarantined.payload());
                insertQuarantined.setString(7, errorsJson(quarantined.errors()));
                insertQuarantined.executeUpdate();
            }
        }
        if (settings.publishRecords() && lastOffset == 0) {
            // No accepted event to carry it (only duplicates or quarantined events): a row of its own.
            writePublish(request, state, committed, now, duplicateOffsets, firstSeq, lastSeq);
        }

        pending.head = nextOffset - 1;
        pending.quarantineHead = nextSeq - 1;
        pending.newKeys.putAll(requestKeys);
        if (!requestKeys.isEmpty()) {
            pending.newKeysReceivedAtMicros = Math.max(pending.newKeysReceivedAtMicros, request.receivedAtMicros());
        }
        return committed;
    }

    private void writePublish(AppendRequest request, StreamState state, AppendResult.Committed committed, long now,
            java.util.SortedSet<Long> duplicateOffsets, long firstSeq, long lastSeq) throws SQLException {
        insertPublish.setLong(13, publishIndex.nextId());
        insertPublish.setString(1, request.requestId());
        insertPublish.setInt(2, state.id);
        insertPublish.setLong(3, committed.count(AppendResult.Status.ACCEPTED));
        insertPublish.setLong(4, committed.count(AppendResult.Status.DUPLICATE));
        insertPublish.setLong(5, committed.count(AppendResult.Status.QUARANTINED));
        insertPublish.setNull(6, Types.BIGINT); // no accepted event (those records ride on their last event)
        insertPublish.setNull(7, Types.BIGINT);
        insertPublish.setLong(8, request.receivedAtMicros());
        insertPublish.setLong(9, now);
        insertPublish.setString(10, joined(duplicateOffsets)); // null when there were none
        if (firstSeq == 0) {
            insertPublish.setNull(11, Types.BIGINT);
            insertPublish.setNull(12, Types.BIGINT);
        } else {
            insertPublish.setLong(11, firstSeq);
            insertPublish.setLong(12, lastSeq);
        }
        insertPublish.setString(14, request.keyId());
        insertPublish.setString(15, request.keyName());
        insertPublish.setString(16, request.traceId());
        insertPublish.executeUpdate();
    }

    /** The offsets comma separated, or null for none. */
    private static String joined(java.util.SortedSet<Long> offsets) {
        if (offsets == null) {
            return null;
        }
        StringBuilder text = new StringBuilder();
        for (long offset : offsets) {
            text.append(text.length() == 0 ? "" : ",").append(offset);
        }
        return text.toString();
    }

    /**
     * The offset of the event that first carried {@code key} within the window: earlier in this request, earlier in
     * this group, or already committed (a candidate of the index confirmed by the key and time stored with it).
     */
    private Long findKey(StreamState state, Pending pending, Map<String, NewKey> requestKeys, String key, long hash,
            long notBefore) throws SQLException {
        NewKey inRequest = requestKeys.get(key);
        if (inRequest != null) {
            return inRequest.offset;
        }
        NewKey inGroup = pending.newKeys.get(key);
        if (inGroup != null) {
            return inGroup.offset;
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

    private static String errorsJson(List<FieldError> errors) {
        ArrayNode array = JSON.createArrayNode();
        for (FieldError error : errors) {
            array.addObject().put("field", error.field()).put("reason", error.reason());
        }
        return array.toString();
    }

    /** A stream's positions and new keys within a group that is not committed yet. */
    static final class Pending {
        long head;
        long quarantineHead;
        final Map<String, NewKey> newKeys = new HashMap<>();
        /** The newest arrival time among the requests that brought {@link #newKeys}. */
        long newKeysReceivedAtMicros;

        Pending(StreamState state) {
            this.head = state.head;
            this.quarantineHead = state.quarantineHead;
        }
    }

    record NewKey(long hash, long offset) {}
}
