package dev.interlace.runtime.log;

import java.util.concurrent.CompletableFuture;

/**
 * A stream log that another process writes and this one only reads, as a query process does to flush its replica of
 * the warehouse: appends and replays are refused, and trims do nothing, since the writer trims its own log. The
 * followers of each backend share these answers instead of repeating them.
 */
public interface ReadOnlyLog extends StreamLog {

    /** The log followed, as refusals name it, e.g. {@code the server's log}. */
    String followedLog();

    @Override
    default CompletableFuture<AppendResult> append(AppendRequest request) {
        return CompletableFuture.failedFuture(refused("append to"));
    }

    @Override
    default CompletableFuture<ReplayResult> replay(ReplayRequest request) {
        return CompletableFuture.failedFuture(refused("replay into"));
    }

    /** Nothing is trimmed from here: the writer trims its log. */
    @Override
    default long trim(String stream, long throughOffset) {
        return 0;
    }

    /** Nor are publish records: the writer keeps them for the record retention. */
    @Override
    default long trimPublishes(long beforeMicros) {
        return 0;
    }

    private UnsupportedOperationException refused(String what) {
        return new UnsupportedOperationException("a query process only reads " + followedLog() + "; it cannot " + what
                + " it");
    }
}
