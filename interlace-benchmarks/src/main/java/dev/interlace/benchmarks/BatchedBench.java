package dev.interlace.benchmarks;

import dev.interlace.runtime.Interlace;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;

/**
 * Scenarios (b) and (f) of {@link PublishBenchmark}: batches with random keys until the deduplication window holds
 * {@code --keys} keys, without and with backpressure; then start-up on the same directory.
 */
final class BatchedBench extends Bench {

    BatchedBench(PublishOptions options, Path root) {
        super(options, root);
    }

    Batched runBatched(int batch, long maxPending) throws Exception {
        Path dir = fresh("b-" + batch);
        CommitStats commits = new CommitStats();
        FlushStats flushes = new FlushStats();
        Batched result = new Batched(batch);
        long step = Math.max(batch, options.keys / options.steps);
        try (Interlace server = start(dir, true, commits, maxPending, options.flushBatchRows, flushes)) {
            System.out.printf("HTTP executor: %s; reporting every %,d keys%n", server.httpExecutor(), step);
            result.heapBefore = usedHeapAfterGc();
            WalWatch wal = new WalWatch(dir.resolve("log.sqlite-wal"));
            wal.start();
            Checkpoints checkpoints = new Checkpoints(options.keys, step);
            result.run = drive(server, options.batchClients, batch, Long.MAX_VALUE, options.keys, checkpoints,
                    checkpoints.buckets());
            wal.interrupt();
            wal.join();
            result.walPeak = wal.peak;
            result.checkpoints = checkpoints;
            result.keys = result.run.events();
            result.heapAfter = usedHeapAfterGc();
            result.dbBytes = size(dir.resolve("log.sqlite"));
            result.walBytes = size(dir.resolve("log.sqlite-wal"));
            result.commits = commits.snapshot();
            // How far the flusher was behind when publishing stopped, and how long it took to catch up.
            long stopped = System.nanoTime();
            result.pendingAtEnd = pending(server);
            result.catchUpNanos = waitForPending(server, 0, 600) - stopped;
            result.warehouseBytes = size(dir.resolve("warehouse.duckdb")) + size(dir.resolve("warehouse.duckdb.wal"));
            result.flushes = flushes.snapshot();
        }
        long closedDb = size(dir.resolve("log.sqlite"));
        long closedWal = size(dir.resolve("log.sqlite-wal"));
        long startNanos = System.nanoTime();
        try (Interlace server = start(dir, true, null)) {
            result.startupNanos = System.nanoTime() - startNanos;
            result.heapRestarted = usedHeapAfterGc();
            // Proves the rebuilt index is the one in use: replaying one accepted key must be a duplicate.
            result.replayIsDuplicate = replayIsDuplicate(server, result.run.lastKey());
        }
        result.closedDbBytes = closedDb;
        result.closedWalBytes = closedWal;
        deleteTree(dir);
        printBatched(result, step);
        return result;
    }

