package dev.interlace.runtime.log;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Reads accepted and quarantined events on the readers' connections, and wakes long polls when the writer publishes
 * a stream's new head (through {@code advances}).
 *
 * <p>A read that starts at or after the head the writer published asks SQLite nothing: the writer publishes a head
 * after its commit and before it answers the publishes, so nothing acknowledged lies beyond it (what a commit adds
 * before its head is published is found by the next read, and wakes the long polls). The flusher asks every
 * stream's events and quarantine for more after each flush and most often finds nothing; each such read prepared and
 * ran a statement on a reader connection, a quarter or more of the flush threads' CPU under single-event publishes.
 */
final class EventReader {

    private final LogConnections connections;
    /** The heads the writer published last, by stream. */
    private final Map<String, StreamHead> heads;
    /** Completed by the writer when a stream advances; long polls wait on them. */
    private final Map<String, AtomicReference<CompletableFuture<Void>>> advances;

    EventReader(LogConnections connections, Map<String, StreamHead> heads,
            Map<String, AtomicReference<CompletableFuture<Void>>> advances) {
        this.connections = connections;
        this.heads = heads;
        this.advances = advances;
    }

    List<LogEntry> read(String stream, long afterOffset, int limit, long maxBytes, Duration wait)
            throws InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        while (true) {
            AtomicReference<CompletableFuture<Void>> advance =
                    advances.computeIfAbsent(stream, name -> new AtomicReference<>(new CompletableFuture<>()));
            CompletableFuture<Void> next = advance.get();
            StreamHead head = heads.get(stream);
            List<LogEntry> entries = head != null && afterOffset >= head.head() ? List.of()
                    : query(stream, false, afterOffset, limit, maxBytes, PayloadAllowance.UNLIMITED);
            long remaining = deadline - System.nanoTime();
            if (!entries.isEmpty() || remaining <= 0) {
                return entries;
            }
            try {
                next.get(remaining, TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                return List.of();
            } catch (ExecutionException e) {
                throw new IllegalStateException("unreachable: head advances never fail", e);
            }
        }
    }

    /** A page that asks {@code allowance} before it fetches each payload, and never waits. */
    List<LogEntry> read(String stream, long afterOffset, int limit, long maxBytes, PayloadAllowance allowance) {
        StreamHead head = heads.get(stream);
        return head != null && afterOffset >= head.head() ? List.of()
                : query(stream, false, afterOffset, limit, maxBytes, allowance);
    }

    List<QuarantineEntry> readQuarantine(String stream, long afterSeq, int limit, long maxBytes) {
        return readQuarantine(stream, afterSeq, limit, maxBytes, PayloadAllowance.UNLIMITED);
    }

    List<QuarantineEntry> readQuarantine(String stream, long afterSeq, int limit, long maxBytes,
            PayloadAllowance allowance) {
        StreamHead head = heads.get(stream);
        if (head != null && afterSeq >= head.quarantineHead()) {
            return List.of();
        }
        return quarantine(stream, "seq > ? ORDER BY seq LIMIT ?", select -> {
            select.setLong(2, afterSeq);
            select.setInt(3, limit);
        }, maxBytes, allowance);
    }

    List<QuarantineEntry> replayedBy(String stream, String requestId, int limit) {
        return quarantine(stream, "replayed_by = ? ORDER BY seq LIMIT ?", select -> {
            select.setString(2, requestId);
            select.setInt(3, limit);
        }, Long.MAX_VALUE, PayloadAllowance.UNLIMITED);
    }

    /**
     * Quarantined entries of {@code stream} matching {@code condition}, whose parameters start at 2, up to and
     * including the one whose payload brings the total to {@code maxBytes}, and before the first whose payload
     * {@code allowance} refuses.
     */
    private List<QuarantineEntry> quarantine(String stream, String condition, Parameters parameters,
            long maxBytes, PayloadAllowance allowance) {
        return connections.withReader("read the quarantine of " + stream, reader -> {
            try (PreparedStatement select = reader.prepareStatement("SELECT seq, request_id, ingested_at,"
                    + " schema_version, payload, errors, replayed_offset, replayed_by, replayed_at, length(payload),"
                    + " replayed_partition"
                    + " FROM quarantine"
                    + " WHERE stream_id = (SELECT id FROM streams WHERE name = ?) AND " + condition)) {
                select.setString(1, stream);
                parameters.set(select);
                List<QuarantineEntry> entries = new ArrayList<>();
                long bytes = 0;
                try (ResultSet rows = select.executeQuery()) {
                    while (bytes < maxBytes && rows.next()) {
                        if (!allowance.admit(rows.getLong(10))) {
                            break;
                        }
                        String replayedBy = rows.getString(8);
                        QuarantineEntry.Replay replay = replayedBy == null ? null
                                : new QuarantineEntry.Replay(rows.getLong(7), replayedBy, rows.getLong(9),
                                        rows.getInt(11));
                        byte[] payload = rows.getBytes(5);
                        entries.add(new QuarantineEntry(stream, rows.getLong(1), rows.getString(2), rows.getLong(3),
                                rows.getString(4), payload, rows.getString(6), replay));
                        bytes += payload.length;
                    }
                }
                return entries;
            }
        });
    }

    @FunctionalInterface
    private interface Parameters {
        void set(PreparedStatement statement) throws SQLException;
    }

