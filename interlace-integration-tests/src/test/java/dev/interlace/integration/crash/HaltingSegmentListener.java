package dev.interlace.integration.crash;

import dev.interlace.runtime.dedup.DedupIndex;
import dev.interlace.runtime.dedup.SegmentFile;
import dev.interlace.runtime.dedup.SegmentListener;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Stops the process dead at a step of the deduplication index's files ({@link FaultPoint#inDedupIndex()}), the N-th
 * time that step happens after it is {@linkplain #arm() armed}. Runs on the index's background thread; the writer
 * goes on committing meanwhile, so the halt lands at a random point of the commit protocol as well. The trim's faults
 * ({@link FaultPoint#inTrim()}) fire on the writer thread, in the retention sweep's trim.
 */
final class HaltingSegmentListener implements SegmentListener {

    private final FaultPoint fault;
    private final int trigger;
    private volatile boolean armed;
    /** The offset the armed retention sweep trims through, for the trim's faults. */
    private volatile long trimBound;
    private int steps;

    HaltingSegmentListener(FaultPoint fault, int trigger) {
        this.fault = fault;
        this.trigger = trigger;
    }

    void arm() {
        armed = true;
    }

    /** Arms the trim's faults for a retention sweep that trims through {@code bound}. */
    void armTrim(long bound) {
        trimBound = bound;
        armed = true;
    }

    @Override
    public void writing(Path temporary) {
        if (fault == FaultPoint.SEGMENT_WRITING) {
            countAndMaybeHalt(temporary);
        }
    }

    @Override
    public void written(Path file) {
        if (fault == FaultPoint.SEGMENT_WRITTEN || fault == FaultPoint.SEGMENT_AHEAD) {
            countAndMaybeHalt(file);
        }
    }

    @Override
    public void deleting(Path file) {
        if (fault == FaultPoint.SEGMENT_DELETING
                || (fault.inTrim() && fault != FaultPoint.TRIM_COMMITTED && deletedByATrim())) {
            countAndMaybeHalt(file);
        }
    }

    /** Whether the deletion under way is a trim's (and not a merge's): the index's trim is on the stack. */
    private static boolean deletedByATrim() {
        return StackWalker.getInstance().walk(frames -> frames.anyMatch(frame ->
                frame.getClassName().equals(DedupIndex.class.getName())
                        && frame.getMethodName().equals("removeThrough")));
    }

    /**
     * The segment files of {@code directory} on one side of {@code bound}: those the trim empties ({@code covered},
     * every key at or below it) or those it keeps.
     */
    private static List<Path> segments(Path directory, long bound, boolean covered) {
        try (Stream<Path> files = Files.list(directory)) {
            List<Path> found = new ArrayList<>();
            for (Path file : files.filter(path -> path.getFileName().toString().endsWith(".seg")).toList()) {
                if ((SegmentFile.range(file)[1] <= bound) == covered) {
                    found.add(file);
                }
            }
            return found;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Rewrites a segment as one that claims the same offsets and holds none of their keys. */
    private static void emptyKeepingItsRange(Path file) {
        try {
            long[] range = SegmentFile.range(file);
            SegmentFile.write(file, range[0], range[1], Long.MAX_VALUE, new long[0], new long[0], 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void delete(Path file) {
        try {
            Files.delete(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private synchronized void countAndMaybeHalt(Path file) {
        if (!armed) {
            return;
        }
        steps++;
        if (steps == trigger) {
            String changed = "";
            if (fault == FaultPoint.SEGMENT_AHEAD) {
                emptyKeepingItsRange(file);
            } else if (fault == FaultPoint.TRIM_DELETED) {
                List<Path> emptied = segments(file.getParent(), trimBound, true);
                emptied.forEach(HaltingSegmentListener::delete);
                changed = " deleted=" + emptied.size();
            } else if (fault == FaultPoint.TRIM_AHEAD) {
                List<Path> kept = segments(file.getParent(), trimBound, false);
                kept.forEach(HaltingSegmentListener::emptyKeepingItsRange);
                changed = " emptied=" + kept.size();
            }
            Halt.withMarker(CrashServerMain.FAULT_FIRED + fault.argument() + " step=" + steps + " file="
                    + file.getFileName() + changed);
        }
    }
}
