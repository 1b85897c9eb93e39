package dev.interlace.integration.crash;

import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.TimeUnit;

/** Waiting for a load's client threads, shared by the crash harnesses' loads. */
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
}
