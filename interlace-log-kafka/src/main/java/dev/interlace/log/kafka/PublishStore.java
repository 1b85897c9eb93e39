package dev.interlace.log.kafka;

import dev.interlace.runtime.log.LogUnavailableException;
import dev.interlace.runtime.log.PublishRecord;
import dev.interlace.runtime.ops.SqlWhere;
import dev.interlace.runtime.records.RecordPages;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Properties;

/**
 * The publish records this node has seen on {@code _publishes}, in the topic's order (the order their transactions
 * committed), keyed as on the topic so that a record seen twice (from the sequencer and the tailer) is kept once and
 * a tombstone removes it.
 *
 * <p>The records live in a SQLite file of this node's data directory, not in the heap: a week of publish records is
 * as many records as requests, and a node's heap must not grow with them. The file is a copy of the topic, which is
 * the authority: it is made anew each time the log opens (the tailer reads the whole compacted topic at start-up
 * anyway), so it is written without fsyncs. Writes (the tailer's and the sequencers') share one connection and are
 * committed every {@link #WRITES_PER_COMMIT} of them; a read first commits what was written, then runs on a
 * connection of its own, so that a long count does not hold up the writers.
 */
final class PublishStore implements AutoCloseable {

    /** How many writes share one transaction: SQLite's cost is per commit far more than per row. */
    private static final int WRITES_PER_COMMIT = 1_000;
    /** The most positions {@link #written} remembers for the tailer to skip: beyond them it applies records again. */
    static final int WRITTEN_POSITIONS = 65_536;

    private final Path file;
    private final Connection connection;
    private final Connection reader;
    private final PreparedStatement upsert;
    private final PreparedStatement deleteOlder;
    private final PreparedStatement delete;
    private int uncommitted;
    /**
     * The positions of the records this node's writers applied ({@link #apply(String, PublishRecord, byte[], long,
     * boolean)}) that the tailer has not read yet: it skips them rather than decode and store each record a second
     * time. Bounded by the tailer's lag, and by {@link #WRITTEN_POSITIONS} whatever it is.
     */
    private final java.util.concurrent.ConcurrentSkipListSet<Long> written =
            new java.util.concurrent.ConcurrentSkipListSet<>();

    private PublishStore(Path file) throws SQLException {
        this.file = file;
        Properties properties = new Properties();
        properties.setProperty("journal_mode", "WAL");
        properties.setProperty("synchronous", "OFF");
        properties.setProperty("busy_timeout", "10000");
        properties.setProperty("jdbc.get_generated_keys", "false");
        this.connection = DriverManager.getConnection("jdbc:sqlite:" + file, properties);
        try (Statement statement = connection.createStatement()) {
            statement.executeUpdate("CREATE TABLE publishes (key TEXT PRIMARY KEY, position INTEGER NOT NULL, "
                    + "stream TEXT NOT NULL, request_id TEXT, received_at INTEGER NOT NULL, trace_id TEXT, "
                    + "first_offset INTEGER NOT NULL, last_offset INTEGER NOT NULL, record BLOB NOT NULL)");
            statement.executeUpdate("CREATE INDEX publishes_position ON publishes (position)");
            statement.executeUpdate("CREATE INDEX publishes_stream ON publishes (stream, position)");
            statement.executeUpdate("CREATE INDEX publishes_request ON publishes (request_id)");
            statement.executeUpdate("CREATE INDEX publishes_received ON publishes (received_at)");
            statement.executeUpdate("CREATE INDEX publishes_trace ON publishes (trace_id)");
            statement.executeUpdate("CREATE INDEX publishes_offsets ON publishes (stream, last_offset)");
        }
        this.reader = DriverManager.getConnection("jdbc:sqlite:" + file, properties);
        connection.setAutoCommit(false);
        this.upsert = connection.prepareStatement("INSERT INTO publishes "
                + "(key, position, stream, request_id, received_at, trace_id, first_offset, last_offset, record)"
                + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
                + "ON CONFLICT (key) DO UPDATE SET position = excluded.position, stream = excluded.stream, "
                + "request_id = excluded.request_id, received_at = excluded.received_at, "
                + "trace_id = excluded.trace_id, first_offset = excluded.first_offset, "
                + "last_offset = excluded.last_offset, record = excluded.record "
                + "WHERE excluded.position > publishes.position");
        this.deleteOlder = connection.prepareStatement("DELETE FROM publishes WHERE key = ? AND position < ?");
        this.delete = connection.prepareStatement("DELETE FROM publishes WHERE key = ?");
    }

