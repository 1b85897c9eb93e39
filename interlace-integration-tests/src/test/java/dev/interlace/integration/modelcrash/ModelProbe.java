package dev.interlace.integration.modelcrash;

import dev.interlace.integration.crash.Halt;
import dev.interlace.runtime.model.ModelListener;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The child's {@link ModelListener}: on the model thread, inside the model's own transaction, it records which
 * offsets of {@code streams.clicks} this batch of {@code clicks_enriched} processed (the audit), and it halts the
 * process at the configured fault point on the N-th batch that processed at least one row.
 *
 * <p>The audit rows are written on the model's connection (found through {@link ProbedWarehouse}, which hands out
 * the connections), so they commit or roll back with the model's output: the audit is a record of committed
 * processing. Production commits output and watermark together, so after any crash each offset appears in the audit
 * once; when output commits without its watermark (the negative control), the re-processed batch appears twice
 * although the upsert on {@code click_id} leaves the model table itself looking clean.
 */
final class ModelProbe implements ModelListener {

    static final String MODEL = "clicks_enriched";
    static final String STREAM = "clicks";

    static final String AUDIT_SCHEMA = "modelcrash_audit";
    static final String[] AUDIT_DDL = {
        "CREATE SCHEMA IF NOT EXISTS " + AUDIT_SCHEMA,
        "CREATE TABLE IF NOT EXISTS " + AUDIT_SCHEMA + ".processed (click_offset BIGINT NOT NULL,"
                + " pid BIGINT NOT NULL, attempt BIGINT NOT NULL)",
        "CREATE TABLE IF NOT EXISTS " + AUDIT_SCHEMA + ".batches (pid BIGINT NOT NULL, attempt BIGINT NOT NULL,"
                + " from_watermark BIGINT NOT NULL, reported_rows BIGINT NOT NULL, audited_rows BIGINT NOT NULL)"
    };

    private static final long PID = ProcessHandle.current().pid();

    private final ModelFault fault;
    private final int trigger;
    /** Batches of {@value #MODEL} that processed rows, counted from 1. */
    private final AtomicInteger batches = new AtomicInteger();
    private final AtomicLong attempts = new AtomicLong();
    /** The open connection {@link ProbedWarehouse} handed to this thread (the model run's). */
    private final ThreadLocal<Connection> connection = new ThreadLocal<>();
    /** The batch of {@value #MODEL} written in this thread's open transaction, if any. */
    private final ThreadLocal<Batch> batch = new ThreadLocal<>();

    /** One batch: the committed model watermark it started from and the rows it reported. */
    record Batch(int hit, long attempt, long from, long rows) {}

    ModelProbe(ModelFault fault, int trigger) {
        this.fault = fault;
        this.trigger = Halt.trigger(trigger);
    }

    ModelFault fault() {
        return fault;
    }

    // ------------------------------------------------------------------ called by ProbedWarehouse/ProbedConnection

    void opened(Connection c) {
        connection.set(c);
        batch.remove();
    }

    void closed(Connection c) {
        if (connection.get() == c) {
            connection.remove();
            batch.remove();
        }
    }

    /** {@code commit()} is about to reach DuckDB on {@code c} (the real connection). */
    void beforeRealCommit(Connection c) {
        Batch current = batch.get();
        batch.remove();
        if (fault == ModelFault.AT_COMMIT && current != null && current.hit == trigger) {
            halt(current, c);
        }
    }

    // ------------------------------------------------------------------------------------------ ModelListener

    @Override
    public void afterOutput(String model, long rows) {
        if (!model.equals(MODEL)) {
            return;
        }
        Connection c = connection.get();
        if (c == null) {
            throw new IllegalStateException("modelcrash probe: no connection of the model run on "
                    + Thread.currentThread().getName());
        }
        long attempt = attempts.incrementAndGet();
        try {
            long from = modelWatermark(c);
            long audited;
            // The rows this batch wrote: the model keeps each click's offset, and everything up to the committed
            // model watermark was written by earlier batches. (If a row past the watermark had been committed
            // before, it would be audited twice — exactly what the oracle looks for.)
            try (PreparedStatement insert = c.prepareStatement("INSERT INTO " + AUDIT_SCHEMA + ".processed"
                    + " SELECT click_offset, ?, ? FROM main." + MODEL + " WHERE click_offset > ?")) {
                insert.setLong(1, PID);
                insert.setLong(2, attempt);
                insert.setLong(3, from);
                audited = insert.executeUpdate();
            }
            try (PreparedStatement insert = c.prepareStatement("INSERT INTO " + AUDIT_SCHEMA + ".batches"
                    + " VALUES (?, ?, ?, ?, ?)")) {
                insert.setLong(1, PID);
                insert.setLong(2, attempt);
                insert.setLong(3, from);
                insert.setLong(4, rows);
                insert.setLong(5, audited);
                insert.executeUpdate();
            }
            if (rows == 0) {
                return;
            }
            Batch current = new Batch(batches.incrementAndGet(), attempt, from, rows);
            batch.set(current);
            if ((fault == ModelFault.AFTER_OUTPUT || fault == ModelFault.OUTPUT_COMMITTED_ALONE)
                    && current.hit == trigger) {
                halt(current, c);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("modelcrash probe: cannot audit " + MODEL + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void beforeCommit(String model) {
        if (!model.equals(MODEL)) {
            return;
        }
        Batch current = batch.get();
        if (fault == ModelFault.BEFORE_COMMIT && current != null && current.hit == trigger) {
            halt(current, connection.get());
        }
    }

    // ------------------------------------------------------------------------------------------------ helpers

    /** Prints the marker the parent checks and stops the process dead: no hooks, no commit, no checkpoint. */
    private void halt(Batch current, Connection c) {
        String inTransaction;
        try {
            inTransaction = Long.toString(modelWatermark(c));
        } catch (SQLException | RuntimeException e) {
            inTransaction = "unreadable(" + e.getMessage() + ")";
        }
        Halt.withMarker(ModelCrashServerMain.FAULT_FIRED + fault.argument() + " hit=" + current.hit
                + " model=" + MODEL + " pid=" + PID + " attempt=" + current.attempt + " from=" + current.from
                + " rows=" + current.rows + " watermark_in_tx=" + inTransaction);
    }

    /** The model watermark as {@code c}'s transaction sees it. */
    private static long modelWatermark(Connection c) throws SQLException {
        try (PreparedStatement select = c.prepareStatement("SELECT watermark FROM interlace.model_watermarks"
                + " WHERE model = ? AND stream = ?")) {
            select.setString(1, MODEL);
            select.setString(2, STREAM);
            try (ResultSet row = select.executeQuery()) {
                return row.next() ? row.getLong(1) : 0;
            }
        }
    }

    /** Creates the audit tables (before the model runner starts). */
    static void createAuditTables(Connection c) throws SQLException {
        try (Statement statement = c.createStatement()) {
            for (String ddl : AUDIT_DDL) {
                statement.execute(ddl);
            }
        }
    }
}
