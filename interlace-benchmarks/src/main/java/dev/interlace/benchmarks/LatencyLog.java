package dev.interlace.benchmarks;

import java.util.Arrays;

/** Request latencies in nanoseconds with a bucket (keys-in-window interval) each; sorted when read. */
final class LatencyLog {
    long[] values = new long[1024];
    int[] buckets = new int[1024];
    int size;
    boolean sorted;

    void add(long nanos, int bucket) {
        if (size == values.length) {
            values = Arrays.copyOf(values, size * 2);
            buckets = Arrays.copyOf(buckets, size * 2);
        }
        values[size] = nanos;
        buckets[size] = bucket;
        size++;
        sorted = false;
    }

    int size() {
        return size;
    }

    static LatencyLog merge(LatencyLog[] logs, int bucketCount) {
        LatencyLog merged = new LatencyLog();
        merged.perBucket = new LatencyLog[bucketCount];
        for (int b = 0; b < bucketCount; b++) {
            merged.perBucket[b] = new LatencyLog();
        }
        for (LatencyLog log : logs) {
            for (int i = 0; i < log.size; i++) {
                merged.add(log.values[i], log.buckets[i]);
                merged.perBucket[Math.min(log.buckets[i], bucketCount - 1)].add(log.values[i], 0);
            }
        }
        return merged;
    }

    LatencyLog[] perBucket;

    LatencyLog bucket(int index) {
        return perBucket == null ? this : perBucket[index];
    }

    /** Nearest-rank percentile, in nanoseconds; NaN when empty. */
    double percentile(double p) {
        if (size == 0) {
            return Double.NaN;
        }
        sort();
        int rank = (int) Math.ceil(p / 100.0 * size);
        return values[Math.max(0, Math.min(size - 1, rank - 1))];
    }

    double max() {
        return percentile(100);
    }

    void sort() {
        if (!sorted) {
            // Buckets are not needed once values are sorted for percentiles (merge keeps them per bucket).
            Arrays.sort(values, 0, size);
            sorted = true;
        }
    }
}
