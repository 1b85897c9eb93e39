package dev.interlace.runtime.dedup;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.function.BooleanSupplier;

/**
 * Which segments of an index are due to be merged and the merge itself: {@link DedupIndex.Settings#fanIn()}
 * neighbouring segments of similar size become one, so that a lookup tests few filters (about 3 per factor of 4 in
 * keys).
 */
final class SegmentMerge {

    /** How many keys a merge writes between two looks at whether it is cancelled. */
    private static final long CANCEL_CHECK_KEYS = 1 << 16;

    private final Path directory;
    private final SegmentListener listener;
    private final DedupIndex.Settings settings;

    SegmentMerge(Path directory, SegmentListener listener, DedupIndex.Settings settings) {
        this.directory = directory;
        this.listener = listener;
        this.settings = settings;
    }

    /**
     * The oldest {@link DedupIndex.Settings#fanIn()} neighbouring segments of one size class among {@code segments}
     * (by offset range), or null when none are due.
     */
    List<SegmentFile> due(List<SegmentFile> segments) {
        int fanIn = settings.fanIn();
        List<SegmentFile> inputs = null;
        long keys = 0;
        for (int first = 0; inputs == null && first + fanIn <= segments.size(); first++) {
            int sizeClass = sizeClass(segments.get(first));
            keys = 0;
            boolean same = true;
            for (int i = first; same && i < first + fanIn; i++) {
                same = sizeClass(segments.get(i)) == sizeClass;
                keys += segments.get(i).keys();
            }
            if (same && keys <= SegmentFile.MAX_KEYS) {
                inputs = List.copyOf(segments.subList(first, first + fanIn));
            }
        }
        return inputs;
    }

    /** Which power of {@link DedupIndex.Settings#fanIn()} times a recent table a segment's size is nearest below. */
    private int sizeClass(SegmentFile segment) {
        long units = Math.max(1, segment.keys() / settings.recentKeys());
        int sizeClass = 0;
        while (units >= settings.fanIn()) {
            units /= settings.fanIn();
            sizeClass++;
        }
        return sizeClass;
    }

    /** The merged segment of {@code inputs}, or null when {@code cancelled} said so first (nothing is left behind). */
    SegmentFile merge(List<SegmentFile> inputs, long keys, BooleanSupplier cancelled) throws IOException {
        long after = inputs.get(0).afterOffset();
        long through = inputs.get(inputs.size() - 1).throughOffset();
        long newest = Long.MIN_VALUE;
        List<SegmentFile.Cursor> cursors = new ArrayList<>();
        Path file = directory.resolve(SegmentFile.name(after, through));
        try (SegmentWriter writer = new SegmentWriter(file, after, through,
                inputs.stream().mapToLong(SegmentFile::newestIngestedAtMicros).max().orElse(newest), keys)) {
            PriorityQueue<SegmentFile.Cursor> byHash = new PriorityQueue<>(
                    Comparator.comparingLong(SegmentFile.Cursor::hash).thenComparingLong(SegmentFile.Cursor::offset));
            for (SegmentFile input : inputs) {
                SegmentFile.Cursor cursor = input.cursor();
                cursors.add(cursor);
                if (cursor.next()) {
                    byHash.add(cursor);
                }
            }
            long lastHash = 0;
            long lastOffset = -1;
            long written = 0;
            while (!byHash.isEmpty()) {
                if (++written % CANCEL_CHECK_KEYS == 0 && cancelled.getAsBoolean()) {
                    return null; // the writer's close deletes the unfinished file
                }
                SegmentFile.Cursor cursor = byHash.poll();
                if (cursor.hash() != lastHash || cursor.offset() != lastOffset) {
                    writer.add(cursor.hash(), cursor.offset());
                    lastHash = cursor.hash();
                    lastOffset = cursor.offset();
                }
                if (cursor.next()) {
                    byHash.add(cursor);
                }
            }
            writer.finish(listener);
        } finally {
            for (SegmentFile.Cursor cursor : cursors) {
                cursor.close();
            }
        }
        return SegmentFile.open(file);
    }
}
