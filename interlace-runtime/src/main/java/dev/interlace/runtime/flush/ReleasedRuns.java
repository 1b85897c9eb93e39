package dev.interlace.runtime.flush;

/**
 * Counts the flusher's runs that were done with their stream, so that what waits for the flusher's progress (a drain,
 * a test awaiting materialisation) waits for the next run to end rather than looking again and again.
 */
public final class ReleasedRuns {

    private long count;

    /** How many runs ended so far: read before looking at the progress, then {@link #awaitAfter} that count. */
    public synchronized long count() {
        return count;
    }

    /** A run was done with its stream. */
    synchronized void released() {
        count++;
        notifyAll();
    }

    /**
     * Waits until a run ends after {@code seen} of them had, or until {@code deadlineNanos} (of
     * {@link System#nanoTime}); false when interrupted (the interrupt kept).
     */
    public synchronized boolean awaitAfter(long seen, long deadlineNanos) {
        long left;
        while (count == seen && (left = (deadlineNanos - System.nanoTime()) / 1_000_000) > 0) {
            try {
                wait(left);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }
}
