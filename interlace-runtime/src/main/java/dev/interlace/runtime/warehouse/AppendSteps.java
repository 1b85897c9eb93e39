package dev.interlace.runtime.warehouse;

/**
 * Told of the steps inside a {@link StreamTables#append} transaction, on the appending thread. The flusher's
 * listeners receive them (the flush package's listener extends this), and the crash tests stop the process at one of
 * them to prove that rows and watermark commit together.
 */
public interface AppendSteps {

    AppendSteps NONE = new AppendSteps() {};

    /** Inside the transaction: the watermark compare-and-set ran, nothing appended yet. */
    default void afterWatermarkUpdate(StreamTables.Target target, long newWatermark) {}

    /** Inside the transaction: rows and watermark are written, the commit is next. */
    default void beforeCommit(StreamTables.Target target, long newWatermark, int rows) {}

    /** About to change a table's schema (for example adding an evolved column). */
    default void beforeAlter(String table, String column) {}
}
