package dev.interlace.runtime.flush;

import dev.interlace.runtime.warehouse.Warehouse;
import java.util.Collection;
import java.util.List;

/**
 * Observes the steps of a flush, on the flushing thread. Listeners are a Guice multibinder set: the runtime adds its
 * {@link FlushMetrics}, crash tests add one that stops the process at an exact step.
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

    /** Tells every listener of {@code listeners}, in their order, of every step. */
    static FlushListener all(Collection<? extends FlushListener> listeners) {
        List<FlushListener> each = List.copyOf(listeners);
        return new FlushListener() {
            @Override
            public void afterWatermarkUpdate(Warehouse.Target target, long newWatermark) {
                each.forEach(listener -> listener.afterWatermarkUpdate(target, newWatermark));
            }

            @Override
            public void beforeCommit(Warehouse.Target target, long newWatermark, int rows) {
                each.forEach(listener -> listener.beforeCommit(target, newWatermark, rows));
            }

            @Override
            public void afterCommit(Warehouse.Target target, long newWatermark) {
                each.forEach(listener -> listener.afterCommit(target, newWatermark));
            }

            @Override
            public void committed(Warehouse.Target target, int rows, long durationNanos) {
                each.forEach(listener -> listener.committed(target, rows, durationNanos));
            }

            @Override
            public void beforeAlter(String table, String column) {
                each.forEach(listener -> listener.beforeAlter(table, column));
            }
        };
    }
}
