package dev.interlace.benchmarks;

/**
 * When the count of accepted keys first reached each boundary ({@code step}, {@code 2 step}, ... and finally
 * {@code total}), and the exact count at that moment.
 */
final class Checkpoints {
    final long step;
    final long total;
    final long[] nanos;
    final long[] keys;
    long start;

    Checkpoints(long total, long step) {
        this.step = step;
        this.total = total;
        int count = (int) ((total + step - 1) / step);
        this.nanos = new long[count];
        this.keys = new long[count];
    }

    void start(long startNanos) {
        this.start = startNanos;
    }

    int buckets() {
        return nanos.length;
    }

    long boundary(int i) {
        return Math.min((i + 1) * step, total);
    }

    int bucketOf(long acceptedSoFar) {
        return (int) Math.min(acceptedSoFar / step, nanos.length - 1);
    }

    synchronized void reached(long accepted, long at) {
        for (int i = 0; i < nanos.length && boundary(i) <= accepted; i++) {
            if (nanos[i] == 0) {
                nanos[i] = at;
                keys[i] = accepted;
            }
        }
    }

    synchronized long nanosAt(int i) {
        return nanos[i];
    }

    synchronized long keysAt(int i) {
        return keys[i] != 0 ? keys[i] : boundary(i);
    }

    synchronized double intervalRate(int i) {
        long previousKeys = i == 0 ? 0 : keys[i - 1];
        long previousNanos = i == 0 ? start : nanos[i - 1];
        return (keys[i] - previousKeys) / ((nanos[i] - previousNanos) / 1e9);
    }

    synchronized double cumulativeRate(int i) {
        return keys[i] / ((nanos[i] - start) / 1e9);
    }

    /** Mean events/s from the start to the first checkpoint at or past {@code bound} keys. */
    synchronized double rateThrough(long bound) {
        for (int i = 0; i < nanos.length; i++) {
            if (nanos[i] != 0 && keys[i] >= bound) {
                return cumulativeRate(i);
            }
        }
        return 0;
    }
}
