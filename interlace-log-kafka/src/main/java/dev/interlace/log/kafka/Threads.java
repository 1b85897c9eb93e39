package dev.interlace.log.kafka;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The waits of the log's closes for the threads they stopped. An interrupt ends the wait and is kept for the caller,
 * so that a close still releases everything else it holds.
 */
final class Threads {

    private Threads() {
    }

    /** Waits up to {@code patience} for {@code thread} to end. */
    static void join(Thread thread, Duration patience) {
        try {
            thread.join(patience.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Waits up to {@code patience} for the tasks of {@code executor}, shut down already, to end. */
    static void awaitTermination(ExecutorService executor, Duration patience) {
        try {
            executor.awaitTermination(patience.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
