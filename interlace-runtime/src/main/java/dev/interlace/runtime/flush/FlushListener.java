package dev.interlace.runtime.flush;

/**
 * Observes the steps of a flush, on the flushing thread. The runtime binds {@link #NONE}; crash tests bind one that
 * stops the process at an exact step.
 */
public interface FlushListener {

    FlushListener NONE = new FlushListener() {};

    /** Inside the warehouse transaction: the watermark compare-and-set ran, nothing appended yet. */
    default void afterWatermarkUpdate(Warehouse.Target target, long newWatermark) {}

    /** Inside the warehouse transaction: rows and watermark are written, the commit is next. */
    default void beforeCommit(Warehouse.Target target, long newWatermark, int rows) {}

    /** The warehouse committed; the flusher's in-memory watermark has not moved yet. */
    default void afterCommit(Warehouse.Target target, long newWatermark) {}

    /** About to change a table's schema (for example adding an evolved column). */
    default void beforeAlter(String table, String column) {}
}
