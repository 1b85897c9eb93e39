package dev.interlace.runtime.log;

import dev.interlace.runtime.ops.SqlWhere;
import dev.interlace.runtime.ops.TraceParent;
import dev.interlace.runtime.records.RecordPages;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Reads publish records on a reader connection: from the {@code publishes} table, and from the event rows whose
 * records the writer has not copied there yet, in one snapshot.
 */
final class PublishRecordReader {

    /** Log lines keep the name of the log they come from. */
    private static final Logger LOG = Logger.getLogger(SqliteStreamLog.class.getName());

    private final LogConnections connections;

    PublishRecordReader(LogConnections connections) {
        this.connections = connections;
    }

    PublishRecord.Page publishes(PublishRecord.Filter filter) {
        // Two places hold publish records: the publishes table, and the event rows whose records are not copied there
        // yet (at most the last quarter of a second of them, see copyPublishes). Both are read from one snapshot.
        // The request and trace indexes up to where they go, then the few records written since.
        String ownRequest = filter.traceId() == null ? null : TraceParent.requestIdOf(filter.traceId());
        SqlWhere where = new SqlWhere(" FROM publishes p JOIN streams s ON s.id = p.stream_id WHERE 1 = 1")
                .and("s.name = ?", filter.stream())
                .and("p.id IN (SELECT publish_id FROM publish_ids WHERE request_id = ? UNION ALL"
                        + " SELECT id FROM publishes WHERE id > (SELECT indexed_through FROM publish_index)"
                        + " AND request_id = ?)", filter.requestId())
                // A trace id stored in full is in the trace index; one that is its request's own (stored empty,
                // see PublishIndex.storedTraceId) is found by that request id.
                .andInOrder("p.id IN (SELECT publish_id FROM publish_trace_ids WHERE trace_id = ? UNION ALL"
                        + " SELECT id FROM publishes WHERE id > (SELECT indexed_through FROM publish_index)"
                        + " AND trace_id = ? UNION ALL"
                        + " SELECT i.publish_id FROM publish_ids i JOIN publishes q ON q.id = i.publish_id"
                        + " WHERE i.request_id = ? AND q.trace_id = '' UNION ALL"
                        + " SELECT id FROM publishes WHERE id > (SELECT indexed_through FROM publish_index)"
                        + " AND request_id = ? AND trace_id = '')", filter.traceId(), filter.traceId(), ownRequest,
                        ownRequest)
                .and("p.received_at >= ?", filter.sinceMicros())
                .and("p.received_at < ?", filter.untilMicros());
        SqlWhere tailWhere = new SqlWhere(" FROM events e JOIN streams s ON s.id = e.stream_id"
                + " LEFT JOIN publish_copy pc ON pc.stream_id = e.stream_id"
                + " WHERE e.\"offset\" > coalesce(pc.through_offset, 0) AND e.publish IS NOT NULL")
                .and("s.name = ?", filter.stream())
                .and("e.request_id = ?", filter.requestId())
                .andInOrder("(json_extract(e.publish, '$[12]') = ? OR e.request_id = ?"
                        + " AND json_extract(e.publish, '$[12]') = '')", filter.traceId(), ownRequest)
                .and("e.ingested_at >= ?", filter.sinceMicros())
                .and("e.ingested_at < ?", filter.untilMicros());
        Connection reader = connections.borrowReader();
        try {
            // Count and page in one read transaction: one snapshot, so the total never disagrees with the items.
            reader.setAutoCommit(false);
        } catch (SQLException e) {
            connections.returnReader(reader);
            throw new LogUnavailableException("cannot read publish records: " + e.getMessage(), e);
        }
        try (PreparedStatement count = reader.prepareStatement("SELECT count(*)" + where);
                PreparedStatement select = reader.prepareStatement("SELECT p.request_id, s.name, p.accepted,"
                        + " p.deduplicated, p.quarantined, p.first_offset, p.last_offset, p.duplicate_offsets,"
                        + " p.first_seq, p.last_seq, p.received_at, p.committed_at, p.id, p.key_id, p.key_name,"
                        + " p.trace_id"
                        + where
                        + " ORDER BY p.id DESC LIMIT ?");
                PreparedStatement tail = reader.prepareStatement("SELECT e.request_id, s.name,"
                        + " json_extract(e.publish, '$[1]'), json_extract(e.publish, '$[2]'),"
                        + " json_extract(e.publish, '$[3]'), json_extract(e.publish, '$[4]'),"
                        + " json_extract(e.publish, '$[5]'), nullif(json_extract(e.publish, '$[9]'), ''),"
                        + " json_extract(e.publish, '$[7]'), json_extract(e.publish, '$[8]'), e.ingested_at,"
                        + " json_extract(e.publish, '$[6]'), json_extract(e.publish, '$[0]'),"
                        + " json_extract(e.publish, '$[10]'), json_extract(e.publish, '$[11]'),"
                        + " json_extract(e.publish, '$[12]')" + tailWhere)) {
            where.bind(count);
            select.setInt(where.bind(select), filter.limit());
            tailWhere.bind(tail);
            long total = RecordPages.count(count);
            List<long[]> order = new ArrayList<>(); // {id, index into records}
            List<PublishRecord> records = new ArrayList<>();
            for (PreparedStatement statement : List.of(tail, select)) {
                try (ResultSet rows = statement.executeQuery()) {
                    while (rows.next()) {
                        order.add(new long[] {rows.getLong(13), records.size()});
                        records.add(publishRecord(rows));
                        if (statement == tail) {
                            total++;
                        }
                    }
                }
            }
            order.sort((a, b) -> Long.compare(b[0], a[0]));
            List<PublishRecord> newestFirst = new ArrayList<>();
            for (int i = 0; i < Math.min(order.size(), filter.limit()); i++) {
                newestFirst.add(records.get((int) order.get(i)[1]));
            }
            return new PublishRecord.Page(newestFirst, total);
        } catch (SQLException e) {
            throw new LogUnavailableException("cannot read publish records: " + e.getMessage(), e);
        } finally {
            try {
                reader.rollback();
                reader.setAutoCommit(true);
            } catch (SQLException e) {
                LOG.log(Level.FINE, "ending a read transaction failed", e);
            }
            connections.returnReader(reader);
        }
    }

