package dev.interlace.integration.crash;

/**
 * Where a crash-test child stops itself. Lives in test code only: the shipped jar has no switch that weakens
 * durability (docs/operations.md#crash-safety).
 */
enum FaultPoint implements ChildFault {

    /** No fault: the child runs until it is killed from outside (or serves as the recovering server). */
    NONE,
    /** Halt on the writer thread after the group's rows are written, before its COMMIT and fsync. */
    BEFORE_COMMIT,
    /** Halt on the writer thread after the group is durable, before any of its requests is answered. */
    AFTER_COMMIT,
    /**
     * Negative control: the log acknowledges every append at once, before it is written, and the child halts before
     * a later commit; acknowledged events are lost, and the oracle must notice.
     */
    ACK_BEFORE_COMMIT,
    /**
     * Halt on a deduplication background thread when a segment's contents (filter, fences, run) are written to its
     * temporary file, before the fsync and the rename: a filter save cut short.
     */
    SEGMENT_WRITING,
    /** Halt when a segment is durable under its final name, before lookups use it: a rotation cut short. */
    SEGMENT_WRITTEN,
    /** Halt when a segment a merge made unnecessary is about to be deleted. */
    SEGMENT_DELETING,
    /**
     * Negative control: a sealed segment is replaced by one that covers the same offsets but holds none of their keys
     * (an index saved ahead of the keys it claims), then the child halts; re-published keys must come back as new,
     * and the oracle must notice.
     */
    SEGMENT_AHEAD,
    /**
     * Halt when the retention sweep's trim is about to delete the first segment it empties: the log's rows and key
     * blocks are deleted in the trim's open transaction, no segment file is gone yet.
     */
    TRIM_DELETING,
    /**
     * When the retention sweep's trim is about to delete the first segment it empties, delete every segment it empties
     * and halt: the index is trimmed, the log's trim never commits (the window the trim's code leaves, as it deletes
     * the files before its commit).
     */
    TRIM_DELETED,
    /** Halt as soon as the retention sweep's trim has committed (its segment files gone, its rows too). */
    TRIM_COMMITTED,
    /**
     * Negative control: when the retention sweep's trim is about to delete the first segment it empties, every segment
     * covering offsets past the trim (keys inside the window) is replaced by one that claims the same offsets and holds
     * none of their keys (an index trimmed ahead of the log), then the child halts; the oracle must notice.
     */
    TRIM_AHEAD,
    /**
     * The writer thread runs out of memory (a thrown {@link OutOfMemoryError}) after the group's rows are written,
     * before its COMMIT: the process must end itself with status 3 rather than answer 503 forever.
     */
    OOM_BEFORE_COMMIT;

    /** Whether the fault fires in the deduplication index's file steps rather than in a group commit. */
    boolean inDedupIndex() {
        return this == SEGMENT_WRITING || this == SEGMENT_WRITTEN || this == SEGMENT_DELETING || this == SEGMENT_AHEAD
                || inTrim();
    }

    /** Whether the fault fires while the retention sweep trims the log (the child is told to sweep; no merges run). */
    boolean inTrim() {
        return this == TRIM_DELETING || this == TRIM_DELETED || this == TRIM_COMMITTED || this == TRIM_AHEAD;
    }
}
