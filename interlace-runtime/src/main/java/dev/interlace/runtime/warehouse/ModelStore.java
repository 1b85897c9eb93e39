package dev.interlace.runtime.warehouse;

import dev.interlace.annotations.Materialise;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;

/**
 * Where models are materialised: each model's output relation and its watermarks (how far into each stream it has
 * read). The model runner decides what runs when; this decides how a model's output is written, in the engine's
 * dialect.
 */
public interface ModelStore {

    /** Creates what the store needs to keep model watermarks; idempotent. */
    void prepareModels();

    /** Whether the model's output relation exists. */
    boolean modelExists(String schema, String name);

    /** How far into {@code stream} the model has read: the stream watermark its last committed run read up to. */
    long modelWatermark(String model, String stream);

    /** Whether any of {@code streams} has committed rows past the model's watermark for it (the model is stale). */
    boolean isBehindStreams(String model, List<String> streams);

    /**
     * Brings one model up to date in one transaction: reads the watermarks of the streams it reads (first, so they
     * come from the same snapshot as the rows read), writes its output (a view, a whole table, or for incremental
     * models the rows the streams gained since the model's watermarks, replacing rows of the same unique key), then
     * its new watermarks, and commits.
     *
     * @return the rows written (the table's size for table models, new rows for incremental ones, 0 for views)
     * @throws SQLException when the database refused a statement; nothing was committed
     */
    long materialise(ModelOutput model, Steps steps) throws SQLException;

    /**
     * A model as the store materialises it.
     *
     * @param streams the streams it reads, whose watermarks it records
     * @param sql its SELECT, for SQL models; null for Java ones
     * @param uniqueKey for incremental models, the column whose new values replace old rows; else null
     * @param java the Java model's body; null for SQL models
     */
    record ModelOutput(String schema, String name, Materialise materialise, String sql, String uniqueKey,
            List<String> streams, JavaBody java) {}

    /** A Java model's body, run inside the model's transaction. */
    @FunctionalInterface
    interface JavaBody {
        /** Writes the model's output on {@code connection}; {@code deltas} is empty unless it is incremental. */
        long run(Connection connection, Map<String, Delta> deltas) throws SQLException;
    }

    /** The offsets of a stream an incremental run reads: after {@code afterOffset}, through {@code throughOffset}. */
    record Delta(String stream, long afterOffset, long throughOffset) {}

    /** Told of the steps inside a model's transaction (the crash tests stop there). */
    interface Steps {
        /** An incremental model's output rows are written; its watermarks are next. */
        void afterOutput(long rows);

        /** The output and watermarks are written; the commit is next. */
        void beforeCommit();
    }
}
