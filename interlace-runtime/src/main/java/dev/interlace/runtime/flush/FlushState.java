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
    STANDBY;

    /** The form in JSON answers: {@code idle}, {@code flushing}, {@code failing}, {@code standby}. */
    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }
}
