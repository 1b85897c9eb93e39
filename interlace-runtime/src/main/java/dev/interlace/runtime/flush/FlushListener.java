package dev.interlace.runtime.flush;

import dev.interlace.runtime.warehouse.Warehouse;

/**
 * Observes the steps of a flush, on the flushing thread. The runtime binds {@link #NONE} and adds its
 * {@link FlushMetrics} to the flusher's; crash tests bind one that stops the process at an exact step.
 */
public interface FlushListener {

    FlushListener NONE = new FlushListener() {};

    /** Inside the warehouse transaction: the watermark compare-and-set ran, nothing appended yet. */
    default void afterWatermarkUpdate(Warehouse.Target target, long newWatermark) {}

    /** Inside the warehouse transaction: rows and watermark are written, the commit is next. */
    default void beforeCommit(Warehouse.Target target, long newWatermark, int rows) {}

    /** The warehouse committed; the flusher's in-memory watermark has not moved yet. */
    default void afterCommit(Warehouse.Target target, long newWatermark) {}

    /**
     * Right after {@link #afterCommit}: the batch's size and how long its warehouse transaction took (from the start of
     * the append to the end of the commit).
     */
    default void committed(Warehouse.Target target, int rows, long durationNanos) {}

    /** About to change a table's schema (for example adding an evolved column). */
    default void beforeAlter(String table, String column) {}

    /** Tells {@code first}, then {@code second}, of every step. */
    static FlushListener both(FlushListener first, FlushListener second) {
        return new FlushListener() {
            @Override
            public void afterWatermarkUpdate(Warehouse.Target target, long newWatermark) {
                first.afterWatermarkUpdate(target, newWatermark);
                second.afterWatermarkUpdate(target, newWatermark);
            }

            @Override
            public void beforeCommit(Warehouse.Target target, long newWatermark, int rows) {
                first.beforeCommit(target, newWatermark, rows);
                second.beforeCommit(target, newWatermark, rows);
            }

            @Override
            public void afterCommit(Warehouse.Target target, long newWatermark) {
                first.afterCommit(target, newWatermark);
                second.afterCommit(target, newWatermark);
            }

            @Override
            public void committed(Warehouse.Target target, int rows, long durationNanos) {
                first.committed(target, rows, durationNanos);
                second.committed(target, rows, durationNanos);
            }

            @Override
            public void beforeAlter(String table, String column) {
                first.beforeAlter(table, column);
                second.beforeAlter(table, column);
            }
        };
    }
}
