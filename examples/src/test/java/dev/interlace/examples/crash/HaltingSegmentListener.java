package dev.interlace.examples.crash;

import dev.interlace.runtime.dedup.SegmentFile;
import dev.interlace.runtime.dedup.SegmentListener;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;

/**
 * Stops the process dead at a step of the deduplication index's files ({@link FaultPoint#inDedupIndex()}), the N-th
 * time that step happens after it is {@linkplain #arm() armed}. Runs on the index's background thread; the writer
 * goes on committing meanwhile, so the halt lands at a random point of the commit protocol as well.
 */
final class HaltingSegmentListener implements SegmentListener {

    private final FaultPoint fault;
    private final int trigger;
    private volatile boolean armed;
    private int steps;

    HaltingSegmentListener(FaultPoint fault, int trigger) {
        this.fault = fault;
        this.trigger = trigger;
    }

    void arm() {
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
        if (fault == FaultPoint.SEGMENT_DELETING) {
            countAndMaybeHalt(file);
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

    private synchronized void countAndMaybeHalt(Path file) {
        if (!armed) {
            return;
        }
        steps++;
        if (steps == trigger) {
            if (fault == FaultPoint.SEGMENT_AHEAD) {
                emptyKeepingItsRange(file);
            }
            System.out.println(CrashServerMain.FAULT_FIRED + fault.argument() + " step=" + steps + " file="
                    + file.getFileName());
            System.out.flush();
            Runtime.getRuntime().halt(HaltingCommitListener.HALT_STATUS);
        }
    }
}
