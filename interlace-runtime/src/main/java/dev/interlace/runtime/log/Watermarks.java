package dev.interlace.runtime.log;

/**
 * How far each stream has been materialised; the log subtracts it from the head to know the backlog that
 * backpressure limits (docs/operations.md#backpressure).
 */
public interface Watermarks {

    /** The highest offset of {@code stream} that is materialised (0 when none). */
    long events(String stream);

    /**
     * The highest offset of {@code stream} that every warehouse which still counts has materialised: what a trim may
     * remove. On one server that is {@link #events}; on a log with several warehouse replicas, the slowest's.
     */
    default long retained(String stream) {
        return events(stream);
    }

    /** The highest quarantine sequence number of {@code stream} that is materialised (0 when none). */
    long quarantine(String stream);
}
