package dev.interlace.runtime.log;

/**
 * Limits of the log.
 *
 * @param maxPending the most entries (events and quarantined events) of one stream that may wait to be
 *     materialised; an append that would exceed it is refused with backpressure
 * @param walCapBytes WAL size past which the background checkpoint restarts the WAL instead of a passive checkpoint
 * @param maxGroupRequests the most requests committed together in one transaction
 * @param publishRecords whether a publish record is written with every acknowledged request ({@code
 *     record-retention} 0 turns them off)
 */
public record LogSettings(long maxPending, long walCapBytes, int maxGroupRequests, boolean publishRecords) {

    public LogSettings {
        if (maxPending < 1) {
            throw new IllegalArgumentException("maxPending must be at least 1, got " + maxPending);
        }
    }

    public static LogSettings defaults(long maxPending) {
        return new LogSettings(maxPending, 256L * 1024 * 1024, 1024, true);
    }
}
