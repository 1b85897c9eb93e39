package dev.interlace.benchmarks;

import static dev.interlace.benchmarks.Bench.ms;

import dev.interlace.runtime.flush.FlushListener;
import dev.interlace.runtime.warehouse.Warehouse;
import java.util.Locale;

/**
 * Flushes of the events table, timed from the flusher's listener: "read" is from the previous commit to the
 * watermark compare-and-set (log read, decode, CAS; in steady state also the idle wait), "append" is the
 * Appender, "commit" is DuckDB's commit.
 */
final class FlushStats implements FlushListener {
    long begin;
    long appended;
    long lastEnd;
    int pendingRows;
    long count;
    long rows;
    long firstEnd;
    long firstRows;
    long readNanos;
    long appendNanos;
    long commitNanos;
    long rowsFromLog;
    final LatencyLog read = new LatencyLog();
    final LatencyLog append = new LatencyLog();
    final LatencyLog commit = new LatencyLog();

    @Override
    public synchronized void afterWatermarkUpdate(Warehouse.Target target, long newWatermark) {
        if (!target.quarantine()) {
            begin = System.nanoTime();
        }
    }

    @Override
    public synchronized void beforeCommit(Warehouse.Target target, long newWatermark, int batchRows) {
        if (!target.quarantine()) {
            appended = System.nanoTime();
            pendingRows = batchRows;
        }
    }

    @Override
    public synchronized void afterCommit(Warehouse.Target target, long newWatermark) {
        if (target.quarantine()) {
            return;
        }
        long end = System.nanoTime();
        if (count == 0) {
            firstEnd = end;
            firstRows = pendingRows;
        } else {
            read.add(begin - lastEnd, 0);
            readNanos += begin - lastEnd;
        }
        append.add(appended - begin, 0);
        appendNanos += appended - begin;
        commit.add(end - appended, 0);
        commitNanos += end - appended;
        count++;
        rows += pendingRows;
        lastEnd = end;
    }

    @Override
    public synchronized void committedFromLog(Warehouse.Target target, int batchRows) {
        rowsFromLog += batchRows;
    }

    synchronized Snapshot snapshot() {
        return new Snapshot(count, rows, count < 2 ? Double.NaN : (rows - firstRows) / ((lastEnd - firstEnd) / 1e9),
                String.format(Locale.ROOT, "%,d flush commits, %,.0f rows/commit (%,d read back from the log, the"
                        + " rest kept in memory); per commit p50: read+decode+CAS %s ms (after the first), append"
                        + " %s ms, commit %s ms; totals %.2f / %.2f / %.2f s",
                        count, count == 0 ? 0.0 : (double) rows / count, rowsFromLog, ms(read.percentile(50)),
                        ms(append.percentile(50)), ms(commit.percentile(50)), readNanos / 1e9, appendNanos / 1e9,
                        commitNanos / 1e9));
    }

    record Snapshot(long count, long rows, double steadyRate, String text) {
        String describe() {
            return text;
        }
    }
}
