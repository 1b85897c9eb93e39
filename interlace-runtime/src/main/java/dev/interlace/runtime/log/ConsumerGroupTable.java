package dev.interlace.runtime.log;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
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

    /**
     * Reads {@code group}, lets {@code rule} decide (see {@link GroupRules}) and writes the state it decided; on the
     * writer thread, inside the writer's transaction.
     */
    <T> T decide(Connection connection, StreamState state, String group, long now,
            java.util.function.Function<Leases.Group, GroupRules.Decision<T>> rule) throws SQLException {
        Leases.Group current = readGroup(connection, state, group);
        GroupRules.Decision<T> decision = rule.apply(current);
        if (decision.next() != null) {
            writeGroup(connection, state, decision.next(), current == null, now);
        }
        return decision.answer();
    }

    /** See {@link ConsumerGroups#groups}; on the caller's thread, with a reader connection. */
    List<Leases.Group> groups(String stream) {
        return connections.withReader("read the consumers of " + stream, reader -> {
            try (PreparedStatement select = reader.prepareStatement("SELECT group_name, committed_offset,"
                    + " fencing_token, lease_owner, lease_key, lease_expires_at, lease_secret, owner_keys"
                    + " FROM consumer_groups WHERE stream_id = (SELECT id FROM streams WHERE name = ?)"
                    + " ORDER BY group_name")) {
                select.setString(1, stream);
                List<Leases.Group> groups = new ArrayList<>();
                try (ResultSet rows = select.executeQuery()) {
                    while (rows.next()) {
                        groups.add(new Leases.Group(stream, rows.getString(1), rows.getLong(2), rows.getLong(3),
                                rows.getString(4), rows.getString(5), rows.getLong(6), rows.getString(7),
                                keys(rows.getString(8))));
                    }
                }
                return groups;
            }
        });
    }

    private static Leases.Group readGroup(Connection connection, StreamState state, String group) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement("SELECT committed_offset, fencing_token,"
                + " lease_owner, lease_key, lease_expires_at, lease_secret, owner_keys FROM consumer_groups"
                + " WHERE stream_id = ? AND group_name = ?")) {
            select.setInt(1, state.id);
            select.setString(2, group);
            try (ResultSet row = select.executeQuery()) {
                return row.next() ? new Leases.Group(state.name, group, row.getLong(1), row.getLong(2),
                        row.getString(3), row.getString(4), row.getLong(5), row.getString(6), keys(row.getString(7)))
                        : null;
            }
        }
    }

    private static void writeGroup(Connection connection, StreamState state, Leases.Group group, boolean insert,
            long now) throws SQLException {
        try (PreparedStatement write = connection.prepareStatement(insert
                ? "INSERT INTO consumer_groups(committed_offset, fencing_token, lease_owner, lease_key,"
                        + " lease_expires_at, lease_secret, owner_keys, updated_at, stream_id, group_name)"
                        + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                : "UPDATE consumer_groups SET committed_offset = ?, fencing_token = ?, lease_owner = ?, lease_key = ?,"
                        + " lease_expires_at = ?, lease_secret = ?, owner_keys = ?, updated_at = ?"
                        + " WHERE stream_id = ? AND group_name = ?")) {
            write.setLong(1, group.committedOffset());
            write.setLong(2, group.token());
            write.setString(3, group.holder());
            write.setString(4, group.holderKey());
            write.setLong(5, group.expiresAtMicros());
            write.setString(6, group.secret());
            write.setString(7, group.keys().isEmpty() ? null : String.join(" ", group.keys()));
            write.setLong(8, now);
            write.setInt(9, state.id);
            write.setString(10, group.group());
            write.executeUpdate();
        }
    }

    /** The key ids of {@code owner_keys} (space-separated; null for a group no key owns). */
    private static List<String> keys(String ownerKeys) {
        return ownerKeys == null || ownerKeys.isBlank() ? List.of() : List.of(ownerKeys.strip().split(" +"));
    }
}
