package dev.interlace.runtime.flush;

/**
 * What the flusher is doing for one stream.
 *
 * @param error the last error while failing, who holds the lease while standing by, why it stopped, else null
 * @param failingSinceMicros when the failures started or the flush stopped (epoch microseconds), else 0
 */
public record FlushStatus(FlushState state, String error, long failingSinceMicros) {

    static final FlushStatus IDLE = new FlushStatus(FlushState.IDLE, null, 0);

    public boolean failing() {
        return state == FlushState.FAILING;
    }

    public boolean standby() {
        return state == FlushState.STANDBY;
    }

    /** Whether the flush stopped for good: the log was trimmed past the watermark ({@link LogTrimmedException}). */
    public boolean stopped() {
        return state == FlushState.STOPPED;
    }
}
