package dev.interlace.runtime.log;

/**
 * How far each stream has been materialised; the log subtracts it from the head to know the backlog that
 * backpressure limits (docs/operations.md#backpressure).
 */
public interface Watermarks {

    /** The highest offset of {@code stream} that is materialised (0 when none). */
    long events(String stream);

    /** The highest quarantine sequence number of {@code stream} that is materialised (0 when none). */
    long quarantine(String stream);
}
