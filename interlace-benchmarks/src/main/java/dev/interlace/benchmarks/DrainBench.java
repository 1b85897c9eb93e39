package dev.interlace.benchmarks;

import dev.interlace.runtime.Interlace;
import dev.interlace.runtime.flush.FlushListener;
import dev.interlace.runtime.warehouse.Warehouse;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** Scenario (e) of {@link PublishBenchmark}: the flush of a backlog, once per {@code --drain-batch-rows}. */
final class DrainBench extends Bench {

    DrainBench(PublishOptions options, Path root) {
        super(options, root);
    }

    /**
     * Builds a backlog the flusher may not materialise (a {@link FlushListener} that throws in
     * {@code beforeCommit}, so every flush rolls back), closes the server, and then for each
     * {@code --drain-batch-rows} starts a normal server on a copy of that directory and times the drain.
     */
    List<Drain> runDrain() throws Exception {
        Path base = fresh("e-backlog");
        java.util.logging.Logger flusherLog = java.util.logging.Logger.getLogger(
                "dev.interlace.runtime.flush.Flusher");
        java.util.logging.Level level = flusherLog.getLevel();
        flusherLog.setLevel(java.util.logging.Level.OFF);
        long backlog;
        try (Interlace server = start(base, true, null, NO_BACKPRESSURE, options.flushBatchRows,
                new FlushListener() {
                    @Override
                    public void beforeCommit(Warehouse.Target target, long newWatermark,
                            int rows) {
                        throw new IllegalStateException("benchmark: the backlog stays unflushed");
                    }
                })) {
            long started = System.nanoTime();
            Run run = drive(server, options.batchClients, 1000, Long.MAX_VALUE, options.backlog, null, 1);
            backlog = pending(server);
            System.out.printf("backlog built: %,d events published in %.1f s (%,.0f events/s, errors %d); pending %,d;"
                    + " flush_state %s%n", run.events(), (System.nanoTime() - started) / 1e9, run.eventsPerSecond(),
                    run.errors(), backlog, streamField(server, "flush_state"));
        } finally {
            flusherLog.setLevel(level);
        }
        List<Drain> results = new ArrayList<>();
        for (int rows : options.drainBatchRows) {
            Path dir = fresh("e-" + rows);
            copyTree(base, dir);
            FlushStats flushes = new FlushStats();
            Drain drain;
            Cpu cpuStart = Cpu.now();
            long t0 = System.nanoTime();
            try (Interlace server = start(dir, true, null, DEFAULT_MAX_PENDING, rows, flushes)) {
                long startNanos = System.nanoTime() - t0;
                long done = waitForPending(server, 0, 1800);
                double[] cores = Cpu.now().since(cpuStart);
                String check = sql(server, "SELECT count(*), max(_offset), count(DISTINCT _offset) FROM streams.orders");
                drain = new Drain(rows, backlog, startNanos, done - t0, cores[0], cores[1], flushes.snapshot(),
                        check.replaceAll(".*\"rows\":\\[\\[([^]]*)]].*", "$1"),
                        size(dir.resolve("warehouse.duckdb")));
            }
            deleteTree(dir);
            System.out.printf("--flush-batch-rows %d: %,d rows; start() %.2f s; pending 0 after %.2f s from start()"
                    + " -> %,.0f rows/s; between first and last flush commit %,.0f rows/s; cpu %.2f this JVM, %.2f"
                    + " other; count, max(_offset), distinct offsets = %s; warehouse %,d B%n  %s%n", rows, backlog,
                    drain.startNanos() / 1e9, drain.wallNanos() / 1e9, drain.rowsPerSecond(),
                    drain.flushes().steadyRate(), drain.benchCores(), drain.otherCores(), drain.check(),
                    drain.warehouseBytes(), drain.flushes().describe());
            results.add(drain);
        }
        deleteTree(base);
        return results;
    }

    static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> paths = Files.walk(from)) {
            for (Path path : paths.toList()) {
                Path target = to.resolve(from.relativize(path).toString());
                if (Files.isDirectory(path)) {
                    Files.createDirectories(target);
                } else if (!path.getFileName().toString().equals("lock")) {
                    Files.copy(path, target, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
    }

    /**
     * (e): one drain of the backlog: {@code rows} events flushed with {@code --flush-batch-rows batchRows}, how long
     * the server took to start and to drain them (from the start), the CPU cores used, the flush commits, the
     * warehouse's check ("count, max(_offset), distinct offsets") and its size in bytes.
     */
    record Drain(int batchRows, long rows, long startNanos, long wallNanos, double benchCores, double otherCores,
            FlushStats.Snapshot flushes, String check, long warehouseBytes) {

        double rowsPerSecond() {
            return rows / (wallNanos / 1e9);
        }
    }

}
