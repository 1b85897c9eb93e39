package dev.interlace.integration.flushcrash;

import dev.interlace.integration.crash.Halt;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts hits of one fault point once {@linkplain #arm() armed} and stops the process dead ({@link Runtime#halt}: no
 * shutdown hooks, no warehouse close, no checkpoint) on the N-th, after printing a marker the parent checks. Shared
 * by the halting listener and the negative control's broken warehouse.
 */
final class FaultTrigger {

    private final FlushFault fault;
    private final int trigger;
    private final AtomicInteger hits = new AtomicInteger();
    private final CountDownLatch armedLatch = new CountDownLatch(1);
    private volatile boolean armed;

    FaultTrigger(FlushFault fault, int trigger) {
        this.fault = fault;
        this.trigger = Halt.trigger(trigger);
    }

    FlushFault fault() {
        return fault;
    }

    void arm() {
        armed = true;
        armedLatch.countDown();
    }

    /** Blocks the calling thread until armed. */
    void awaitArmed() {
        try {
            armedLatch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    boolean armed() {
        return armed;
    }

    /** Counts a hit of {@code point} (when armed) and halts on the trigger-th; {@code details} go in the marker. */
    void hit(FlushFault point, String details) {
        if (point != fault || !armed) {
            return;
        }
        int hit = hits.incrementAndGet();
        if (hit == trigger) {
            Halt.withMarker(FlushCrashServerMain.FAULT_FIRED + fault.argument() + " hit=" + hit + " " + details);
        }
    }
}
