package dev.interlace.log.kafka;

import dev.interlace.runtime.dedup.DedupIndex;
import dev.interlace.runtime.ops.DaemonThreads;
import dev.interlace.runtime.ops.FatalErrors;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * The opening of a sequencer's deduplication index on a thread of its own ({@code interlace-kafka-index-<stream>}), so
 * that the sequencer serves the tasks that read no keys (a flusher's lease and commits) meanwhile: opening reads the
 * key blocks after the segments, seconds for a million keys, which a lease waited for when the sequencer's own thread
 * opened it. Only the sequencer's thread asks it, and it ends the opening before another starts (two openings of one
 * stream's folder would each take it from the other).
 */
final class IndexOpening {

    private final CompletableFuture<DedupIndex> opened = new CompletableFuture<>();

    private IndexOpening() {}

    /** Starts opening the index with {@code open} on a new thread named after {@code stream}. */
    static IndexOpening start(String stream, Supplier<DedupIndex> open) {
        IndexOpening opening = new IndexOpening();
        Thread thread = DaemonThreads.thread(() -> {
            try {
                opening.opened.complete(open.get());
            } catch (Throwable e) {
                FatalErrors.exitIfFatal(e); // out of memory ends the process, whatever the sequencer does meanwhile
                // Rethrown on the sequencer's thread, which handles it as it did when it opened the index itself.
                opening.opened.completeExceptionally(e);
            }
        }, "interlace-kafka-index-" + stream);
        thread.start();
        return opening;
    }

    /**
     * The index once open, waiting up to {@code waitMillis} for it; null while it is still opening. Throws what the
     * opening threw.
     */
    DedupIndex await(long waitMillis) throws InterruptedException {
        try {
            return opened.get(waitMillis, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            return null;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (e.getCause() instanceof Error error) {
                throw error;
            }
            throw new IllegalStateException(e.getCause());
        }
    }

    /** Waits for the opening to end, whatever the sequencer does meanwhile; the index, or null when it failed. */
    DedupIndex end() {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return opened.get();
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    return null; // told on the sequencer's thread, or moot: it stops or opens the index again
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