    long firstOffsetSince(String stream, long epochMicros) {
        StreamHead head = heads.get(stream);
        if (head == null) {
            return 1;
        }
        return connections.withReader("read stream " + stream, reader -> {
            // Offsets follow arrival closely, so the scan in offset order stops right after the expired entries.
            try (PreparedStatement select = reader.prepareStatement("SELECT \"offset\" FROM events"
                    + " WHERE stream_id = (SELECT id FROM streams WHERE name = ?) AND ingested_at >= ?"
                    + " ORDER BY \"offset\" LIMIT 1")) {
                select.setString(1, stream);
                select.setLong(2, epochMicros);
                try (ResultSet row = select.executeQuery()) {
                    return row.next() ? row.getLong(1) : head.head() + 1;
                }
            }
        });
    }

    List<LogEntry> latest(String stream, int limit, long maxBytes, PayloadAllowance allowance) {
        return query(stream, true, 0, limit, maxBytes, allowance);
    }

    private static final String EVENTS = "SELECT \"offset\", request_id, ingested_at, schema_version, payload"
            + " FROM events WHERE stream_id = (SELECT id FROM streams WHERE name = ?)";
    private static final String SIZES = "SELECT \"offset\", length(payload)"
            + " FROM events WHERE stream_id = (SELECT id FROM streams WHERE name = ?)";
    private static final String AFTER = " AND \"offset\" > ? ORDER BY \"offset\" LIMIT ?";
    private static final String NEWEST = " AND \"offset\" > ? ORDER BY \"offset\" DESC LIMIT ?";
    private static final String BETWEEN = " AND \"offset\" BETWEEN ? AND ? ORDER BY \"offset\"";

    /**
     * The events after {@code afterOffset} (the newest first when {@code newest}), up to and including the one whose
     * payload brings the total to {@code maxBytes}, and before the first whose payload {@code allowance} refuses.
     * With an allowance, the payloads' lengths are read first (SQLite reads a blob's length without its bytes) and
     * only the admitted events are fetched, so that a refused read costs no payload's bytes.
     */
    private List<LogEntry> query(String stream, boolean newest, long afterOffset, int limit, long maxBytes,
            PayloadAllowance allowance) {
        String order = newest ? NEWEST : AFTER;
        if (allowance == PayloadAllowance.UNLIMITED) {
            return entries(stream, EVENTS + order, select -> {
                select.setLong(2, afterOffset);
                select.setInt(3, limit);
            }, maxBytes);
        }
        long first = -1;
        long last = -1;
        Connection reader = connections.borrowReader();
        try (PreparedStatement select = reader.prepareStatement(SIZES + order)) {
            select.setString(1, stream);
            select.setLong(2, afterOffset);
            select.setInt(3, limit);
            long bytes = 0;
            try (ResultSet rows = select.executeQuery()) {
                while (bytes < maxBytes && rows.next()) {
                    long size = rows.getLong(2);
                    if (!allowance.admit(size)) {
                        break;
                    }
                    if (first < 0) {
                        first = rows.getLong(1);
                    }
                    last = rows.getLong(1);
                    bytes += size;
                }
            }
        } catch (SQLException e) {
            throw new LogUnavailableException("cannot read stream " + stream + ": " + e.getMessage(), e);
        } finally {
            connections.returnReader(reader);
        }
        if (first < 0) {
            return List.of();
        }
        long low = Math.min(first, last);
        long high = Math.max(first, last);
        // Offsets are dense: the events between the first and the last admitted are the admitted ones.
        return entries(stream, EVENTS + BETWEEN + (newest ? " DESC" : ""), select -> {
            select.setLong(2, low);
            select.setLong(3, high);
        }, Long.MAX_VALUE);
    }

    /** The entries {@code sql} selects, up to and including the one whose payload brings the total to maxBytes. */
    private List<LogEntry> entries(String stream, String sql, Parameters parameters, long maxBytes) {
        return connections.withReader("read stream " + stream, reader -> {
            try (PreparedStatement select = reader.prepareStatement(sql)) {
                select.setString(1, stream);
                parameters.set(select);
                List<LogEntry> entries = new ArrayList<>();
                long bytes = 0;
                // SQLite steps through the rows as they are fetched: stopping early reads no further.
                try (ResultSet rows = select.executeQuery()) {
                    while (bytes < maxBytes && rows.next()) {
                        byte[] payload = rows.getBytes(5);
                        entries.add(new LogEntry(stream, rows.getLong(1), rows.getString(2), rows.getLong(3),
                                rows.getString(4), payload));
                        bytes += payload.length;
                    }
                }
                return entries;
            }
        });
    }

    long offsetOfKey(String stream, String key) {
        return connections.withReader("look up key " + key + " in " + stream, reader -> {
            // No index on the key (the publish path would pay for it): this scans the stream's stored events.
            try (PreparedStatement select = reader.prepareStatement("SELECT max(\"offset\") FROM events"
                    + " WHERE stream_id = (SELECT id FROM streams WHERE name = ?) AND key_hash = ?"
                    + " AND dedup_key = ?")) {
                select.setString(1, stream);
                select.setLong(2, dev.interlace.runtime.dedup.KeyHash.of(key));
                select.setString(3, key);
                try (ResultSet row = select.executeQuery()) {
                    return row.next() ? row.getLong(1) : 0;
                }
            }
        });
    }
}
