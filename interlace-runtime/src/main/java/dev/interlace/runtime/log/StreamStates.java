package dev.interlace.runtime.log;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.interlace.runtime.stream.Column;
import dev.interlace.runtime.stream.StreamDescriptor;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The writer's streams: their registration, their positions and deduplication keys read from the database (at
 * start-up and after a failed write), trims, and the heads published to readers. Owned by the writer thread; every
 * method runs there, on the writer's current connection and inside its transaction.
 */
final class StreamStates {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** The writer's streams, by name (the writer's own map). */
    private final Map<String, StreamState> states;
    /** The heads the writer published last, by stream; read by any thread. */
    private final Map<String, StreamHead> heads;
    /** Completed when a stream advances; long polls wait on them. */
    private final Map<String, AtomicReference<CompletableFuture<Void>>> advances;

    private final DedupIndexes dedup;

    StreamStates(Map<String, StreamState> states, Map<String, StreamHead> heads,
            Map<String, AtomicReference<CompletableFuture<Void>>> advances, DedupIndexes dedup) {
        this.states = states;
        this.heads = heads;
        this.advances = advances;
        this.dedup = dedup;
    }

    /** Loads the registered streams' positions at start-up and publishes their heads. */
    void load(Connection connection) throws SQLException {
        for (StreamState state : stored(connection)) {
            states.put(state.name, state);
            publishHead(state);
        }
    }

    /**
     * Every registered stream's positions as the log file holds them: what the writer loads at start-up, and what a
     * follower of another process's log polls.
     */
    static List<StreamState> stored(Connection connection) throws SQLException {
        List<StreamState> stored = new ArrayList<>();
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT s.id, s.name, s.trimmed_through,"
                        + " s.quarantine_trimmed_through,"
                        + " (SELECT max(\"offset\") FROM events e WHERE e.stream_id = s.id),"
                        + " (SELECT max(seq) FROM quarantine q WHERE q.stream_id = s.id)"
                        + " FROM streams s")) {
            while (rows.next()) {
                StreamState state = new StreamState(rows.getInt(1), rows.getString(2));
                state.trimmedThrough = rows.getLong(3);
                state.head = Math.max(rows.getLong(5), state.trimmedThrough);
                state.quarantineHead = Math.max(rows.getLong(6), rows.getLong(4));
                stored.add(state);
            }
        }
        return stored;
    }

    /** Registers {@code stream} (its row, its schema version, its retention and keys) and publishes its head. */
    void register(Connection connection, StreamDescriptor stream, long now) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(
                "INSERT OR IGNORE INTO streams(name, created_at) VALUES (?, ?)")) {
            insert.setString(1, stream.name());
            insert.setLong(2, now);
            insert.executeUpdate();
        }
        StreamState state = states.get(stream.name());
        if (state == null) {
            try (PreparedStatement select = connection.prepareStatement("SELECT id FROM streams WHERE name = ?")) {
                select.setString(1, stream.name());
                try (ResultSet row = select.executeQuery()) {
                    row.next();
                    state = new StreamState(row.getInt(1), stream.name());
                }
            }
            states.put(stream.name(), state);
        }
        try (PreparedStatement insert = connection.prepareStatement("INSERT OR IGNORE INTO schemas(stream_id, version,"
                + " columns, registered_at) VALUES (?, ?, ?, ?)")) {
            insert.setInt(1, state.id);
            insert.setString(2, stream.schemaVersion());
            insert.setString(3, columnsJson(stream));
            insert.setLong(4, now);
            insert.executeUpdate();
        }
        state.retentionMicros = stream.retentionMillis().isPresent() ? stream.retentionMillis().getAsLong() * 1000 : 0;
        state.keyed = stream.idempotencyKey() != null;
        loadKeys(connection, state, now);
        publishHead(state);
    }

    /** Opens a stream's deduplication index at registration (its segments checked, its recent keys read). */
    private void loadKeys(Connection connection, StreamState state, long now) throws SQLException {
        if (state.dedup != null) {
            state.dedup.close();
            state.dedup = null;
        }
        if (state.keyed) {
            state.dedup = dedup.open(state, KeyBlocks.blocksFrom(connection, state));
        }
    }

    /** Rereads every stream's positions and keys from the database, after a commit whose outcome is unknown. */
    void reload(Connection connection, long now) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT s.name,"
                        + " max(s.trimmed_through, coalesce((SELECT max(\"offset\") FROM events e"
                        + " WHERE e.stream_id = s.id), 0)),"
                        + " max(s.quarantine_trimmed_through, coalesce((SELECT max(seq) FROM quarantine q"
                        + " WHERE q.stream_id = s.id), 0))"
                        + " FROM streams s")) {
            while (rows.next()) {
                StreamState state = states.get(rows.getString(1));
                if (state != null) {
                    state.head = rows.getLong(2);
                    state.quarantineHead = rows.getLong(3);
                }
            }
        }
        for (StreamState state : states.values()) {
            if (state.dedup != null) {
                dedup.reload(state);
            }
            publishHead(state);
        }
    }

    /**
     * Trims {@code stream} through {@code throughOffset}, never beyond the head and at most {@code maxEvents} events
     * past what is trimmed already; returns how many events went.
     */
    long trim(Connection connection, String stream, long throughOffset, long maxEvents) throws SQLException {
        StreamState state = states.get(stream);
        if (state == null) {
            throw new IllegalArgumentException("unknown stream " + stream);
        }
        long bound = Math.min(Math.min(throughOffset, state.head), state.trimmedThrough + maxEvents);
        if (bound <= state.trimmedThrough) {
            return 0;
        }
        long removed;
        try (PreparedStatement delete = connection.prepareStatement(
                "DELETE FROM events WHERE stream_id = ? AND \"offset\" <= ?")) {
            delete.setInt(1, state.id);
            delete.setLong(2, bound);
            removed = delete.executeUpdate();
        }
        try (PreparedStatement update = connection.prepareStatement(
                "UPDATE streams SET trimmed_through = ? WHERE id = ?")) {
            update.setLong(1, bound);
            update.setInt(2, state.id);
            update.executeUpdate();
        }
        KeyBlocks.trim(connection, state, bound);
        state.trimmedThrough = bound;
        if (state.dedup != null) {
            state.dedup.removeThrough(bound);
        }
        publishHead(state);
        return removed;
    }

    /** Closes the streams' deduplication indexes. */
    void close() {
        for (StreamState state : states.values()) {
            if (state.dedup != null) {
                state.dedup.close();
            }
        }
    }

    /** Publishes the stream's committed positions to readers and wakes its long polls. */
    void publishHead(StreamState state) {
        heads.put(state.name, state.publishedHead());
        AtomicReference<CompletableFuture<Void>> advance =
                advances.computeIfAbsent(state.name, name -> new AtomicReference<>(new CompletableFuture<>()));
        advance.getAndSet(new CompletableFuture<>()).complete(null);
    }

    private static String columnsJson(StreamDescriptor stream) {
        ObjectNode columns = JSON.createObjectNode();
        for (Column column : stream.columns()) {
            columns.put(column.name(), column.canonicalTypeWithNullability());
        }
        return columns.toString();
    }
}
