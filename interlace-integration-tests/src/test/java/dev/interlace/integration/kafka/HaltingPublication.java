package dev.interlace.integration.kafka;

import dev.interlace.log.kafka.IndexPublicationListener;
import dev.interlace.runtime.dedup.SegmentFile;
import dev.interlace.runtime.dedup.SegmentListener;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;

/**
 * Stops the process dead ({@link Runtime#halt}) at a step of the publication of the deduplication segments of stream
 * {@value #STREAM} ({@link PublicationFault}), after printing {@link #FIRED} and the step. Runs on the log's
 * publishing thread (the negative control's rewrite on the index's background thread), while the sequencer goes on
 * acknowledging publishes: the halt lands at a random point of their commits too.
 */
final class HaltingPublication implements IndexPublicationListener, SegmentListener {

    static final String FIRED = "published index fault fired: ";
    static final int HALT_STATUS = 86;
    /** The stream the faults watch: the one the load publishes to (each keyed stream publishes its own index). */
    static final String STREAM = "orders";

    private final PublicationFault fault;
    private final int trigger;
    private int seals;
    private int tombstones;
    private int written;
    /** The offset through which the negative control's emptied segment claims its keys; -1 before it is emptied. */
    private volatile long emptiedThrough = -1;

    HaltingPublication(PublicationFault fault, int trigger) {
        this.fault = fault;
        this.trigger = trigger;
    }

    @Override
    public synchronized void partSent(String stream, String file, int part, int parts) {
        if (stream.equals(STREAM) && fault == PublicationFault.PART_SENT && seals >= trigger) {
            halt("file=" + file + " part=" + (part + 1) + "/" + parts + " after seals=" + seals);
        }
    }

    @Override
    public synchronized void sealed(String stream, long sealedThrough) {
        if (!stream.equals(STREAM) || sealedThrough == 0) {
            return; // another stream's, or the seal of no segment a holder publishes when it opens the index
        }
        seals++;
        if (fault == PublicationFault.SEALED && seals == trigger) {
            halt("seal=" + seals + " through=" + sealedThrough);
        }
        if (fault == PublicationFault.SEGMENT_AHEAD && emptiedThrough >= 0 && sealedThrough >= emptiedThrough) {
            halt("seal=" + seals + " through=" + sealedThrough + " names the emptied segment through "
                    + emptiedThrough);
        }
    }

    @Override
    public synchronized void tombstoned(String stream, String file, int part) {
        if (!stream.equals(STREAM)) {
            return;
        }
        tombstones++;
        if (fault == PublicationFault.TOMBSTONED && tombstones == trigger) {
            halt("tombstone=" + tombstones + " file=" + file + " part=" + (part + 1));
        }
    }

    @Override
    public synchronized void written(Path file) {
        if (fault != PublicationFault.SEGMENT_AHEAD || !file.getParent().getFileName().toString()
                .startsWith(STREAM + "-") || ++written != trigger) {
            return;
        }
        try {
            long[] range = SegmentFile.range(file);
            SegmentFile.write(file, range[0], range[1], Long.MAX_VALUE, new long[0], new long[0], 0);
            emptiedThrough = range[1];
            System.out.println("negative control: " + file.getFileName() + " emptied, still claiming offsets "
                    + range[0] + " to " + range[1]);
            System.out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void halt(String step) {
        System.out.println(FIRED + fault.argument() + " " + step);
        System.out.flush();
        Runtime.getRuntime().halt(HALT_STATUS);
    }
}
