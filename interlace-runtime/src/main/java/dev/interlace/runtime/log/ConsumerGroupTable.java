package dev.interlace.runtime.log;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code consumer_groups} table: lease, commit and release decisions, made on the writer thread with the writer's
 * connection inside a transaction of their own (the writer commits it), and the listing of a stream's groups on a
 * reader connection.
 */
final class ConsumerGroupTable {

    private final LogConnections connections;

    ConsumerGroupTable(LogConnections connections) {
        this.connections = connections;
    }

    /** See {@link ConsumerGroups#lease}; on the writer thread. */
    Leases.LeaseResult lease(Connection connection, StreamState state, String group, String owner, Duration ttl,
            long now) throws SQLException {
        long expires = now + ttl.toNanos() / 1_000;
        Leases.Group current = readGroup(connection, state, group);
        if (current == null) {
            writeGroup(connection, state, group, 0, 1, owner, expires, now, true);
            return new Leases.Granted(1, 0, expires);
        }
        boolean held = current.holder() != null && current.expiresAtMicros() > now;
        if (held && !current.holder().equals(owner)) {
            return new Leases.Held(current.holder(), current.expiresAtMicros());
        }
        long token = held ? current.token() : current.token() + 1;
        writeGroup(connection, state, group, current.committedOffset(), token, owner, expires, now, false);
        return new Leases.Granted(token, current.committedOffset(), expires);
    }

    /** See {@link ConsumerGroups#commit}; on the writer thread. */
    Leases.CommitResult commit(Connection connection, StreamState state, String group, long token, long offset,
            long now) throws SQLException {
        Leases.Group current = readGroup(connection, state, group);
        if (current == null || current.token() != token) {
            return new Leases.StaleToken(current == null ? 0 : current.token());
        }
        if (current.holder() == null || current.expiresAtMicros() <= now) {
            return new Leases.LeaseExpired(current.expiresAtMicros());
        }
        if (offset < current.committedOffset()) {
            return new Leases.OffsetRegressed(current.committedOffset());
        }
        if (offset > state.head) {
            return new Leases.BeyondHead(state.head);
        }
        writeGroup(connection, state, group, offset, token, current.holder(), current.expiresAtMicros(), now, false);
        return new Leases.Committed(offset);
    }

    /** See {@link ConsumerGroups#release}; on the writer thread. */
    boolean release(Connection connection, StreamState state, String group, long token, long now)
            throws SQLException {
        Leases.Group current = readGroup(connection, state, group);
        if (current == null || current.token() != token || current.holder() == null) {
            return false;
        }
        writeGroup(connection, state, group, current.committedOffset(), token, null, now, now, false);
        return true;
    }

    /** See {@link ConsumerGroups#groups}; on the caller's thread, with a reader connection. */
    List<Leases.Group> groups(String stream) {
        Connection reader = connections.borrowReader();
        try (PreparedStatement select = reader.prepareStatement("SELECT group_name, committed_offset,"
                + " fencing_token, lease_owner, lease_expires_at FROM consumer_groups"
                + " WHERE stream_id = (SELECT id FROM streams WHERE name = ?) ORDER BY group_name")) {
            select.setString(1, stream);
            List<Leases.Group> groups = new ArrayList<>();
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    groups.add(new Leases.Group(stream, rows.getString(1), rows.getLong(2), rows.getLong(3),
                            rows.getString(4), rows.getLong(5)));
                }
            }
            return groups;
        } catch (SQLException e) {
            throw new LogUnavailableException("cannot read the consumers of " + stream + ": " + e.getMessage(), e);
        } finally {
            connections.returnReader(reader);
        }
    }

    private static Leases.Group readGroup(Connection connection, StreamState state, String group) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement("SELECT committed_offset, fencing_token,"
                + " lease_owner, lease_expires_at FROM consumer_groups WHERE stream_id = ? AND group_name = ?")) {
            select.setInt(1, state.id);
            select.setString(2, group);
            try (ResultSet row = select.executeQuery()) {
                return row.next() ? new Leases.Group(state.name, group, row.getLong(1), row.getLong(2),
                        row.getString(3), row.getLong(4)) : null;
            }
        }
    }

    private static void writeGroup(Connection connection, StreamState state, String group, long committed,
            long token, String owner, long expires, long now, boolean insert) throws SQLException {
        try (PreparedStatement write = connection.prepareStatement(insert
                ? "INSERT INTO consumer_groups(committed_offset, fencing_token, lease_owner, lease_expires_at,"
                        + " updated_at, stream_id, group_name) VALUES (?, ?, ?, ?, ?, ?, ?)"
                : "UPDATE consumer_groups SET committed_offset = ?, fencing_token = ?, lease_owner = ?,"
                        + " lease_expires_at = ?, updated_at = ? WHERE stream_id = ? AND group_name = ?")) {
            write.setLong(1, committed);
            write.setLong(2, token);
            write.setString(3, owner);
            write.setLong(4, expires);
            write.setLong(5, now);
            write.setInt(6, state.id);
            write.setString(7, group);
            write.executeUpdate();
        }
    }
}
