package dev.interlace.integration.flushcrash;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A one-shot stop for a flushing thread: once {@linkplain #arm() armed}, the first thread to reach {@link #here()}
 * waits there until {@linkplain #release() released} (at most {@value #MAX_HOLD_SECONDS} s), so a test can make
 * another flusher act at an exact step of this one.
 */
final class Hold {

    private static final long MAX_HOLD_SECONDS = 30;

    private final AtomicBoolean taken = new AtomicBoolean();
    private final CountDownLatch reached = new CountDownLatch(1);
    private final CountDownLatch released = new CountDownLatch(1);
    private volatile boolean armed;

    void arm() {
        armed = true;
    }

    /** Called on the flushing thread at the step to stop at. */
    void here() {
        if (!armed || !taken.compareAndSet(false, true)) {
            return;
        }
        reached.countDown();
        try {
            released.await(MAX_HOLD_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Waits until a thread is held; false on timeout. */
    boolean awaitHeld(Duration timeout) throws InterruptedException {
        return reached.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    void release() {
        released.countDown();
    }
}
