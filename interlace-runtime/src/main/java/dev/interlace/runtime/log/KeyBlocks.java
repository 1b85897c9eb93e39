package dev.interlace.runtime.log;

import dev.interlace.runtime.dedup.KeySource;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collection;

/**
 * The deduplication keys of each group commit, kept compactly as the durable record the deduplication index is
 * built from: one row of {@code key_blocks} per stream and group, whose blob holds each new key's offset and hash
 * (16 bytes a key), written in the group's transaction. Sealing a million keys this way reads 16 MB in a few
 * thousand rows, instead of every event row with its payload.
 *
 * <p>{@code key_blocks_from} says from which offset a stream's keys are in blocks; keys of events below it (written
 * before blocks existed) are read from the event rows. Owned by the writer thread, on its connection.
 */
final class KeyBlocks {

    private static final int BYTES_PER_KEY = 16;
    /** Keys stored only on event rows are handed to the index in groups of this many. */
    private static final int LEGACY_GROUP_KEYS = 4096;

    private PreparedStatement insert;

    /** Prepares the insert on {@code connection}: at start-up, and again whenever the writer replaces it. */
    void prepare(Connection connection) throws SQLException {
        insert = connection.prepareStatement("INSERT INTO key_blocks(stream_id, last_offset, last_ingested_at, keys)"
                + " VALUES (?, ?, ?, ?)");
    }

    /** Writes the block of one stream's new keys in the current group, inside its transaction. */
    void write(StreamState state, Collection<AppendDecision.NewKey> keys, long lastIngestedAtMicros)
            throws SQLException {
        if (keys.isEmpty()) {
            return;
        }
        ByteBuffer block = ByteBuffer.allocate(keys.size() * BYTES_PER_KEY);
        long lastOffset = 0;
        for (AppendDecision.NewKey key : keys) {
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
     * The stream's keys as a deduplication index reads them: those written before key blocks existed (below
     * {@code blocksFrom}) from the event rows, in offset order, then the blocks. Each scan reads on a reader
     * connection, so that a seal on a background thread never waits for the writer.
     */
    static KeySource source(LogConnections connections, int streamId, long blocksFrom) {
        return (afterOffset, notBeforeMicros, visitor) -> {
            Connection reader = connections.borrowReader();
            try {
                if (!legacyKeys(reader, streamId, blocksFrom, afterOffset, notBeforeMicros, visitor)) {
                    return;
                }
                try (PreparedStatement select = reader.prepareStatement("SELECT last_offset, last_ingested_at, keys"
                        + " FROM key_blocks WHERE stream_id = ? AND last_offset > ? AND last_ingested_at > ?"
                        + " ORDER BY last_offset")) {
                    select.setInt(1, streamId);
                    select.setLong(2, afterOffset);
                    select.setLong(3, notBeforeMicros);
                    try (ResultSet rows = select.executeQuery()) {
                        while (rows.next()) {
                            if (!visitor.group(rows.getLong(1), rows.getLong(2), ByteBuffer.wrap(rows.getBytes(3)))) {
                                return;
                            }
                        }
                    }
                }
            } catch (SQLException e) {
                throw new IOException("cannot read the deduplication keys of stream " + streamId + ": "
                        + e.getMessage(), e);
            } finally {
                connections.returnReader(reader);
            }
        };
    }

    /** Hands the keys stored only on event rows (below {@code blocksFrom}) on in groups; false when told to stop. */
    private static boolean legacyKeys(Connection reader, int streamId, long blocksFrom, long afterOffset,
            long notBeforeMicros, KeySource.GroupVisitor visitor) throws SQLException, IOException {
        if (blocksFrom <= afterOffset + 1) {
            return true;
        }
        try (PreparedStatement select = reader.prepareStatement("SELECT \"offset\", key_hash, ingested_at FROM events"
                + " WHERE stream_id = ? AND \"offset\" > ? AND \"offset\" < ? AND key_hash IS NOT NULL"
                + " AND ingested_at > ? ORDER BY \"offset\"")) {
            select.setInt(1, streamId);
            select.setLong(2, afterOffset);
            select.setLong(3, blocksFrom);
            select.setLong(4, notBeforeMicros);
            ByteBuffer group = ByteBuffer.allocate(LEGACY_GROUP_KEYS * BYTES_PER_KEY);
            long lastOffset = 0;
            long newest = Long.MIN_VALUE;
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    lastOffset = rows.getLong(1);
                    group.putLong(lastOffset).putLong(rows.getLong(2));
                    newest = Math.max(newest, rows.getLong(3));
                    if (!group.hasRemaining()) {
                        if (!visitor.group(lastOffset, newest, group.flip())) {
                            return false;
                        }
                        group.clear();
                        newest = Long.MIN_VALUE;
                    }
                }
            }
            return group.position() == 0 || visitor.group(lastOffset, newest, group.flip());
        }
    }

    /** From which offset the stream's keys are in blocks; recorded as the next offset when first asked. */
    static long blocksFrom(Connection connection, StreamState state) throws SQLException {
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
