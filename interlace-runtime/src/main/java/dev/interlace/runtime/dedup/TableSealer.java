package dev.interlace.runtime.dedup;

import dev.interlace.runtime.ops.DaemonThreads;
import java.io.Closeable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayDeque;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Seals whole tables of keys read from the source into segments on {@value #BUILD_WRITERS} threads of its own
 * while the caller goes on reading: sorting, writing and syncing a table took three times as long as reading its
 * keys. Segments are put in use in offset order, each once it is durable; at most {@value #BUILD_WRITERS} tables
 * are being written besides the one filling. Closing it waits for the tables under way.
 */
final class TableSealer implements Closeable {

    private static final Logger LOG = Logger.getLogger(DedupIndex.class.getName());
    /** How many tables of keys an opening seals at once. */
    private static final int BUILD_WRITERS = 2;

    private record Pending(Future<SegmentFile> segment, long through, KeyTable table) {}

    private final SealedSegments segments;
    private final ArrayDeque<Pending> pending = new ArrayDeque<>();
    private final ArrayDeque<KeyTable> spare = new ArrayDeque<>();
    private ExecutorService writers;
    KeyTable filling;

    /** A sealer that puts the segments it writes in use in {@code segments}. */
    TableSealer(SealedSegments segments) {
        this.segments = segments;
        this.filling = segments.newTable();
    }

    /** Hands the filling table, the keys of {@code (after, through]}, to a writer. */
    void seal(long after, long through) throws IOException {
        if (pending.size() == BUILD_WRITERS) {
            awaitOldest();
        }
        if (writers == null) {
            writers = Executors.newFixedThreadPool(BUILD_WRITERS, DaemonThreads.numbered("interlace-dedup-build-"));
        }
        KeyTable full = filling;
        pending.add(new Pending(writers.submit(() -> full.write(after, through)), through, full));
        filling = spare.isEmpty() ? segments.newTable() : spare.poll();
    }

    /** Waits for every table under way and puts its segment in use. */
    void finish() throws IOException {
        while (!pending.isEmpty()) {
            awaitOldest();
        }
    }

    private void awaitOldest() throws IOException {
        Pending oldest = pending.poll();
        SegmentFile segment;
        try {
            segment = oldest.segment().get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while sealing deduplication keys");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            throw new IllegalStateException("sealing deduplication keys failed: " + e.getCause(), e.getCause());
        }
        segments.append(segment, oldest.through());
        oldest.table().clear();
        spare.add(oldest.table());
    }

    @Override
    public void close() throws IOException {
        try {
            finish(); // after a failure: the tables written in time are complete segments, closed with the index
        } finally {
            while (!pending.isEmpty()) { // after a failed one: let the others end, closing what they wrote
                try {
                    SealedSegments.closeQuietly(pending.poll().segment().get());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (ExecutionException e) {
                    LOG.log(Level.FINE, "sealing deduplication keys into " + segments.directory() + " failed", e);
                }
            }
            if (writers != null) {
                writers.shutdown();
            }
        }
    }
}
