package dev.interlace.runtime.dedup;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.function.LongSupplier;

/** Keys read from the source for a segment or the recent table: parallel arrays, grown as needed. */
final class KeyTable {

    private final Path directory;
    private final SegmentListener listener;
    private final int recentKeys;
    /** The index's trimmed offset now: keys at or below it are not collected. */
    private final LongSupplier trimmedThrough;

    long[] hashes = new long[1024];
    long[] offsets = new long[1024];
    int count;
    long newest = Long.MIN_VALUE;

    KeyTable(Path directory, SegmentListener listener, int recentKeys, LongSupplier trimmedThrough) {
        this.directory = directory;
        this.listener = listener;
        this.recentKeys = recentKeys;
        this.trimmedThrough = trimmedThrough;
    }

    /** Adds the pairs of one group whose offsets are in {@code (after, through]}. */
    void addGroup(ByteBuffer keys, long after, long through, long newestIngestedAtMicros) {
        ByteBuffer pairs = keys.duplicate();
        while (pairs.remaining() >= 2 * Long.BYTES) {
            long offset = pairs.getLong();
            long hash = pairs.getLong();
            if (offset > after && offset <= through && offset > trimmedThrough.getAsLong()) {
                if (count == hashes.length) {
                    hashes = Arrays.copyOf(hashes, count * 2);
                    offsets = Arrays.copyOf(offsets, count * 2);
                }
                hashes[count] = hash;
                offsets[count] = offset;
                count++;
                newest = Math.max(newest, newestIngestedAtMicros);
            }
        }
    }

    SegmentFile write(long after, long through) throws IOException {
        PairSort.sort(hashes, offsets, count);
        Path file = directory.resolve(SegmentFile.name(after, through));
        try (SegmentWriter writer = new SegmentWriter(file, after, through, newest, count)) {
            for (int i = 0; i < count; i++) {
                writer.add(hashes[i], offsets[i]);
            }
            writer.finish(listener);
        }
        return SegmentFile.open(file);
    }

    void clear() {
        count = 0;
        newest = Long.MIN_VALUE;
        if (hashes.length > 4 * recentKeys) {
            hashes = new long[1024];
            offsets = new long[1024];
        }
    }
}
