package dev.interlace.runtime.flush;

import java.util.Locale;

/** What the flusher is doing for one stream (see {@link FlushStatus}). */
public enum FlushState {
    /** Nothing to move; the watermark is at the head. */
    IDLE,
    /** A batch is being moved. */
    FLUSHING,
    /** The last attempt failed; the flusher retries with backoff. */
    FAILING,
    /** Another flusher holds the stream's lease (only with several flushers on one log). */
    STANDBY,
    /**
     * The log was trimmed past the stream's watermark ({@link LogTrimmedException}): the flush stopped, and is not
     * retried, rather than leave a hole in the warehouse; an operator restores or rebuilds the warehouse.
     */
    STOPPED;

    /** The form in JSON answers: {@code idle}, {@code flushing}, {@code failing}, {@code standby}, {@code stopped}. */
    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }
}
