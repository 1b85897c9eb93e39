package dev.interlace.runtime.dedup;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Where a deduplication index reads the keys it has no segment for: the log's own durable record of each group
 * commit's new keys. The index builds segments from it (sealing, rebuilding a missing or corrupt segment) and fills
 * its recent keys from it at start-up, so the index is derived data the log can always rebuild.
 */
public interface KeySource {

    /**
     * Calls {@code visitor} with the new keys of each group commit whose newest key is after {@code afterOffset} and
     * whose newest event is younger than {@code notBeforeMicros}, in ascending order of that newest key, until it
     * returns false.
     */
    void scan(long afterOffset, long notBeforeMicros, GroupVisitor visitor) throws IOException;

    /** Receives the keys of one group commit. */
    interface GroupVisitor {
        /**
         * @param lastOffset the offset of the group's newest key
         * @param newestIngestedAtMicros when the group's newest event arrived
         * @param keys (offset, hash) pairs of 8 bytes each, in no particular order
         * @return whether to go on
         */
        boolean group(long lastOffset, long newestIngestedAtMicros, ByteBuffer keys) throws IOException;
    }
}