    /**
     * {@link PublishRecords#traceIds}: the records ride on each request's last event row, so the rows from
     * {@code afterOffset} on are read until a record's first offset passes {@code throughOffset}.
     */
    List<String> traceIds(String stream, long afterOffset, long throughOffset) {
        return connections.withReader("read trace ids", reader -> {
            try (PreparedStatement select = reader.prepareStatement("SELECT json_extract(e.publish, '$[4]'),"
                    + " json_extract(e.publish, '$[12]'), e.request_id"
                    + " FROM events e JOIN streams s ON s.id = e.stream_id"
                    + " WHERE s.name = ? AND e.\"offset\" > ? AND e.publish IS NOT NULL ORDER BY e.\"offset\"")) {
                select.setString(1, stream);
                select.setLong(2, afterOffset);
                List<String> traceIds = new ArrayList<>();
                try (ResultSet rows = select.executeQuery()) {
                    while (rows.next() && rows.getLong(1) <= throughOffset) {
                        String traceId = PublishIndex.traceIdOf(rows.getString(3), rows.getString(2));
                        if (traceId != null) {
                            traceIds.add(traceId);
                        }
                    }
                }
                return traceIds;
            }
        });
    }

    /** A publish record from a row of either query of {@link #publishes}. */
    private static PublishRecord publishRecord(ResultSet rows) throws SQLException {
        List<Long> duplicates = new ArrayList<>();
        String text = rows.getString(8);
        if (text != null && !text.isEmpty()) {
            for (String offset : text.split(",")) {
                duplicates.add(Long.parseLong(offset));
            }
        }
        return new PublishRecord(rows.getString(1), rows.getString(2), rows.getLong(3), rows.getLong(4),
                rows.getLong(5), rows.getLong(6), rows.getLong(7), duplicates, rows.getLong(9), rows.getLong(10),
                rows.getLong(11), rows.getLong(12), rows.getString(14), rows.getString(15),
                PublishIndex.traceIdOf(rows.getString(1), rows.getString(16)));
    }
}
