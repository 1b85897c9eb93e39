package dev.interlace.runtime.warehouse;

import dev.interlace.runtime.stream.DecodeResult;
import dev.interlace.runtime.stream.StreamDescriptor;
import dev.interlace.runtime.stream.StreamEvent;
import java.util.List;

/**
 * The stream side of the warehouse: one table per stream ({@code streams.<name>}), its quarantine table and the
 * watermarks saying how far each is filled. Used by the flusher.
 *
 * <p>Contract: {@link #append} writes the rows and moves the watermark in one transaction, and only when the
 * watermark still has the value the caller read and the caller still holds the newest fencing token — so a crash
 * anywhere leaves both or neither, and a second or stale flusher can never insert a row twice.
 */
public interface StreamTables {

    /**
     * Creates the stream's tables, or migrates them to the declared schema (adding new nullable columns only).
     *
     * @return the stream's current watermarks
     * @throws MigrationException when the declared schema changed in a way that cannot be migrated
     */
    Positions prepare(StreamDescriptor stream);

    /**
     * Takes over flushing of {@code target} (a stream, or its quarantine) with {@code token}, the fencing token of the
     * flusher's lease on the stream in the log: records it, so that every append with an older token fails from now
     * on, and waits for an append already in progress to finish first.
     *
     * @return the target's committed watermark, read after the claim (no older flusher can move it any more)
     * @throws FencedException when a newer token is already recorded
     */
    long claim(Target target, long token);

    /**
     * Appends rows, moves the target's watermark from {@code expectedWatermark} to {@code newWatermark} and writes the
     * batch's flush record (with its commit time; none when {@code record} is null), in one transaction.
     *
     * @throws FencedException when the watermark moved or a newer token was claimed; nothing was written
     * @throws WarehouseException when the write failed; nothing was written
     */
    void append(StreamDescriptor stream, Target target, long fencingToken, long expectedWatermark, long newWatermark,
            List<Row> rows, FlushRecord record);

    /** What {@link #prepare} changed in the warehouse since it was opened (added columns), for people. */
    default List<String> migrationsApplied() {
        return List.of();
    }

    /** The watermark a target has committed. */
    long watermark(Target target);

    /**
     * The columns an evolving stream gained from undeclared fields, in the order they were added, name to canonical
     * type ({@code bigint}, {@code double}, {@code boolean}, {@code string} or {@code json}).
     */
    java.util.Map<String, String> evolvedColumns(String stream);

    /** A table the flusher fills: a stream's events or its quarantine. */
    record Target(String stream, boolean quarantine) {
        public static Target events(String stream) {
            return new Target(stream, false);
        }

        public static Target quarantine(String stream) {
            return new Target(stream, true);
        }

        /** The form in flush records and JSON answers: {@code events} or {@code quarantine}. */
        public String kind() {
            return quarantine ? "quarantine" : "events";
        }

        /**
         * The key in {@code streams._watermarks}: the (log) stream's name, or {@code <name>__quarantine}; each
         * partition of a stream has its own ({@code orders__p1}).
         */
        public String key() {
            return quarantine ? stream + "__quarantine" : stream;
        }

        /** The table name inside schema {@code streams}: the declared stream's, whichever partition this is. */
        public String table() {
            String declared = dev.interlace.runtime.stream.StreamPartitions.streamOf(stream);
            return quarantine ? declared + "__quarantine" : declared;
        }
    }

    /**
     * Watermarks of a stream.
     *
     * @param events highest offset materialised
     * @param quarantine highest quarantine sequence number materialised
     */
    record Positions(long events, long quarantine) {}

    /**
     * One row to materialise.
     *
     * @param offset the log offset (or quarantine sequence number)
     * @param ingestedAtMicros arrival time, epoch microseconds
     * @param requestId the request that wrote it
     * @param values the declared columns' typed values in order (for quarantine rows: the payload text and the
     *     errors as JSON text)
     * @param undeclaredFields for streams that evolve: fields outside the declared schema, name to JSON text; they
     *     become nullable columns whose types are inferred and widened as needed
     */
    record Row(long offset, long ingestedAtMicros, String requestId, List<Object> values,
            java.util.Map<String, String> undeclaredFields) {

        /** A row without undeclared fields. */
        public Row(long offset, long ingestedAtMicros, String requestId, List<Object> values) {
            this(offset, ingestedAtMicros, requestId, values, java.util.Map.of());
        }

        /** The row of an event its stream's decoder accepted: the declared columns' values in order, and the rest. */
        public static Row decoded(long offset, long ingestedAtMicros, String requestId, StreamDescriptor stream,
                DecodeResult.Valid<? extends StreamEvent> valid) {
            Object[] values = new Object[stream.columns().size()];
            for (int i = 0; i < values.length; i++) {
                values[i] = valid.event().value(i);
            }
            return new Row(offset, ingestedAtMicros, requestId, java.util.Arrays.asList(values),
                    valid.undeclaredFields());
        }
    }

    /** The warehouse refused a write because another flusher holds the target, or its watermark moved. */
    final class FencedException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public FencedException(String message) {
            super(message);
        }
    }

    /** A warehouse write failed; nothing of it was committed. */
    final class WarehouseException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public WarehouseException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** The declared schema cannot be migrated automatically; start-up stops with this message. */
    final class MigrationException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public MigrationException(String message) {
            super(message);
        }
    }
}
