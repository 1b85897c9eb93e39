package dev.interlace.runtime.log;

import dev.interlace.runtime.dedup.DedupIndex;

/**
 * Limits of the log.
 *
 * @param maxPending the most entries (events and quarantined events) of one stream that may wait to be
 *     materialised; an append that would exceed it is refused with backpressure
 * @param walCapBytes WAL size past which the background checkpoint restarts the WAL instead of a passive checkpoint
 * @param maxGroupRequests the most requests committed together in one transaction
 * @param publishRecords whether a publish record is written with every acknowledged request ({@code
 *     record-retention} 0 turns them off)
 * @param publishIndexMillis how often a group commit copies the publish records written since the last copy into
 *     {@code publishes} and indexes them by request id; the longer, the longer the group commit that does it
 * @param dedup how many deduplication keys each stream keeps in memory before sealing them to disk, and how
 *     segments merge
 */
public record LogSettings(long maxPending, long walCapBytes, int maxGroupRequests, boolean publishRecords,
        long publishIndexMillis, DedupIndex.Settings dedup) {

    /** Publish records copied and indexed every 50 ms: a few milliseconds of the writer at most at full speed. */
    public static final long PUBLISH_INDEX_MILLIS = 50;

    public LogSettings {
        if (maxPending < 1) {
            throw new IllegalArgumentException("maxPending must be at least 1, got " + maxPending);
        }
        if (publishIndexMillis < 1) {
            throw new IllegalArgumentException("publishIndexMillis must be at least 1, got " + publishIndexMillis);
        }
    }

    public LogSettings(long maxPending, long walCapBytes, int maxGroupRequests, boolean publishRecords) {
        this(maxPending, walCapBytes, maxGroupRequests, publishRecords, PUBLISH_INDEX_MILLIS,
                DedupIndex.Settings.DEFAULTS);
    }

    /** These settings with publish records copied and indexed every {@code millis} ms. */
    public LogSettings withPublishIndexMillis(long millis) {
        return new LogSettings(maxPending, walCapBytes, maxGroupRequests, publishRecords, millis, dedup);
    }

    /** These settings with the deduplication index's {@code dedup}. */
    public LogSettings withDedup(DedupIndex.Settings dedup) {
        return new LogSettings(maxPending, walCapBytes, maxGroupRequests, publishRecords, publishIndexMillis, dedup);
    }

    public static LogSettings defaults(long maxPending) {
        return new LogSettings(maxPending, 256L * 1024 * 1024, 1024, true);
    }
}
