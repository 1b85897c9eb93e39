package dev.interlace.runtime.dedup;

import java.io.Closeable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.BitSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The run of one segment restored without it ({@link RemoteRuns}): which parts of the file are here, and the fetch of
 * those a read needs, written into their place so that each is fetched once. Lookups (the writer thread, or a thread
 * that fetches outside the index's lock: {@link DedupIndex#missingRuns}), a merge's cursor and the background copy
 * may want parts at once: each part is fetched by the first thread that wants it, and the others wait for that fetch
 * only, not for fetches of other parts.
 */
final class RemoteRun implements Closeable {

    private final String name;
    private final RemoteRuns runs;
    private final int partBytes;
    private final FileChannel channel;
    /** The parts on disk; guarded by itself. */
    private final BitSet here = new BitSet();
    /** The fetches under way, by part: whoever wants a part being fetched waits for its future. */
    private final ConcurrentHashMap<Integer, CompletableFuture<Void>> fetching = new ConcurrentHashMap<>();
    /** Bytes of the run not on disk yet (0 once closed). */
    private final AtomicLong missingBytes;

    /** Where the run begins and the file ends. */
    private final long runOffset;
    private final long fileBytes;

    RemoteRun(Path file, String name, RemoteRuns runs, long runOffset, long fileBytes) throws IOException {
        this.name = name;
        this.runOffset = runOffset;
        this.fileBytes = fileBytes;
        this.runs = runs;
        this.partBytes = runs.partBytes();
        this.channel = FileChannel.open(file, StandardOpenOption.WRITE);
        int headParts = (int) RemoteRuns.headParts(runOffset, partBytes);
        here.set(0, headParts);
        this.missingBytes = new AtomicLong(Math.max(0, fileBytes - (long) headParts * partBytes));
    }

    /** Whether bytes {@code [position, position + length)} of the file are on disk (any thread). */
    boolean here(long position, long length) {
        synchronized (here) {
            for (long part = position / partBytes; part <= (position + length - 1) / partBytes; part++) {
                if (!here.get((int) part)) {
                    return false;
                }
            }
            return true;
        }
    }

    /**
     * Makes bytes {@code [position, position + length)} of the file readable, fetching the parts not here yet (any
     * thread; a part another thread is fetching is waited for, not fetched again).
     *
     * @throws IOException when a part cannot be fetched or written (the run was closed, the copy is gone)
     */
    void ensure(long position, long length) throws IOException {
        for (long part = position / partBytes; part <= (position + length - 1) / partBytes; part++) {
            ensurePart((int) part);
        }
    }

    private void ensurePart(int part) throws IOException {
        if (partHere(part)) {
            return;
        }
        CompletableFuture<Void> mine = new CompletableFuture<>();
        CompletableFuture<Void> theirs = fetching.putIfAbsent(part, mine);
        if (theirs != null) {
            await(theirs);
            return;
        }
        try {
            if (!partHere(part)) { // another thread may have finished it since the check above
                ByteBuffer bytes = ByteBuffer.wrap(runs.part(name, part));
                int length = bytes.remaining();
                while (bytes.hasRemaining()) {
                    channel.write(bytes, (long) part * partBytes + bytes.position());
                }
                synchronized (here) {
                    here.set(part);
                }
                missingBytes.addAndGet(-length);
            }
            mine.complete(null);
        } catch (IOException | RuntimeException | Error e) {
            mine.completeExceptionally(e);
            throw e;
        } finally {
            fetching.remove(part, mine);
        }
    }

    private boolean partHere(int part) {
        synchronized (here) {
            return here.get(part);
        }
    }

    private void await(CompletableFuture<Void> fetch) throws IOException {
        try {
            fetch.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for part of " + name);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            throw cause instanceof IOException io ? io
                    : new IOException("fetching a part of " + name + " failed: " + cause, cause);
        }
    }

    /**
     * Fetches every part of the run not here yet, one at a time (a lookup waits for one part at most, and only when
     * it wants that very part), until done or the segment is closed.
     */
    void fetchAll() throws IOException {
        for (long position = runOffset; position < fileBytes; position += partBytes - position % partBytes) {
            try {
                ensurePart((int) (position / partBytes));
            } catch (IOException e) {
                if (!channel.isOpen()) {
                    return; // the segment was closed (merged, trimmed, the index closed): nothing left to copy
                }
                throw e;
            }
        }
    }

    /** Bytes of the run not on disk yet: 0 once all are, or once the segment is closed (any thread). */
    long missingBytes() {
        return channel.isOpen() ? missingBytes.get() : 0;
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
