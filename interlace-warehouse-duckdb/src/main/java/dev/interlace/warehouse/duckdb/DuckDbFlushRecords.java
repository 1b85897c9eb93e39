package dev.interlace.warehouse.duckdb;

import dev.interlace.runtime.ops.TraceIds;
import dev.interlace.runtime.records.RecordPages;
import dev.interlace.runtime.warehouse.FlushRecord;
import dev.interlace.runtime.warehouse.FlushRecords;
import dev.interlace.runtime.warehouse.StreamTables.WarehouseException;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import org.duckdb.DuckDBConnection;

/** Flush records in DuckDB: {@code interlace.flushes}, one row per batch written or failed; times in UTC. */
final class DuckDbFlushRecords implements FlushRecords {


    private final DuckDbConnections connections;

    DuckDbFlushRecords(DuckDbConnections connections) {
        this.connections = connections;
    }

    /** Prepared once per connection ({@link DuckDbConnections#prepared}): every flush writes a record. */
    private static final String INSERT = "INSERT INTO interlace.flushes (flush_id, stream, target, first_offset,"
            + " last_offset, \"rows\", started_at, committed_at, error, trace_ids, trace_count)"
            + " VALUES (?, ?, ?, ?, ?, ?, make_timestamp(?), make_timestamp(?), ?, ?, ?)";

    /**
     * Inserts a flush record on {@code c}, a connection borrowed from {@code connections}; a committed batch's commit
     * time is now (UTC, like every stored time).
     */
    static void insert(DuckDbConnections connections, DuckDBConnection c, FlushRecord record, boolean committed)
            throws SQLException {
        PreparedStatement insert = connections.prepared(c, INSERT);
        insert.setString(1, record.id());
        insert.setString(2, record.stream());
        insert.setString(3, record.target().kind());
        insert.setLong(4, record.firstOffset());
        insert.setLong(5, record.lastOffset());
        insert.setLong(6, record.rows());
        insert.setLong(7, record.startedAtMicros());
        if (committed) {
            insert.setLong(8, Sql.nowMicros());
        } else {
            insert.setNull(8, java.sql.Types.BIGINT);
        }
        insert.setString(9, record.error());
        insert.setString(10, record.traces().joined());
        insert.setLong(11, record.traces().count());
        insert.executeUpdate();
    }

    @Override
    public void recordFailedFlush(FlushRecord record) {
        DuckDBConnection c = connections.borrow();
        try {
            insert(connections, c, record, false);
        } catch (SQLException e) {
            throw new WarehouseException("cannot record the failed flush " + record.id() + ": " + e.getMessage(), e);
        } finally {
            connections.release(c);
        }
    }

    @Override
    public FlushRecord.Page flushes(FlushRecord.Filter filter) {
        String where = " FROM interlace.flushes WHERE stream = ? AND target = ? AND first_offset <= ?"
                + " AND last_offset >= ?";
        DuckDBConnection c = connections.borrow();
        try {
            c.setAutoCommit(false); // count and page from one snapshot
        } catch (SQLException e) {
            connections.release(c);
            throw new WarehouseException("cannot read flush records: " + e.getMessage(), e);
        }
        try (PreparedStatement count = c.prepareStatement("SELECT count(*)" + where);
                PreparedStatement select = c.prepareStatement("SELECT flush_id, first_offset, last_offset, \"rows\","
                        + " epoch_us(started_at), coalesce(epoch_us(committed_at), 0), error, trace_ids,"
                        + " coalesce(trace_count, 0)" + where
                        + " ORDER BY started_at, first_offset LIMIT ?")) {
            for (PreparedStatement statement : List.of(count, select)) {
                statement.setString(1, filter.target().stream());
                statement.setString(2, filter.target().kind());
                statement.setLong(3, filter.toOffset());
                statement.setLong(4, filter.fromOffset());
            }
            select.setInt(5, filter.limit());
            long total = RecordPages.count(count);
            List<FlushRecord> records = RecordPages.rows(select, row -> new FlushRecord(row.getString(1),
                    filter.target(), row.getLong(2), row.getLong(3), row.getLong(4), row.getLong(5), row.getLong(6),
                    row.getString(7), TraceIds.parse(row.getString(8), row.getLong(9))));
            return new FlushRecord.Page(records, total);
        } catch (SQLException e) {
            throw new WarehouseException("cannot read flush records: " + e.getMessage(), e);
        } finally {
            DuckDbConnections.rollbackQuietly(c);
            connections.releaseAfterTransaction(c);
        }
    }

    @Override
    public long trimFlushes(long beforeMicros) {
        DuckDBConnection c = connections.borrow();
        try (PreparedStatement delete = c.prepareStatement(
                "DELETE FROM interlace.flushes WHERE started_at < make_timestamp(?)")) {
            delete.setLong(1, beforeMicros);
            return delete.executeUpdate();
        } catch (SQLException e) {
            throw new WarehouseException("cannot remove expired flush records: " + e.getMessage(), e);
        } finally {
            connections.release(c);
        }
    }
}
