package dev.interlace.runtime.flush;

/**
 * The log no longer holds the events right after a stream's watermark: it was trimmed past it while this warehouse
 * was away (a replica dropped from the set and back, an old warehouse restored against a newer log). Flushing on
 * would skip the trimmed events and leave a hole in the warehouse, so the stream's flush stops instead
 * ({@link FlushState#STOPPED}) until an operator restores or rebuilds the warehouse.
 */
public final class LogTrimmedException extends IllegalStateException {

    LogTrimmedException(String stream, long watermark, long firstOffset) {
        super("the log was trimmed past this warehouse's watermark of stream " + stream + ": the warehouse holds its"
                + " events through offset " + watermark + ", the log's first is " + firstOffset + ", so events "
                + (watermark + 1) + "-" + (firstOffset - 1) + " are in neither; the stream's flush stopped rather"
                + " than leave a hole: restore this warehouse from a backup and the log, or rebuild it in a new data"
                + " directory while the log holds every event (see docs/operations.md, \"A warehouse behind a trimmed"
                + " log\")");
    }

    /**
     * Throws when the log's first event of {@code stream}, {@code earliest}, lies beyond {@code watermark + 1} while
     * events after the watermark exist ({@code head}), for a warehouse that holds rows ({@code holdsRows}: a fresh
     * one starts from whatever the log still holds, within its retention).
     */
    static void check(String stream, long watermark, long head, long earliest, boolean holdsRows) {
        if ((holdsRows || watermark > 0) && head > watermark && earliest > watermark + 1) {
            throw new LogTrimmedException(stream, watermark, earliest);
        }
    }
}
