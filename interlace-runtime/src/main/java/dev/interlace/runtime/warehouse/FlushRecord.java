package dev.interlace.runtime.warehouse;

import dev.interlace.runtime.ops.TraceIds;
import java.util.List;

/**
 * The record of one flush batch, kept in {@code interlace.flushes}. A committed batch's record is
 * written in the batch's own transaction, so it exists exactly when the batch's rows do; a failed attempt's record
 * (with its error) is written afterwards when the warehouse allows it.
 *
 * @param id {@code flush-…}
 * @param target the stream's events or its quarantine
 * @param firstOffset lowest offset (or quarantine sequence number) in the batch
 * @param lastOffset highest one; the batch moved the watermark to it, and the model run it triggered has the trigger
 *     {@code stream:<stream>:<lastOffset>}
 * @param committedAtMicros when it committed; 0 for a failed attempt
 * @param error why the attempt failed; null when it committed
 * @param traces the W3C trace ids of the requests whose events the batch holds (bounded; none for quarantine)
 */
public record FlushRecord(String id, StreamTables.Target target, long firstOffset, long lastOffset, long rows,
        long startedAtMicros, long committedAtMicros, String error, TraceIds traces) {

    public FlushRecord {
        traces = traces == null ? TraceIds.NONE : traces;
    }

    /** A record without trace ids. */
    public FlushRecord(String id, StreamTables.Target target, long firstOffset, long lastOffset, long rows,
            long startedAtMicros, long committedAtMicros, String error) {
        this(id, target, firstOffset, lastOffset, rows, startedAtMicros, committedAtMicros, error, TraceIds.NONE);
    }

    /** This attempt as committed at {@code committedAtMicros}. */
    public FlushRecord committedAt(long committedAtMicros) {
        return new FlushRecord(id, target, firstOffset, lastOffset, rows, startedAtMicros, committedAtMicros, null,
                traces);
    }

    /** The flushed stream's name. */
    public String stream() {
        return target.stream();
    }

    /** Whether the batch committed (a failed attempt is recorded with its error and no commit time). */
    public boolean committed() {
        return committedAtMicros > 0;
    }

    /** Flush records of a stream's events or quarantine that cover part of an offset range. */
    public record Filter(StreamTables.Target target, long fromOffset, long toOffset, int limit) {}

    /** A page of records, oldest first, with how many matched in all. */
    public record Page(List<FlushRecord> records, long total) {}
}
