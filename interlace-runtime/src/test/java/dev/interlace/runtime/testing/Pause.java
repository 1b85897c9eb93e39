package dev.interlace.runtime.testing;

import java.time.Duration;

/**
 * Pauses the calling thread for a set time where the time is itself the behaviour a test sets up: a load's pace
 * between requests, a client's back-off, a consumer that stalls past its lease, a fault that holds a thread, a
 * network cut that lasts. Never to wait until something has happened: that is {@link Eventually}, which returns as
 * soon as the condition holds.
 *
 * <p>This class is in the runtime's test jar beside {@link Eventually}, so that the tests of every module pace their
 * loads and faults one way and a fixed wait stands out.
 */
public final class Pause {

    private Pause() {}

    /** Pauses for {@code duration}. */
    public static void of(Duration duration) throws InterruptedException {
        millis(duration.toMillis());
    }

    /** Pauses for {@code millis} ms. */
    public static void millis(long millis) throws InterruptedException {
        Thread.sleep(millis);
    }

    /**
     * Pauses for {@code millis} ms where an interruption cannot be passed on (a lambda, a listener): the thread's
     * interrupt flag is set again and the pause fails with an {@link IllegalStateException}.
     */
    public static void uninterrupted(long millis) {
        try {
            millis(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while pausing " + millis + " ms", e);
        }
    }
}
