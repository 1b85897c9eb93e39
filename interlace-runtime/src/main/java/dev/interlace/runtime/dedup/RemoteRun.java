package dev.interlace.runtime.dedup;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.BitSet;

/**
 * The run of one segment restored without it ({@link RemoteRuns}): which parts of the file are here, and the fetch of
 * those a read needs, written into their place so that each is fetched once. Lookups (the writer thread) and a merge's
 * cursor (a background thread) may read at once, hence the lock.
 */
final class RemoteRun implements Closeable {

    private final String name;
    private final RemoteRuns runs;
    private final int partBytes;
    private final FileChannel channel;
    private final BitSet here = new BitSet();

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
        here.set(0, (int) RemoteRuns.headParts(runOffset, partBytes));
    }

    /** Makes bytes {@code [position, position + length)} of the file readable, fetching the parts not here yet. */
    synchronized void ensure(long position, long length) throws IOException {
        for (long part = position / partBytes; part <= (position + length - 1) / partBytes; part++) {
            if (!here.get((int) part)) {
                ByteBuffer bytes = ByteBuffer.wrap(runs.part(name, (int) part));
                while (bytes.hasRemaining()) {
                    channel.write(bytes, part * partBytes + bytes.position());
                }
                here.set((int) part);
            }
        }
    }

    /**
     * Fetches every part of the run not here yet, one at a time (a lookup waits for one part at most), until done or
     * the segment is closed.
     */
    void fetchAll() throws IOException {
        for (long position = runOffset; position < fileBytes; position += partBytes - position % partBytes) {
            synchronized (this) {
                if (!channel.isOpen()) {
                    return;
                }
                ensure(position, 1);
            }
        }
    }

    @Override
    public synchronized void close() throws IOException {
        channel.close();
    }
}
