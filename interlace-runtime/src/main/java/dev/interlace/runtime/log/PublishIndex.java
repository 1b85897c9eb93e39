package dev.interlace.runtime.log;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;

/**
 * The ids of publish records, their copy from the event rows they ride on into {@code publishes}, and the request-id
 * index {@code publish_ids}. Owned by the writer thread: every method runs there, on the writer's current connection
 * and inside its transaction.
 */
final class PublishIndex {

    /** How often the request-id index of publish records catches up (inside a group commit). */
    private static final long INDEX_PUBLISHES_NANOS = 250_000_000L;

    /** The writer's streams, by name (the writer's own map). */
    private final Map<String, StreamState> states;
    /** The id of the newest publish record (ids are given here, in commit order). */
    private long publishSeq;
    /** Publish records up to this id are in {@code publish_ids}, the request-id index. */
    private long indexedThrough;
    private long lastIndexNanos;

    PublishIndex(Map<String, StreamState> states) {
        this.states = states;
    }

    /** The id of the next publish record. */
    long nextId() {
        return ++publishSeq;
    }

    /** Whether the index is due to catch up in the current group commit. */
    boolean due() {
        return System.nanoTime() - lastIndexNanos >= INDEX_PUBLISHES_NANOS;
    }

    /** Where the ids and the index stand, to go back to when a group's transaction is rolled back. */
    Mark mark() {
        return new Mark(publishSeq, indexedThrough);
    }

    void restore(Mark mark) {
        publishSeq = mark.publishSeq();
        indexedThrough = mark.indexedThrough();
    }

    /** Reads the newest publish id and how far the request-id index goes, then indexes whatever it lacks. */
    void load(Connection connection) throws SQLException {
        copy(connection); // records still on event rows get their ids counted below
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
        lastIndexNanos = System.nanoTime();
        if (publishSeq <= indexedThrough) {
            return;
        }
        copy(connection);
        try (PreparedStatement index = connection.prepareStatement("INSERT OR IGNORE INTO publish_ids"
                + " SELECT request_id, id FROM publishes WHERE id > ? AND id <= ? ORDER BY request_id");
                PreparedStatement through = connection.prepareStatement(
                        "UPDATE publish_index SET indexed_through = ? WHERE id = 1")) {
            index.setLong(1, indexedThrough);
            index.setLong(2, publishSeq);
            index.executeUpdate();
            through.setLong(1, publishSeq);
            through.executeUpdate();
        }
        indexedThrough = publishSeq;
    }

    /**
     * Copies the publish records carried on event rows since the last copy into {@code publishes}, per stream, and
     * records how far each stream is copied. Afterwards every publish id up to {@link #publishSeq} is in
     * {@code publishes}. Runs on the writer thread inside a transaction (a group commit, a trim, start-up).
     */
    private void copy(Connection connection) throws SQLException {
        try (PreparedStatement copy = connection.prepareStatement("INSERT OR IGNORE INTO publishes(id, request_id,"
                + " stream_id, accepted, deduplicated, quarantined, first_offset, last_offset, received_at,"
                + " committed_at, first_seq, last_seq, duplicate_offsets, key_id, key_name) SELECT "
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
            + " json_extract(e.publish, '$[10]'), json_extract(e.publish, '$[11]')";

    /** Removes publish records received before {@code beforeMicros} and their index entries; returns how many. */
    long trim(Connection connection, long beforeMicros) throws SQLException {
        index(connection); // records still riding on event rows are copied out (and indexed) first
        try (PreparedStatement unindex = connection.prepareStatement("DELETE FROM publish_ids"
                + " WHERE (request_id, publish_id) IN (SELECT request_id, id FROM publishes WHERE received_at < ?)");
                PreparedStatement delete = connection.prepareStatement(
                        "DELETE FROM publishes WHERE received_at < ?")) {
            unindex.setLong(1, beforeMicros);
            unindex.executeUpdate();
            delete.setLong(1, beforeMicros);
            return (long) delete.executeUpdate();
        }
    }

    record Mark(long publishSeq, long indexedThrough) {}
}
