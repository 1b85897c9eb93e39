package dev.interlace.runtime.log;

import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collection;

/**
 * The deduplication keys of each group commit, kept compactly so that the in-memory index is rebuilt quickly at
 * start-up: one row of {@code key_blocks} per stream and group, whose blob holds each new key's offset and hash
 * (16 bytes a key), written in the group's transaction. Reading 5 million keys this way reads about 80 MB in a few
 * hundred thousand rows, instead of every event row with its payload.
 *
 * <p>{@code key_blocks_from} says from which offset a stream's keys are in blocks; keys of events below it (written
 * before blocks existed) are read from the event rows. Owned by the writer thread, on its connection.
 */
final class KeyBlocks {

    private static final int BYTES_PER_KEY = 16;

    private PreparedStatement insert;

    /** Prepares the insert on {@code connection}: at start-up, and again whenever the writer replaces it. */
    void prepare(Connection connection) throws SQLException {
        insert = connection.prepareStatement("INSERT INTO key_blocks(stream_id, last_offset, last_ingested_at, keys)"
                + " VALUES (?, ?, ?, ?)");
    }

    /** Writes the block of one stream's new keys in the current group, inside its transaction. */
    void write(StreamState state, Collection<AppendWriter.NewKey> keys, long lastIngestedAtMicros)
            throws SQLException {
        if (keys.isEmpty()) {
            return;
        }
        ByteBuffer block = ByteBuffer.allocate(keys.size() * BYTES_PER_KEY);
        long lastOffset = 0;
        for (AppendWriter.NewKey key : keys) {
            block.putLong(key.offset()).putLong(key.hash());
            lastOffset = Math.max(lastOffset, key.offset());
        }
        insert.setInt(1, state.id);
        insert.setLong(2, lastOffset);
        insert.setLong(3, lastIngestedAtMicros);
        insert.setBytes(4, block.array());
        insert.executeUpdate();
    }

    /**
     * Fills {@code state}'s index with the keys of its events accepted after {@code notBeforeMicros} and not trimmed.
     * Blocks whose newest key is older than the window are skipped; keys in a block that straddles the window's start
     * are loaded and rejected at lookup, where the event's time is checked.
     */
    static void load(Connection connection, StreamState state, long notBeforeMicros) throws SQLException {
        long from = blocksFrom(connection, state);
        if (from > state.trimmedThrough + 1) {
            // Written before key blocks existed: from the event rows.
            try (PreparedStatement select = connection.prepareStatement("SELECT key_hash, \"offset\" FROM events"
                    + " WHERE stream_id = ? AND \"offset\" < ? AND key_hash IS NOT NULL AND ingested_at > ?")) {
                select.setInt(1, state.id);
                select.setLong(2, from);
                select.setLong(3, notBeforeMicros);
                try (ResultSet rows = select.executeQuery()) {
                    while (rows.next()) {
                        state.dedup.add(rows.getLong(1), rows.getLong(2));
                    }
                }
            }
        }
        try (PreparedStatement select = connection.prepareStatement("SELECT keys FROM key_blocks"
                + " WHERE stream_id = ? AND last_offset > ? AND last_ingested_at > ?")) {
            select.setInt(1, state.id);
            select.setLong(2, state.trimmedThrough);
            select.setLong(3, notBeforeMicros);
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    ByteBuffer block = ByteBuffer.wrap(rows.getBytes(1));
                    while (block.remaining() >= BYTES_PER_KEY) {
                        long offset = block.getLong();
                        long hash = block.getLong();
                        if (offset > state.trimmedThrough) {
                            state.dedup.add(hash, offset);
                        }
                    }
                }
            }
        }
    }

    /** From which offset the stream's keys are in blocks; recorded as the next offset when first asked. */
    private static long blocksFrom(Connection connection, StreamState state) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(
                "INSERT OR IGNORE INTO key_blocks_from(stream_id, first_offset) VALUES (?, ?)");
                PreparedStatement select = connection.prepareStatement(
                        "SELECT first_offset FROM key_blocks_from WHERE stream_id = ?")) {
            insert.setInt(1, state.id);
            insert.setLong(2, state.head + 1);
            insert.executeUpdate();
            select.setInt(1, state.id);
            try (ResultSet row = select.executeQuery()) {
                row.next();
                return row.getLong(1);
            }
        }
    }

    /** Removes the blocks whose keys are all at or below {@code throughOffset} (trimmed with their events). */
    static void trim(Connection connection, StreamState state, long throughOffset) throws SQLException {
        try (PreparedStatement delete = connection.prepareStatement(
                "DELETE FROM key_blocks WHERE stream_id = ? AND last_offset <= ?")) {
            delete.setInt(1, state.id);
            delete.setLong(2, throughOffset);
            delete.executeUpdate();
        }
    }
}
