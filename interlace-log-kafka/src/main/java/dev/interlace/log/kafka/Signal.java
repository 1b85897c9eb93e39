package dev.interlace.log.kafka;

import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Wakes a thread that waits for something to change (a partition to follow, a stream to be a member for, its
 * sequencer stopped): whoever changes it raises the signal after the change, and the waiter looks again under the
 * signal's lock, so that no change is missed and nobody looks at a clock in between.
 */
final class Signal {

    /** Wakes every thread waiting on this signal to look again. */
    synchronized void raise() {
        notifyAll();
    }

    /** Waits as long as {@code waiting} holds. */
    synchronized void awaitWhile(BooleanSupplier waiting) throws InterruptedException {
        while (waiting.getAsBoolean()) {
            wait();
        }
    }

    /** Waits as long as {@code waiting} holds, at most until {@code deadlineNanos} (of {@link System#nanoTime}). */
    synchronized void awaitWhile(BooleanSupplier waiting, long deadlineNanos) throws InterruptedException {
        long left;
        while (waiting.getAsBoolean()
                && (left = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime())) > 0) {
            wait(left);
        }
    }
}
