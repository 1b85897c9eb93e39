package dev.interlace.runtime.log;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.interlace.runtime.stream.FieldError;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.util.List;
import java.util.Map;

/**
 * The append path of a group commit: asks the {@link AppendDecision} what a request does (deduplication, offsets,
 * backpressure), then writes its rows (events, quarantined entries, the publish record). Owned by the writer thread,
 * like its prepared statements on the writer's connection.
 */
final class AppendWriter {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** The writer's streams, by name (the writer's own map). */
    private final Map<String, StreamState> states;
    private final LogSettings settings;
    private final AppendDecision decision;
    private final StoredStreams stored;
    private final PublishIndex publishIndex;
    private final EventInserts eventInserts = new EventInserts();
    private PreparedStatement insertQuarantined;
    private PreparedStatement insertPublish;

    AppendWriter(Map<String, StreamState> states, LogSettings settings, AppendDecision decision, StoredStreams stored,
            PublishIndex publishIndex) {
        this.states = states;
        this.settings = settings;
        this.decision = decision;
        this.stored = stored;
        this.publishIndex = publishIndex;
    }

    /** Prepares the statements on {@code connection}: at start-up, and again whenever the writer replaces it. */
    void prepare(Connection connection) throws SQLException {
        eventInserts.prepare(connection);
        stored.prepare(connection);
        insertQuarantined = connection.prepareStatement("INSERT INTO quarantine(stream_id, seq, request_id,"
                + " ingested_at, schema_version, payload, errors) VALUES (?, ?, ?, ?, ?, ?, ?)");
        insertPublish = connection.prepareStatement("INSERT INTO publishes(request_id, stream_id, accepted,"
                + " deduplicated, quarantined, first_offset, last_offset, received_at, committed_at,"
                + " duplicate_offsets, first_seq, last_seq, id, key_id, key_name, trace_id)"
                + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    }

    /** Starts a group commit's writes (drops what a failed group may have left). */
    void beginGroup() {
        eventInserts.begin();
    }

    /** Inserts the events accepted since {@link #beginGroup()}: once every request of the group is written. */
    void insertEvents() throws SQLException {
        eventInserts.insert();
    }

    /** The writer's state of {@code stream}. */
    StreamState state(String stream) {
        StreamState state = states.get(stream);
        if (state == null) {
            throw new IllegalArgumentException("stream " + stream + " is not registered with the log");
        }
        return state;
    }

    /** What the log has stored of {@code state}'s stream, for the decision. */
    StoredStream<SQLException> stored(StreamState state) {
        return stored.of(state);
    }

    /** The decision the writer asks. */
    AppendDecision decision() {
        return decision;
    }

    /**
     * Writes one request of a group inside the group's transaction: decides it against the stream as the group has
     * left it ({@code groupByStream}, moved by the decision; the writer applies it once the group commits) and, unless
     * refused, writes it ({@link #write(AppendRequest, AppendResult.Committed, StreamState, AppendDecision.Tentative,
     * long)}).
     */
    AppendResult write(AppendRequest request, long now, Map<StreamState, AppendDecision.Tentative> groupByStream)
            throws SQLException {
        StreamState state = state(request.stream());
        StoredStream<SQLException> stream = stored.of(state);
        AppendDecision.Tentative group = groupByStream.computeIfAbsent(state,
                s -> new AppendDecision.Tentative(stream));
        AppendResult result = decision.decide(request, group, stream, now);
        if (result instanceof AppendResult.Committed committed) {
            write(request, committed, state, group, now);
        }
        return result;
    }

    /**
     * Writes a decided request inside the group's transaction: queues its events for {@link #insertEvents()} (the
     * publish record riding on the last), inserts its quarantined entries, and a publish record of its own when no
     * event carries it.
     */
    void write(AppendRequest request, AppendResult.Committed committed, StreamState state,
            AppendDecision.Tentative group, long now) throws SQLException {
        List<AppendResult.EntryResult> fates = committed.entries();
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
        // The publish record goes on the request's last event row: same page as the events, no extra page per commit.
        String publish = settings.publishRecords() && lastOffset > 0
                ? publishIndex.carry(new PublishIndex.Carried(publishIndex.nextId(), request.requestId(), state.id,
                        committed.count(AppendResult.Status.ACCEPTED), committed.count(AppendResult.Status.DUPLICATE),
                        committed.count(AppendResult.Status.QUARANTINED), firstOffset, lastOffset,
                        request.receivedAtMicros(), now, firstSeq, lastSeq, joined(duplicateOffsets), request.keyId(),
                        request.keyName(), PublishIndex.storedTraceId(request.requestId(), request.traceId()))).text()
                : null;
        for (int i = 0; i < fates.size(); i++) {
            AppendResult.EntryResult fate = fates.get(i);
            AppendRequest.Entry entry = request.entries().get(i);
            if (fate.status() == AppendResult.Status.ACCEPTED) {
                AppendRequest.Event event = (AppendRequest.Event) entry;
                String key = event.idempotencyKey();
                eventInserts.add(state.id, fate.offset(), request.requestId(), request.receivedAtMicros(),
                        request.schemaVersion(), key, key == null ? 0 : group.hashOf(key), event.payload(),
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
        insertPublish.setString(16, PublishIndex.storedTraceId(request.requestId(), request.traceId()));
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

    private static String errorsJson(List<FieldError> errors) {
        ArrayNode array = JSON.createArrayNode();
        for (FieldError error : errors) {
            array.addObject().put("field", error.field()).put("reason", error.reason());
        }
        return array.toString();
    }
}