    static boolean replayIsDuplicate(Interlace server, String key) throws Exception {
        if (key == null) {
            return false;
        }
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        HttpResponse<String> response = client.send(HttpRequest.newBuilder(publishUri(server))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"order_id\":\"" + key + "\",\"total\":1.5}")).build(),
                HttpResponse.BodyHandlers.ofString());
        return response.statusCode() == 200 && response.body().contains("\"deduplicated\":1");
    }

    void printBatched(Batched result, long step) {
        Checkpoints checkpoints = result.checkpoints;
        System.out.println();
        System.out.println("| keys in window | interval events/s | cumulative events/s | req p50 ms | req p99 ms |"
                + " req p99.9 ms |");
        System.out.println("|---:|---:|---:|---:|---:|---:|");
        for (int i = 0; i < checkpoints.buckets(); i++) {
            long at = checkpoints.nanosAt(i);
            if (at == 0) {
                break;
            }
            LatencyLog bucket = result.run.latency().bucket(i);
            System.out.printf("| %,d | %,.0f | %,.0f | %s | %s | %s |%n", checkpoints.keysAt(i),
                    checkpoints.intervalRate(i), checkpoints.cumulativeRate(i), ms(bucket.percentile(50)),
                    ms(bucket.percentile(99)), ms(bucket.percentile(99.9)));
        }
        System.out.println();
        System.out.printf("keys in window               %,d (every event accepted, %d errors)%n", result.keys,
                result.run.errors());
        System.out.printf("throughput                   %,.0f events/s overall; up to 1 M keys: min interval %,.0f,"
                + " mean %,.0f; last interval (at %,d keys): %,.0f%n", result.run.eventsPerSecond(),
                result.minRateUpTo(1_000_000), checkpoints.rateThrough(1_000_000), result.keys,
                result.lastRate());
        System.out.printf("cpu                          %.2f cores used by this JVM, %.2f by other processes%n",
                result.run.benchCores(), result.run.otherCores());
        System.out.printf("backpressure                 %,d responses 429 (each: slept Retry-After, resent the same batch);"
                + " %.1f s slept in total over %d clients (%.0f%% of client time)%n", result.run.throttled(),
                result.run.throttledNanos() / 1e9, options.batchClients,
                100.0 * result.run.throttledNanos() / (result.run.nanos() * (double) options.batchClients));
        System.out.printf("flusher                      pending when publishing stopped %,d; caught up %.2f s later;"
                + " %s%n", result.pendingAtEnd, result.catchUpNanos / 1e9, result.flushes.describe());
        System.out.printf("warehouse                    warehouse.duckdb (+ .wal) %,d B%n", result.warehouseBytes);
        System.out.printf("commits                      %,d (%.1f requests, %,.0f events per commit; commit p50 %s ms,"
                + " p99 %s ms; %.0f%% of wall time in commit)%n", result.commits.count(),
                result.commits.requestsPerCommit(), result.commits.entriesPerCommit(),
                ms(result.commits.durations().percentile(50)), ms(result.commits.durations().percentile(99)),
                100.0 * result.commits.totalNanos() / result.run.nanos());
        System.out.printf("heap (used after GC)         %,d B before, %,d B after -> %.1f B/key; after restart %.1f"
                + " B/key%n", result.heapBefore, result.heapAfter, result.heapPerKey(),
                (double) (result.heapRestarted - result.heapBefore) / result.keys);
        System.out.printf("disk while running           log.sqlite %,d B + WAL %,d B = %.1f B/key; WAL peak %,d B%n",
                result.dbBytes, result.walBytes, result.diskPerKey(), result.walPeak);
        System.out.printf("disk after close             log.sqlite %,d B + WAL %,d B (close checkpoints and truncates"
                + " the WAL)%n", result.closedDbBytes, result.closedWalBytes);
        System.out.printf("start-up with %,d keys     %.2f s (Interlace.builder()...start() on the same dir);"
                + " replayed key deduplicated after restart: %s%n", result.keys, result.startupNanos / 1e9,
                result.replayIsDuplicate);
        System.out.println();
    }

    static final class Batched {
        final int batch;
        Run run;
        Checkpoints checkpoints;
        CommitStats.Snapshot commits;
        long keys;
        long heapBefore;
        long heapAfter;
        long heapRestarted;
        long dbBytes;
        long walBytes;
        long walPeak;
        long closedDbBytes;
        long closedWalBytes;
        long startupNanos;
        boolean replayIsDuplicate;
        long pendingAtEnd;
        long catchUpNanos;
        long warehouseBytes;
        FlushStats.Snapshot flushes;

        Batched(int batch) {
            this.batch = batch;
        }

        double heapPerKey() {
            return (double) (heapAfter - heapBefore) / keys;
        }

        double diskPerKey() {
            return (double) (dbBytes + walBytes) / keys;
        }

        double minRateUpTo(long keysBound) {
            double min = Double.MAX_VALUE;
            for (int i = 0; i < checkpoints.buckets() && checkpoints.boundary(i) <= keysBound; i++) {
                if (checkpoints.nanosAt(i) != 0) {
                    min = Math.min(min, checkpoints.intervalRate(i));
                }
            }
            return min == Double.MAX_VALUE ? 0 : min;
        }

        double lastRate() {
            for (int i = checkpoints.buckets() - 1; i >= 0; i--) {
                if (checkpoints.nanosAt(i) != 0) {
                    return checkpoints.intervalRate(i);
                }
            }
            return 0;
        }
    }

    /** Samples the WAL's size every 200 ms and keeps the peak. */
    static final class WalWatch extends Thread {
        final Path wal;
        volatile long peak;

        WalWatch(Path wal) {
            super("bench-wal-watch");
            this.wal = wal;
            setDaemon(true);
        }

        @Override
        public void run() {
            while (!isInterrupted()) {
                peak = Math.max(peak, size(wal));
                try {
                    Thread.sleep(200);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

}
