package dev.interlace.runtime.flush;

/**
 * What the flusher is doing for one stream.
 *
 * @param state {@code idle}, {@code flushing}, {@code failing}, or {@code standby} (another flusher holds the
 *     stream's lease; only with several flushers on one log)
 * @param error the last error while failing, who holds the lease while standing by, else null
 * @param failingSinceMicros when the failures started (epoch microseconds), else 0
 */
public record FlushStatus(String state, String error, long failingSinceMicros) {

    static final FlushStatus IDLE = new FlushStatus("idle", null, 0);

    public boolean failing() {
        return state.equals("failing");
    }

    public boolean standby() {
        return state.equals("standby");
    }
}
