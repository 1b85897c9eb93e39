package dev.interlace.runtime.warehouse;

/**
 * The warehouse's record of flushes: one per batch written (by {@link StreamTables#append}, in the batch's own
 * transaction) or failed, read by {@code GET /flushes} and correlate, trimmed by record retention.
 */
public interface FlushRecords {

    /** Writes the record of a failed flush attempt, in a transaction of its own. */
    void recordFailedFlush(FlushRecord record);

    /** Flush records covering part of the filter's offset range, oldest first. */
    FlushRecord.Page flushes(FlushRecord.Filter filter);

    /** Removes flush records of batches started before {@code beforeMicros} (record retention); returns how many. */
    long trimFlushes(long beforeMicros);
}
