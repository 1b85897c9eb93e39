package dev.interlace.benchmarks;

import dev.interlace.runtime.log.CommitListener;

/** Group commits seen by the log's writer thread: requests and entries per commit, and commit+fsync time. */
final class CommitStats implements CommitListener {
    long count;
    long requests;
    long entries;
    long totalNanos;
    long startedAt;
    final LatencyLog durations = new LatencyLog();

    @Override
    public synchronized void beforeCommit(int groupRequests, int groupEntries) {
        startedAt = System.nanoTime();
    }

    @Override
    public synchronized void afterCommit(int groupRequests, int groupEntries) {
        long nanos = System.nanoTime() - startedAt;
        count++;
        requests += groupRequests;
        entries += groupEntries;
        totalNanos += nanos;
        durations.add(nanos, 0);
    }

    synchronized Snapshot snapshot() {
        LatencyLog copy = new LatencyLog();
        for (int i = 0; i < durations.size; i++) {
            copy.add(durations.values[i], 0);
        }
        return new Snapshot(count, requests, entries, totalNanos, copy);
    }

    record Snapshot(long count, long requests, long entries, long totalNanos, LatencyLog durations) {
        double requestsPerCommit() {
            return count == 0 ? 0 : (double) requests / count;
        }

        double entriesPerCommit() {
            return count == 0 ? 0 : (double) entries / count;
        }
    }
}
