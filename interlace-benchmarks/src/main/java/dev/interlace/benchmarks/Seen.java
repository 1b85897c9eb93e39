package dev.interlace.benchmarks;

import java.util.Arrays;

/** First response-arrival time at which each new maximum of one polled value was seen. */
final class Seen {
    long[] at = new long[1 << 12];
    long[] max = new long[1 << 12];
    int count;
    long last = -1;

    synchronized void offer(long value, long arrival) {
        if (value <= last) {
            return;
        }
        last = value;
        if (count == at.length) {
            at = Arrays.copyOf(at, count * 2);
            max = Arrays.copyOf(max, count * 2);
        }
        at[count] = arrival;
        max[count] = value;
        count++;
        notifyAll();
    }

    /** Waits until a poll showed at least {@code value}, or until {@code deadlineNanos} (of System.nanoTime). */
    synchronized void awaitReached(long value, long deadlineNanos) throws InterruptedException {
        long left;
        while (last < value && (left = (deadlineNanos - System.nanoTime()) / 1_000_000) > 0) {
            wait(left);
        }
    }

    /** Arrival of the first poll showing at least {@code value}, or -1. */
    synchronized long firstAtLeast(long value) {
        int found = firstAtLeast(Arrays.copyOf(max, count), value);
        return found < 0 ? -1 : at[found];
    }

    /** Index of the first value {@code >= target} in a non-decreasing array, or -1. */
    static int firstAtLeast(long[] values, long target) {
        int low = 0;
        int high = values.length;
        while (low < high) {
            int mid = (low + high) >>> 1;
            if (values[mid] < target) {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        return low < values.length ? low : -1;
    }
}
