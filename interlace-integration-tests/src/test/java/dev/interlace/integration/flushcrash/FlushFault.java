package dev.interlace.integration.flushcrash;

import dev.interlace.integration.crash.ChildFault;

/**
 * Where a flush-crash child stops itself (rows and watermark commit in one DuckDB transaction, so a
 * crash anywhere leaves both or neither). Test code only: the shipped jar has no switch that weakens exactly-once.
 */
enum FlushFault implements ChildFault {

    /** No fault: the child runs until it is stopped or killed (the recovering server). */
    NONE,
    /** Halt in {@code FlushListener.afterWatermarkUpdate}: the watermark compare-and-set ran, no rows appended. */
    AFTER_WATERMARK_UPDATE,
    /** Halt in {@code FlushListener.beforeCommit}: the Appender wrote the rows, the transaction is not committed. */
    AFTER_ROWS_BEFORE_COMMIT,
    /** Halt in {@code FlushListener.afterCommit}: DuckDB committed, the in-memory watermark has not moved. */
    AFTER_COMMIT_BEFORE_MEMORY,
    /**
     * Hold the flusher (it blocks after its first commit) while a backlog of many batches builds up; once armed, let
     * it drain and halt right after the N-th batch of that drain committed, with batches still to go.
     */
    MID_DRAIN,
    /**
     * Halt in {@code FlushListener.beforeAlter} on the N-th schema change of the evolving stream
     * {@code decoding_evolving}: earlier changes of the batch (each its own transaction) are committed, this one and
     * the batch's rows are not.
     */
    DURING_EVOLVE_ALTER,
    /**
     * Halt inside the rows' transaction (after the watermark compare-and-set) of the N-th batch of
     * {@code decoding_evolving} that needed a schema change: the new or widened columns are committed, the rows are
     * not.
     */
    AFTER_EVOLVE_ALTER,
    /**
     * Once armed, move the clock past the retention window and run the retention sweep repeatedly; halt right after
     * the N-th trim that removed entries committed (the trim is one SQLite transaction: a crash inside it leaves the
     * state before or after it, and "after" is the one that can hurt). The restart must neither lose nor repeat
     * anything and must not rewind offsets.
     */
    AFTER_RETENTION_TRIM,
    /**
     * Negative control: a broken warehouse that commits the new watermark in a transaction of its own and the rows
     * in a second one, halting between the two on the N-th batch. The batch's rows are lost; the oracle must fail.
     */
    WATERMARK_SEPARATE_TX;
}
