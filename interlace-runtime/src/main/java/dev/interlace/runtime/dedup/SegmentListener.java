package dev.interlace.runtime.dedup;

import java.nio.file.Path;
import java.util.List;

/**
 * Told of the steps by which a deduplication index changes its files; does nothing by default. Crash tests stop the
 * process at these steps.
 */
public interface SegmentListener {

    SegmentListener NONE = new SegmentListener() {};

    /** A segment's contents are written to {@code temporary}, not yet fsynced or renamed to its final name. */
    default void writing(Path temporary) {}

    /** A segment is durable under its final name {@code file}, not yet used by lookups. */
    default void written(Path file) {}

    /** A segment that a trim or a merge made unnecessary is about to be deleted. */
    default void deleting(Path file) {}

    /**
     * The segments lookups use changed (opened, sealed, merged, trimmed, rebuilt): {@code files} in offset order hold
     * every key of the window through {@code sealedThrough}. Told on the index's owning thread; the files may be
     * deleted by a later change, which is told too.
     */
    default void inUse(List<Path> files, long sealedThrough) {}
}
