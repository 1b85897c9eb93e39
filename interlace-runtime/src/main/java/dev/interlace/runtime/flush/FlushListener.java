package dev.interlace.runtime.flush;

import dev.interlace.runtime.warehouse.AppendSteps;
import dev.interlace.runtime.warehouse.FlushRecord;
import dev.interlace.runtime.warehouse.Warehouse;
import java.util.Collection;
import java.util.List;

/**
 * Observes the steps of a flush, on the flushing thread: those inside the warehouse's transaction ({@link AppendSteps})
 * and the commit as the flusher sees it. Listeners are a Guice multibinder set: the runtime adds its
 * {@link FlushMetrics}, crash tests add one that stops the process at an exact step.
 */
public interface FlushListener extends AppendSteps {

    FlushListener NONE = new FlushListener() {};

    /** The warehouse committed; the flusher's in-memory watermark has not moved yet. */
    default void afterCommit(Warehouse.Target target, long newWatermark) {}

    /**
     * Right after {@link #afterCommit}: the batch's size and how long its warehouse transaction took (from the start of
     * the append to the end of the commit).
     */
    default void committed(Warehouse.Target target, int rows, long durationNanos) {}

    /**
     * Right after {@link #committed}: the batch's flush record as committed (its commit time as the flusher saw it,
     * its trace ids), also when {@code --record-retention 0} keeps none in the warehouse.
     */
    default void recorded(FlushRecord record) {}

    /**
     * Right after {@link #committed}, for a batch of events: how many of its rows were read back from the log and
     * decoded again rather than taken from those kept in memory ({@link RecentEvents}); not called when none were.
     */
    default void committedFromLog(Warehouse.Target target, int rows) {}

    /**
     * The flush of {@code stream} stopped: the log was trimmed past its watermark ({@link LogTrimmedException}). Told
     * once per stop, on the flushing thread.
     */
    default void stopped(String stream) {}

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
            public void recorded(FlushRecord record) {
                each.forEach(listener -> listener.recorded(record));
            }

            @Override
            public void committedFromLog(Warehouse.Target target, int rows) {
                each.forEach(listener -> listener.committedFromLog(target, rows));
            }

            @Override
            public void stopped(String stream) {
                each.forEach(listener -> listener.stopped(stream));
            }

            @Override
            public void beforeAlter(String table, String column) {
                each.forEach(listener -> listener.beforeAlter(table, column));
            }
        };
    }
}
