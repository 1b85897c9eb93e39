package dev.interlace.integration.crash;

import dev.interlace.runtime.log.CommitListener;
import dev.interlace.runtime.testing.Pause;

/**
 * Stops the process dead ({@link Runtime#halt}, no shutdown hooks, no finalisation) at a fault point of the N-th
 * group commit after it is {@linkplain #arm() armed}. Runs on the log's writer thread, so the stop happens exactly
 * between the steps of the commit protocol. Arming lets the same child first serve the oracle's checks of the
 * previous crash (whose commits do not count) and then crash under the next load.
 */
final class HaltingCommitListener implements CommitListener {

    /**
     * How long the negative control's writer stalls before halting: its acknowledgements race ahead of the writer, and
     * with a fast disk the writer would otherwise catch up before a client even reads its 200. While it stalls, every
     * request that arrives is acknowledged and queued behind the commit that never happens.
     */
    static final long NEGATIVE_CONTROL_STALL_MILLIS = 300;

    private final FaultPoint fault;
    private final int triggerCommit;
    private volatile boolean armed;
    private int commits;

    HaltingCommitListener(FaultPoint fault, int triggerCommit) {
        this.fault = fault;
        this.triggerCommit = Halt.trigger(triggerCommit);
    }

    /** Starts counting commits towards the trigger. */
    void arm() {
        armed = true;
    }

    @Override
    public void beforeCommit(int requests, int entries) {
        if (fault == FaultPoint.BEFORE_COMMIT || fault == FaultPoint.ACK_BEFORE_COMMIT
                || fault == FaultPoint.OOM_BEFORE_COMMIT) {
            countAndMaybeHalt(requests, entries);
        }
    }

    @Override
    public void afterCommit(int requests, int entries) {
        if (fault == FaultPoint.AFTER_COMMIT) {
            countAndMaybeHalt(requests, entries);
        }
    }

    private void countAndMaybeHalt(int requests, int entries) {
        if (!armed) {
            return;
        }
        commits++;
        if (commits == triggerCommit) {
            ChildServer.say(CrashServerMain.FAULT_FIRED + fault.argument() + " commit=" + commits + " requests="
                    + requests + " entries=" + entries);
            if (fault == FaultPoint.ACK_BEFORE_COMMIT) {
                stall();
            }
            if (fault == FaultPoint.OOM_BEFORE_COMMIT) {
                throw new OutOfMemoryError("test: the writer ran out of memory before commit " + commits);
            }
            Halt.now();
        }
    }

    private static void stall() {
        try {
            Pause.millis(NEGATIVE_CONTROL_STALL_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
