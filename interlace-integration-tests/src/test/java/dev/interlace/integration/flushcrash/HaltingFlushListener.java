package dev.interlace.integration.flushcrash;

import dev.interlace.runtime.flush.FlushListener;
import dev.interlace.runtime.warehouse.Warehouse;

/**
 * Halts the child at a step of a flush (on the flushing thread, so exactly between the steps of the warehouse
 * transaction). Only the stream's events target counts; quarantine flushes are not under test.
 *
 * <p>For {@link FlushFault#MID_DRAIN} it first holds the flusher: the first flush blocks right after its commit
 * (outside any transaction) until the child is armed, so the log builds a backlog of many batches meanwhile; once
 * armed, the held flush returns, the flusher drains the backlog batch by batch, and the N-th batch committed after
 * arming halts the process.
 */
final class HaltingFlushListener implements FlushListener {

    static final String STREAM = "orders";
    static final String EVOLVING = "decoding_evolving";

    private final FaultTrigger trigger;
    /** Rows of the batch in flight (flushes of one stream run one at a time). */
    private volatile int rowsInFlight = -1;
    /** Whether the evolving stream's batch in flight changed the table's schema. */
    private volatile boolean altered;

    HaltingFlushListener(FaultTrigger trigger) {
        this.trigger = trigger;
    }

    @Override
    public void afterWatermarkUpdate(Warehouse.Target target, long newWatermark) {
        if (!target.quarantine() && target.stream().equals(EVOLVING) && altered) {
            altered = false;
            trigger.hit(FlushFault.AFTER_EVOLVE_ALTER, "target=" + EVOLVING + " watermark=" + newWatermark);
        }
        if (counts(target)) {
            rowsInFlight = -1;
            trigger.hit(FlushFault.AFTER_WATERMARK_UPDATE, details(target, newWatermark));
        }
    }

    @Override
    public void beforeCommit(Warehouse.Target target, long newWatermark, int rows) {
        if (counts(target)) {
            rowsInFlight = rows;
            trigger.hit(FlushFault.AFTER_ROWS_BEFORE_COMMIT, details(target, newWatermark));
        }
    }

    @Override
    public void afterCommit(Warehouse.Target target, long newWatermark) {
        if (!counts(target)) {
            return;
        }
        if (trigger.fault() == FlushFault.MID_DRAIN && !trigger.armed()) {
            trigger.awaitArmed(); // the held batch is not one of the drain's batches
            return;
        }
        trigger.hit(FlushFault.AFTER_COMMIT_BEFORE_MEMORY, details(target, newWatermark));
        trigger.hit(FlushFault.MID_DRAIN, details(target, newWatermark));
    }

    @Override
    public void beforeAlter(String table, String change) {
        if (table.equals("streams." + EVOLVING)) {
            altered = true;
            trigger.hit(FlushFault.DURING_EVOLVE_ALTER, "target=" + EVOLVING + " change=" + change.replace(' ', '_'));
        }
    }

    private static boolean counts(Warehouse.Target target) {
        return !target.quarantine() && target.stream().equals(STREAM);
    }

    private String details(Warehouse.Target target, long newWatermark) {
        return "target=" + target.key() + " watermark=" + newWatermark + " rows=" + rowsInFlight;
    }
}
