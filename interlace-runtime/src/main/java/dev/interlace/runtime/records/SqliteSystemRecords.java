package dev.interlace.runtime.records;

import dev.interlace.runtime.ops.DaemonThreads;
import dev.interlace.runtime.ops.EpochMicros;
import dev.interlace.runtime.ops.SqlWhere;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * System records in {@code <data-dir>/records.sqlite}, a database of their own so that writing them never takes the
 * stream log's write lock. One background thread writes whatever is queued in one transaction every 200 ms (WAL,
 * {@code synchronous=NORMAL}: a crash may lose the last fraction of a second of records, never an event) and deletes
 * records older than the record retention once a minute.
 */
public final class SqliteSystemRecords implements SystemRecords {

    private static final Logger LOG = Logger.getLogger(SqliteSystemRecords.class.getName());
    private static final long BATCH_MILLIS = 200;
    private static final long SWEEP_MICROS = 60_000_000L;

    private final Path file;
    private final long retentionMicros;
    private final Clock clock;
    private final Connection writer;
    private final LinkedBlockingQueue<SysRecord> queue = new LinkedBlockingQueue<>();
    private final Object progress = new Object();
    private final Thread thread;
    private long queued;
    private long written;
    private long lastSweepMicros;
    private volatile boolean closed;

    public SqliteSystemRecords(Path dataDirectory, long retentionMicros, Clock clock) {
        this.file = dataDirectory.resolve("records.sqlite");
        this.retentionMicros = retentionMicros;
        this.clock = clock;
        try {
            writer = open();
            try (Statement statement = writer.createStatement()) {
                statement.execute("CREATE TABLE IF NOT EXISTS sys_records ("
                        + " seq INTEGER PRIMARY KEY,"
                        + " at INTEGER NOT NULL,"
                        + " event TEXT NOT NULL,"
                        + " stream TEXT,"
                        + " id TEXT NOT NULL,"
                        + " message TEXT NOT NULL)");
                statement.execute("CREATE INDEX IF NOT EXISTS sys_records_by_time ON sys_records(at)");
            }
            writer.setAutoCommit(false);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot open the system records " + file + ": " + e.getMessage(), e);
        }
        thread = DaemonThreads.thread(this::run, "interlace-records");
        thread.start();
    }

    private Connection open() throws SQLException {
        Properties properties = new Properties();
        properties.setProperty("journal_mode", "WAL");
        properties.setProperty("synchronous", "NORMAL");
        properties.setProperty("busy_timeout", "10000");
        return DriverManager.getConnection("jdbc:sqlite:" + file, properties);
    }

    @Override
    public void record(SysRecord record) {
        synchronized (progress) {
            if (closed) {
                LOG.info("system record after close (not stored): " + record);
                return;
            }
            queued++;
            queue.add(record);
        }
    }

    @Override
    public List<String> snapshotInto(Path directory) throws java.io.IOException {
        awaitWritten();
        Path copy = directory.resolve(file.getFileName());
        try (Connection reader = open(); java.sql.PreparedStatement vacuum = reader.prepareStatement("VACUUM INTO ?")) {
            vacuum.setString(1, copy.toString());
            vacuum.execute();
        } catch (SQLException e) {
            throw new java.io.IOException("cannot copy the system records to " + copy + ": " + e.getMessage(), e);
        }
        return List.of(file.getFileName().toString());
    }

    @Override
    public SysRecord.Page list(SysRecord.Filter filter) {
        awaitWritten();
        SqlWhere where = new SqlWhere(" FROM sys_records WHERE 1 = 1")
                .and("event = ?", filter.event())
                .and("stream = ?", filter.stream())
                .and("id = ?", filter.id())
                .and("at >= ?", filter.sinceMicros())
                .and("at < ?", filter.untilMicros());
        try (Connection reader = open()) {
            reader.setAutoCommit(false); // count and page from one snapshot
            return list(reader, where, filter.limit());
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read the system records: " + e.getMessage(), e);
        }
    }

    private static SysRecord.Page list(Connection reader, SqlWhere where, int limit) throws SQLException {
        try (PreparedStatement count = reader.prepareStatement("SELECT count(*)" + where);
                PreparedStatement select = reader.prepareStatement("SELECT seq, at, event, stream, id, message"
                        + where + " ORDER BY seq DESC LIMIT ?")) {
            where.bind(count);
            select.setInt(where.bind(select), limit);
            long total = RecordPages.count(count);
            List<SysRecord> records = RecordPages.rows(select, row -> new SysRecord(row.getLong(1), row.getLong(2),
                    row.getString(3), row.getString(4), row.getString(5), row.getString(6)));
            return new SysRecord.Page(records, total);
        }
    }

    /** Waits (at most 5 s) until everything queued before the call is written, so a list includes it. */
    private void awaitWritten() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        synchronized (progress) {
            long target = queued;
            while (written < target && !closed && System.nanoTime() < deadline) {
                try {
                    progress.wait(50);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private void run() {
        while (true) {
            try {
                Thread.sleep(BATCH_MILLIS); // a burst collects into one transaction
            } catch (InterruptedException e) {
                // closing: write what is queued and stop
            }
            try {
                List<SysRecord> batch = new ArrayList<>();
                queue.drainTo(batch);
                write(batch);
                if (closed && queue.isEmpty()) {
                    return;
                }
                sweep();
            } catch (RuntimeException | Error e) {
                LOG.log(Level.WARNING, "the system records writer failed; it goes on", e);
            }
        }
    }

    private void write(List<SysRecord> batch) {
        if (batch.isEmpty()) {
            return;
        }
        try (PreparedStatement insert = writer.prepareStatement(
                "INSERT INTO sys_records(at, event, stream, id, message) VALUES (?, ?, ?, ?, ?)")) {
            for (SysRecord record : batch) {
                insert.setLong(1, record.atMicros());
                insert.setString(2, record.event());
                insert.setString(3, record.stream());
                insert.setString(4, record.id());
                insert.setString(5, record.message());
                insert.addBatch();
            }
            insert.executeBatch();
            writer.commit();
        } catch (SQLException e) {
            try {
                writer.rollback();
            } catch (SQLException ignored) {
                // the connection is unusable; the next batch reports again
            }
            LOG.log(Level.WARNING, "could not store " + batch.size() + " system records: " + batch, e);
        } finally {
            synchronized (progress) {
                written += batch.size();
                progress.notifyAll();
            }
        }
    }

    private void sweep() {
        long now = micros();
        if (retentionMicros <= 0 || now - lastSweepMicros < SWEEP_MICROS) {
            return;
        }
        lastSweepMicros = now;
        try (PreparedStatement delete = writer.prepareStatement("DELETE FROM sys_records WHERE at < ?")) {
            delete.setLong(1, now - retentionMicros);
            delete.executeUpdate();
            writer.commit();
        } catch (SQLException e) {
            LOG.log(Level.WARNING, "could not remove expired system records", e);
        }
    }

    private long micros() {
        return EpochMicros.now(clock);
    }

    /** Writes what is queued and closes the database. */
    @Override
    public void close() {
        synchronized (progress) {
            closed = true; // from now on nothing is queued, so the thread's last drain takes everything
        }
        thread.interrupt();
        DaemonThreads.join(thread, Duration.ofSeconds(30));
        if (thread.isAlive()) {
            LOG.warning("the system records writer did not stop within 30 s; its connection is left open");
            return;
        }
        try {
            writer.close();
        } catch (SQLException e) {
            LOG.log(Level.FINE, "closing the system records failed", e);
        }
    }
}
