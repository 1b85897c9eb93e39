package dev.interlace.runtime.ops;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@link DiskSpace} of the file system holding the data directory: one {@code statvfs} at most every
 * {@value #REFRESH_MILLIS} ms (publishes ask on every request, some of them on the HTTP transport's I/O thread).
 */
public final class DataDirectoryDiskSpace implements DiskSpace {

    /** How old the figure may be; at 200 000 events/s of 100 bytes that is 2 MB of writes unseen. */
    static final long REFRESH_MILLIS = 10;

    private final FileStore store;
    /** The newest figure and when its reading began; null before the first call. */
    private final AtomicReference<Reading> last = new AtomicReference<>();

    private record Reading(long usableBytes, long atNanos) {}

    public DataDirectoryDiskSpace(Path dataDirectory) {
        try {
            this.store = Files.getFileStore(dataDirectory);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot inspect the file system of " + dataDirectory, e);
        }
    }

    @Override
    public long usableBytes() {
        Reading reading = last.get();
        if (reading != null && System.nanoTime() - reading.atNanos() < REFRESH_MILLIS * 1_000_000) {
            return reading.usableBytes();
        }
        return usableBytesNow();
    }

    @Override
    public long usableBytesNow() {
        long startedNanos = System.nanoTime();
        long bytes;
        try {
            bytes = store.getUsableSpace();
        } catch (IOException e) {
            bytes = 0;
        }
        Reading reading = new Reading(bytes, startedNanos);
        // Never replaced by a reading that began earlier (a slower thread's), which may predate freed space.
        last.accumulateAndGet(reading, (current, fresh) ->
                current == null || fresh.atNanos() - current.atNanos() >= 0 ? fresh : current);
        return bytes;
    }
}
