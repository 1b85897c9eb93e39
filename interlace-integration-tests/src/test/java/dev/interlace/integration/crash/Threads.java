package dev.interlace.integration.crash;

import dev.interlace.runtime.testing.Eventually;
import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/** Waiting for a load's client threads and for what they acknowledged, shared by the crash harnesses' loads. */
public final class Threads {

    private Threads() {}

    /** Waits for every one of {@code threads} to finish; true when all did within {@code timeout}, overall. */
    public static boolean joinAll(Collection<Thread> threads, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (Thread thread : threads) {
            long remaining = deadline - System.nanoTime();
            if (remaining > 0) {
                thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(remaining)));
            }
        }
        return threads.stream().noneMatch(Thread::isAlive);
    }

    /**
     * Waits (bounded by {@code timeout}) until {@code acknowledged} counts at least {@code events} events or every one
     * of a load's {@code clients} ended; true when the count got there.
     */
    public static boolean awaitAcknowledged(Collection<Thread> clients, LongSupplier acknowledged, long events,
            Duration timeout) throws InterruptedException {
        try {
            Eventually.until(events + " events acknowledged, or every client ended", timeout,
                    () -> acknowledged.getAsLong() >= events || clients.stream().noneMatch(Thread::isAlive));
        } catch (AssertionError timedOut) {
            return false;
        }
        return acknowledged.getAsLong() >= events;
    }
}
