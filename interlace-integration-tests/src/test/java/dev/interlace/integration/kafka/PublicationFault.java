package dev.interlace.integration.kafka;

import dev.interlace.integration.crash.ChildFault;

/**
 * Where a {@link PublishedIndexFaultServeMain} child stops itself while publishing its deduplication segments to the
 * stream's index topics. Lives in test code only: no flag of the shipped jar reaches it.
 */
enum PublicationFault implements ChildFault {

    /** No fault: the node that takes the stream over. */
    NONE,
    /**
     * Halt as soon as a part of a segment file is on the brokers, once the trigger's number of seals were published
     * before: the parts of a publication sent, its seal not (the last seal names the segments before them).
     */
    PART_SENT,
    /** Halt as soon as the trigger-th seal is on the brokers, before the parts it no longer names are tombstoned. */
    SEALED,
    /** Halt as soon as the trigger-th tombstone of a part no seal names any more is on the brokers. */
    TOMBSTONED,
    /**
     * Negative control: the trigger-th segment file the holder writes is replaced by one that claims the same offsets
     * and holds none of their keys, and the holder halts once a seal naming it is on the brokers: a published index
     * ahead of its contents, which the next holder trusts, so that re-published keys come back as new.
     */
    SEGMENT_AHEAD;
}
