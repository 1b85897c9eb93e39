package dev.interlace.runtime.flush;

/**
 * What the flusher is doing for one stream.
 *
 * @param state {@code idle}, {@code flushing} or {@code failing}
 * @param error the last error while failing, else null
 * @param failingSinceMicros when the failures started (epoch microseconds), else 0
 */
public record FlushStatus(String state, String error, long failingSinceMicros) {

    static final FlushStatus IDLE = new FlushStatus("idle", null, 0);

    public boolean failing() {
        return state.equals("failing");
    }
}
