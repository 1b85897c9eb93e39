package dev.interlace.runtime.flush;

/**
 * What the flusher is doing for one stream.
 *
 * @param error the last error while failing, who holds the lease while standing by, else null
 * @param failingSinceMicros when the failures started (epoch microseconds), else 0
 */
public record FlushStatus(FlushState state, String error, long failingSinceMicros) {

    static final FlushStatus IDLE = new FlushStatus(FlushState.IDLE, null, 0);

    public boolean failing() {
        return state == FlushState.FAILING;
    }

    public boolean standby() {
        return state == FlushState.STANDBY;
    }
}
