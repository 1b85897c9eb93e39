package dev.interlace.runtime.log;

import dev.interlace.runtime.ops.TraceParent;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The ids of publish records, their copy from the event rows they ride on into {@code publishes}, and the request-id
 * index {@code publish_ids}. Owned by the writer thread: every method runs there, on the writer's current connection
 * and inside its transaction.
 *
 * <p>A record rides on its request's last event row as a short JSON array ({@link Carried#text}), written with the
 * events in their group commit. Every {@link LogSettings#publishIndexMillis} ms a group commit copies the records
 * written since into {@code publishes} and indexes them, from the writer's own list of them ({@link #carried}):
 * reading them back out of the event rows' JSON took about a quarter of the writer's time under single-event
 * publishes. Only opening the log copies from the event rows, as what was written before a stop or a crash is not in
 * memory.
 */
final class PublishIndex {

    /** The writer's streams, by name (the writer's own map). */
    private final Map<String, StreamState> states;
    /** The id of the newest publish record (ids are given here, in commit order). */
    private long publishSeq;
    /** Publish records up to this id are in {@code publish_ids}, the request-id index. */
    private long indexedThrough;
    /** How often the records carried on event rows are copied and indexed (inside a group commit). */
    private final long indexMillis;
    /** The log's clock: when the index is due. */
    private final Clock clock;
    private long lastIndexMillis;
    /**
     * The records carried on event rows since the last copy into {@code publishes}, in id order: those of committed
     * transactions and of the one under way. The first {@link #copied} of them were copied in the transaction under
     * way (or in one that committed since); {@link #mark} drops them when the next transaction starts.
     */
    private final List<Carried> carried = new ArrayList<>();
    private int copied;
    private final RowInserts<Carried> copies = new RowInserts<>("INSERT OR IGNORE INTO publishes(id, request_id,"
            + " stream_id, accepted, deduplicated, quarantined, first_offset, last_offset, received_at, committed_at,"
            + " first_seq, last_seq, duplicate_offsets, key_id, key_name, trace_id) VALUES ", 16, Carried::bind);
    private PreparedStatement copiedThrough;

    PublishIndex(Map<String, StreamState> states, long indexMillis, Clock clock) {
        this.states = states;
        this.indexMillis = indexMillis;
        this.clock = clock;
    }

    /** Prepares the statements on {@code connection}: at start-up, and again whenever the writer replaces it. */
    void prepare(Connection connection) throws SQLException {
        copies.prepare(connection);
        copiedThrough = connection.prepareStatement("INSERT OR REPLACE INTO publish_copy"
                + " VALUES (?, coalesce((SELECT max(\"offset\") FROM events WHERE stream_id = ?), 0))");
    }

    /** The id of the next publish record. */
    long nextId() {
        return ++publishSeq;
    }

    /**
     * Takes a record that rides on an event row written in the transaction under way, to be copied from here; returns
     * it for its {@link Carried#text}.
     */
    Carried carry(Carried record) {
        carried.add(record);
        return record;
    }

    /**
     * Whether the index is due to catch up in the current group commit: {@link LogSettings#publishIndexMillis} after
     * the last time, or at once if the clock was set back since.
     */
    boolean due() {
        long sinceLast = clock.millis() - lastIndexMillis;
        return sinceLast >= indexMillis || sinceLast < 0;
    }

    /**
     * Where the ids, the index and the carried records stand as a transaction starts, to go back to if it is rolled
     * back. Every transaction that writes records or copies them starts with a mark, and either commits or restores
     * it: so the records copied by the transaction before are durably copied now, and are dropped.
     */
    Mark mark() {
        if (copied > 0) {
            carried.subList(0, copied).clear();
            copied = 0;
        }
        return new Mark(publishSeq, indexedThrough, carried.size());
    }

    /** After a rollback: the transaction's records, ids and copies are gone, and so is its index work. */
    void restore(Mark mark) {
        publishSeq = mark.publishSeq();
        indexedThrough = mark.indexedThrough();
        carried.subList(mark.carried(), carried.size()).clear();
        copied = 0;
    }

    /** Reads the newest publish id and how far the request-id index goes, then indexes whatever it lacks. */
    void load(Connection connection) throws SQLException {
        copyFromEvents(connection); // records still on event rows get their ids counted below
        carried.clear();
        copied = 0;
        try (Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery("SELECT coalesce((SELECT max(id) FROM publishes), 0),"
                        + " (SELECT indexed_through FROM publish_index)")) {
            row.next();
            // Never below what the index covers: if the record retention removed the newest records, new ids must
            // still land after indexed_through, where lookups scan for records the index does not have yet.
            indexedThrough = row.getLong(2);
            publishSeq = Math.max(row.getLong(1), indexedThrough);
        }
        index(connection);
    }

    /**
     * Adds the publish records written since the last call to {@code publish_ids}, sorted by request id, inside the
     * current transaction (it rides on a group commit: no extra fsync), and records how far the index goes. Lookups
     * by request id read the index up to that point and scan only the records after it.
     */
    void index(Connection connection) throws SQLException {
        lastIndexMillis = clock.millis();
        if (publishSeq <= indexedThrough) {
            return;
        }
        copyCarried();
        try (PreparedStatement index = connection.prepareStatement("INSERT OR IGNORE INTO publish_ids"
                + " SELECT request_id, id FROM publishes WHERE id > ? AND id <= ? ORDER BY request_id");
                PreparedStatement traces = connection.prepareStatement("INSERT OR IGNORE INTO publish_trace_ids"
                        + " SELECT trace_id, id FROM publishes WHERE id > ? AND id <= ? AND trace_id <> ''"
                        + " ORDER BY trace_id");
                PreparedStatement through = connection.prepareStatement(
                        "UPDATE publish_index SET indexed_through = ? WHERE id = 1")) {
            for (PreparedStatement statement : List.of(index, traces)) {
                statement.setLong(1, indexedThrough);
                statement.setLong(2, publishSeq);
                statement.executeUpdate();
            }
            through.setLong(1, publishSeq);
            through.executeUpdate();
        }
        indexedThrough = publishSeq;
    }

    /**
     * Copies the records carried since the last copy into {@code publishes} from {@link #carried}, and records for
     * their streams that everything up to the newest event is copied: afterwards every publish id up to
     * {@link #publishSeq} is in {@code publishes}, as after {@link #copyFromEvents}.
     */
    private void copyCarried() throws SQLException {
        List<Carried> toCopy = carried.subList(copied, carried.size());
        copies.insert(toCopy);
        java.util.Set<Integer> streams = new java.util.HashSet<>();
        for (Carried record : toCopy) {
            if (streams.add(record.streamId())) {
                copiedThrough.setInt(1, record.streamId());
                copiedThrough.setInt(2, record.streamId());
                copiedThrough.executeUpdate();
            }
        }
        copied = carried.size();
    }

    /**
     * Copies the publish records carried on event rows since the last copy into {@code publishes}, reading them from
     * the rows, per stream, and records how far each stream is copied. Afterwards every publish id up to
     * {@link #publishSeq} is in {@code publishes}. Runs when the log opens, inside its first transaction.
     */
    private void copyFromEvents(Connection connection) throws SQLException {
        try (PreparedStatement copy = connection.prepareStatement("INSERT OR IGNORE INTO publishes(id, request_id,"
                + " stream_id, accepted, deduplicated, quarantined, first_offset, last_offset, received_at,"
                + " committed_at, first_seq, last_seq, duplicate_offsets, key_id, key_name, trace_id) SELECT "
                + PUBLISH_FROM_EVENT
                + " FROM events e WHERE e.stream_id = ? AND e.\"offset\" > ? AND e.publish IS NOT NULL");
                PreparedStatement through = connection.prepareStatement("INSERT OR REPLACE INTO publish_copy"
                        + " VALUES (?, coalesce((SELECT max(\"offset\") FROM events WHERE stream_id = ?), ?))");
                PreparedStatement copied = connection.prepareStatement(
                        "SELECT through_offset FROM publish_copy WHERE stream_id = ?")) {
            for (StreamState state : states.values()) {
                long from = 0;
                copied.setInt(1, state.id);
                try (ResultSet row = copied.executeQuery()) {
                    if (row.next()) {
                        from = row.getLong(1);
                    }
                }
                copy.setInt(1, state.id);
                copy.setLong(2, from);
                copy.executeUpdate();
                through.setInt(1, state.id);
                through.setInt(2, state.id);
                through.setLong(3, from);
                through.executeUpdate();
            }
        }
    }

    /** The columns of {@code publishes}, in its order, from an event row {@code e} carrying a publish record. */
    private static final String PUBLISH_FROM_EVENT = "json_extract(e.publish, '$[0]'), e.request_id, e.stream_id,"
            + " json_extract(e.publish, '$[1]'), json_extract(e.publish, '$[2]'), json_extract(e.publish, '$[3]'),"
            + " json_extract(e.publish, '$[4]'), json_extract(e.publish, '$[5]'), e.ingested_at,"
            + " json_extract(e.publish, '$[6]'), nullif(json_extract(e.publish, '$[7]'), 0),"
            + " nullif(json_extract(e.publish, '$[8]'), 0), nullif(json_extract(e.publish, '$[9]'), ''),"
            + " json_extract(e.publish, '$[10]'), json_extract(e.publish, '$[11]'), json_extract(e.publish, '$[12]')";

    /** The most publish records one call of {@link #trim} removes: one writer transaction of a few milliseconds. */
    static final int TRIM_BATCH = 2_000;

    /**
     * Removes the oldest publish records committed before {@code beforeMicros}, at most {@link #TRIM_BATCH} of them,
     * with their index entries; returns how many. It reads only the records it removes (by id, which follows commit
     * order) and one more: a trim with nothing to remove costs one row's read however many records are kept, where a
     * condition on time alone would read the whole table inside the writer's transaction, holding every publish up.
     */
    long trim(Connection connection, long beforeMicros) throws SQLException {
        index(connection); // records still riding on event rows are copied out (and indexed) first
        long throughId;
        try (PreparedStatement oldest = connection.prepareStatement(
                "SELECT id, committed_at FROM publishes ORDER BY id LIMIT 1");
                PreparedStatement batchEnd = connection.prepareStatement(
                        "SELECT max(id) FROM (SELECT id FROM publishes ORDER BY id LIMIT ?)")) {
            try (ResultSet row = oldest.executeQuery()) {
                if (!row.next() || row.getLong(2) >= beforeMicros) {
                    return 0;
                }
            }
            batchEnd.setInt(1, TRIM_BATCH);
            try (ResultSet row = batchEnd.executeQuery()) {
                row.next();
                throughId = row.getLong(1);
            }
        }
        String removed = "SELECT %s, id FROM publishes WHERE id <= ? AND committed_at < ?";
        try (PreparedStatement unindex = connection.prepareStatement("DELETE FROM publish_ids"
                + " WHERE (request_id, publish_id) IN (" + removed.formatted("request_id") + ")");
                PreparedStatement untrace = connection.prepareStatement("DELETE FROM publish_trace_ids"
                        + " WHERE (trace_id, publish_id) IN (" + removed.formatted("trace_id") + " AND trace_id <> '')");
                PreparedStatement delete = connection.prepareStatement(
                        "DELETE FROM publishes WHERE id <= ? AND committed_at < ?")) {
            for (PreparedStatement statement : List.of(unindex, untrace, delete)) {
                statement.setLong(1, throughId);
                statement.setLong(2, beforeMicros);
            }
            unindex.executeUpdate();
            untrace.executeUpdate();
            return delete.executeUpdate();
        }
    }

    record Mark(long publishSeq, long indexedThrough, int carried) {}

    /**
     * How a record stores {@code traceId}, the trace id of request {@code requestId}: empty when it is the request id's
     * own ({@link TraceParent#ofRequestId}, what a request the server named gets when it comes outside any trace),
     * which the reader makes again and a lookup finds through the request-id index; otherwise as it is (or null).
     * Stored in full, those ids took about a quarter of the bytes a single-event publish adds to the log (on its event
     * row, in {@code publishes} and in {@code publish_trace_ids}).
     */
    static String storedTraceId(String requestId, String traceId) {
        return traceId != null && traceId.equals(TraceParent.ofRequestId(requestId)) ? "" : traceId;
    }

    /** The trace id a record of {@code requestId} stored as {@code stored} ({@link #storedTraceId}), or null. */
    static String traceIdOf(String requestId, String stored) {
        return stored != null && stored.isEmpty() ? TraceParent.ofRequestId(requestId) : stored;
    }

    /**
     * A publish record carried on its request's last event row; {@link #text} is what the row holds and what
     * {@link #copyFromEvents} reads back into the same columns as {@link #bind}.
     *
     * @param duplicateOffsets the offsets of the events that first carried the request's duplicate keys, comma
     *     separated and ascending, or null when there were none
     * @param firstSeq 0 when no event was quarantined, like {@code lastSeq}
     * @param keyId null without an API key, like {@code keyName}
     * @param traceId as {@link #storedTraceId} stores it: null outside a trace, empty for the request id's own
     */
    record Carried(long id, String requestId, int streamId, long accepted, long deduplicated, long quarantined,
            long firstOffset, long lastOffset, long receivedAtMicros, long committedAtMicros, long firstSeq,
            long lastSeq, String duplicateOffsets, String keyId, String keyName, String traceId) {

        /** As carried on the event row: {@code [id, accepted, deduplicated, quarantined, ...]}. */
        String text() {
            StringBuilder text = new StringBuilder(64).append('[').append(id)
                    .append(',').append(accepted).append(',').append(deduplicated).append(',').append(quarantined)
                    .append(',').append(firstOffset).append(',').append(lastOffset)
                    .append(',').append(committedAtMicros)
                    .append(',').append(firstSeq).append(',').append(lastSeq)
                    .append(",\"").append(duplicateOffsets == null ? "" : duplicateOffsets).append('"');
            // Ids, names and trace ids are [A-Za-z0-9._-] (AppendRequest checks): no escaping.
            if (keyId != null) {
                text.append(",\"").append(keyId).append("\",\"").append(keyName).append('"');
            } else if (traceId != null) {
                text.append(",null,null");
            }
            if (traceId != null) {
                text.append(",\"").append(traceId).append('"');
            }
            return text.append(']').toString();
        }

        /** Binds the row of {@code publishes}, in the order of {@link #copies}' columns. */
        static int bind(PreparedStatement statement, int first, Carried record) throws SQLException {
            int p = first;
            statement.setLong(p++, record.id);
            statement.setString(p++, record.requestId);
            statement.setInt(p++, record.streamId);
            statement.setLong(p++, record.accepted);
            statement.setLong(p++, record.deduplicated);
            statement.setLong(p++, record.quarantined);
            statement.setLong(p++, record.firstOffset);
            statement.setLong(p++, record.lastOffset);
            statement.setLong(p++, record.receivedAtMicros);
            statement.setLong(p++, record.committedAtMicros);
            p = setNullIfZero(statement, p, record.firstSeq);
            p = setNullIfZero(statement, p, record.lastSeq);
            statement.setString(p++, record.duplicateOffsets);
            statement.setString(p++, record.keyId);
            statement.setString(p++, record.keyName);
            statement.setString(p++, record.traceId);
            return p;
        }

        private static int setNullIfZero(PreparedStatement statement, int p, long value) throws SQLException {
            if (value == 0) {
                statement.setNull(p, Types.BIGINT);
            } else {
                statement.setLong(p, value);
            }
            return p + 1;
        }
    }
}