    /**
     * An empty store in {@code file}, replacing whatever a previous run left there (the topic it copies is read from
     * its start when the log opens).
     */
    static PublishStore create(Path file) {
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            deleteFiles(file);
            return new PublishStore(file);
        } catch (IOException | SQLException e) {
            throw new LogUnavailableException("cannot create the publish records' store " + file + ": "
                    + e.getMessage(), e);
        }
    }

    /** Keeps {@code record} (null: a tombstone) under {@code key} unless a record at a later position replaced it. */
    void apply(String key, PublishRecord record, long position) {
        apply(key, record, record == null ? null : Codec.json(record), position, false);
    }

    /**
     * Keeps {@code record}, whose JSON is {@code json} (the bytes on the topic), under {@code key} unless a record at a
     * later position replaced it; {@code ownWrite}: this node wrote it, and the tailer, which reads it later at the
     * same position, skips it ({@link #readByTailer}).
     */
    synchronized void apply(String key, PublishRecord record, byte[] json, long position, boolean ownWrite) {
        if (record == null) {
            applyTombstone(key, position);
            return;
        }
        try {
            upsert.setString(1, key);
            upsert.setLong(2, position);
            upsert.setString(3, record.stream());
            upsert.setString(4, record.requestId());
            upsert.setLong(5, record.receivedAtMicros());
            upsert.setString(6, record.traceId());
            upsert.setLong(7, record.firstOffset());
            upsert.setLong(8, record.lastOffset());
            upsert.setBytes(9, json);
            upsert.executeUpdate();
            wrote();
        } catch (SQLException e) {
            throw failed("keep a publish record", e);
        }
        if (ownWrite && written.size() < WRITTEN_POSITIONS) {
            written.add(position);
        }
    }

    /**
     * The tailer read the record at {@code position}: whether this node applied it already (then it needs nothing
     * more). The tailer reads positions in order, so those below it that it was not told of are forgotten.
     */
    boolean readByTailer(long position) {
        Long lowest;
        while ((lowest = written.pollFirst()) != null && lowest < position) {
            // applied here, but the tailer did not see it at that position (it started after): never asked again
        }
        if (lowest == null) {
            return false;
        }
        if (lowest == position) {
            return true;
        }
        written.add(lowest); // a later position: the tailer reads it later
        return false;
    }

    PublishRecord.Page page(PublishRecord.Filter filter) {
        commit();
        SqlWhere where = new SqlWhere(" FROM publishes WHERE 1 = 1")
                .and("stream = ?", filter.stream())
                .and("request_id = ?", filter.requestId())
                .and("trace_id = ?", filter.traceId())
                .and("received_at >= ?", filter.sinceMicros())
                .and("received_at < ?", filter.untilMicros());
        synchronized (reader) {
            return page(filter, where);
        }
    }

    private PublishRecord.Page page(PublishRecord.Filter filter, SqlWhere where) {
        try {
            List<PublishRecord> records;
            try (PreparedStatement select = reader.prepareStatement(
                    "SELECT record" + where + " ORDER BY position DESC LIMIT ?")) {
                select.setInt(where.bind(select), filter.limit());
                records = RecordPages.rows(select, row -> Codec.json(row.getBytes(1), PublishRecord.class));
            }
            long total;
            try (PreparedStatement count = reader.prepareStatement("SELECT count(*)" + where)) {
                where.bind(count);
                total = RecordPages.count(count);
            }
            return new PublishRecord.Page(records, total);
        } catch (SQLException e) {
            throw failed("read publish records", e);
        }
    }

    /** {@link dev.interlace.runtime.log.PublishRecords#traceIds} from the records this node has read. */
    List<String> traceIds(String stream, long afterOffset, long throughOffset) {
        commit();
        synchronized (reader) {
            try (PreparedStatement select = reader.prepareStatement("SELECT trace_id FROM publishes"
                    + " WHERE stream = ? AND last_offset > ? AND first_offset BETWEEN 1 AND ?"
                    + " AND trace_id IS NOT NULL ORDER BY last_offset")) {
                select.setString(1, stream);
                select.setLong(2, afterOffset);
                select.setLong(3, throughOffset);
                return texts(select);
            } catch (SQLException e) {
                throw failed("read trace ids", e);
            }
        }
    }

    /** At most {@code limit} keys of records received before {@code beforeMicros}, oldest first. */
    List<String> keysReceivedBefore(long beforeMicros, int limit) {
        commit();
        synchronized (reader) {
            return keysReceivedBefore(reader, beforeMicros, limit);
        }
    }

    private List<String> keysReceivedBefore(Connection reader, long beforeMicros, int limit) {
        try (PreparedStatement select = reader.prepareStatement(
                "SELECT key FROM publishes WHERE received_at < ? ORDER BY received_at LIMIT ?")) {
            select.setLong(1, beforeMicros);
            select.setInt(2, limit);
            return texts(select);
        } catch (SQLException e) {
            throw failed("find old publish records", e);
        }
    }

    /** Forgets {@code key} at once (its tombstone is on its way to the topic). */
    synchronized void remove(String key) {
        try {
            delete.setString(1, key);
            delete.executeUpdate();
            wrote();
        } catch (SQLException e) {
            throw failed("remove a publish record", e);
        }
    }

    /** A tombstone of {@code key} at {@code position}: drops the record unless a newer one replaced it. */
    synchronized void applyTombstone(String key, long position) {
        try {
            deleteOlder.setString(1, key);
            deleteOlder.setLong(2, position);
            deleteOlder.executeUpdate();
            wrote();
        } catch (SQLException e) {
            throw failed("apply a publish record's tombstone", e);
        }
    }

    /** Closes the store and removes its file: the next run makes it anew from the topic. */
    @Override
    public void close() {
        synchronized (reader) {
            synchronized (this) {
                try {
                    reader.close();
                    connection.close();
                    deleteFiles(file);
                } catch (SQLException | IOException e) {
                    // a file left behind is replaced at the next start
                }
            }
        }
    }

    /** Makes what was written visible to the reading connection. */
    private synchronized void commit() {
        try {
            if (uncommitted > 0) {
                connection.commit();
                uncommitted = 0;
            }
        } catch (SQLException e) {
            throw failed("commit publish records", e);
        }
    }

    private void wrote() throws SQLException {
        if (++uncommitted >= WRITES_PER_COMMIT) {
            connection.commit();
            uncommitted = 0;
        }
    }

    /** The first column of the rows {@code select} finds, as text. */
    private static List<String> texts(PreparedStatement select) throws SQLException {
        return RecordPages.rows(select, row -> row.getString(1));
    }

    private static void deleteFiles(Path file) throws IOException {
        for (String suffix : new String[] {"", "-wal", "-shm"}) {
            Files.deleteIfExists(file.resolveSibling(file.getFileName() + suffix));
        }
    }

    private LogUnavailableException failed(String what, SQLException e) {
        return new LogUnavailableException("cannot " + what + " in " + file + ": " + e.getMessage(), e);
    }
}
