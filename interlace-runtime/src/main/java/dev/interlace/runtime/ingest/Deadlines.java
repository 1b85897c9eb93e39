package dev.interlace.runtime.ingest;

import dev.interlace.runtime.ops.DaemonThreads;
import io.netty.util.HashedWheelTimer;
import io.netty.util.Timeout;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Fails a future with a {@link TimeoutException} when nothing completed it in time, as
 * {@link CompletableFuture#orTimeout} does, for a deadline on every publish. One wheel timer serves the whole JVM (a
 * daemon thread, {@code interlace-deadlines}, ticking every 100 ms): arming a deadline and cancelling it are each an
 * entry in a queue that the timer's thread takes in batches at its next tick, so a cancelled deadline is gone within
 * a tick. {@code orTimeout} on Java 25 schedules each deadline on the common fork-join pool's delay queue, which cost
 * a fifth of the publishes a second at 64 clients (measured with {@code interlace-benchmarks/scripts/wrk-publish.sh}).
 */
final class Deadlines {

    private static final ThreadFactory DAEMON = DaemonThreads.named("interlace-deadlines");

    /** Deadlines are seconds long; a tick of 100 ms makes them late by at most that. */
    private static final HashedWheelTimer TIMER = new HashedWheelTimer(DAEMON, 100, TimeUnit.MILLISECONDS, 512);

    private Deadlines() {}

    /**
     * Fails {@code future} with a {@link TimeoutException} unless it completes within {@code timeout}.
     *
     * @return {@code future} itself
     */
    static <T> CompletableFuture<T> within(CompletableFuture<T> future, long timeout, TimeUnit unit) {
        if (future.isDone()) {
            return future;
        }
        Timeout deadline = TIMER.newTimeout(expired -> future.completeExceptionally(new TimeoutException(
                "not completed within " + timeout + " " + unit.name().toLowerCase(Locale.ROOT))),
                timeout, unit);
        future.whenComplete((result, failure) -> deadline.cancel());
        return future;
    }
}
