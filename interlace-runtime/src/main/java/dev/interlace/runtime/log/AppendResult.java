package dev.interlace.runtime.log;

import java.util.List;

/**
 * What became of an append: committed (with each entry's fate) or refused as a whole ({@link Backpressure}) before
 * anything was written.
 */
public sealed interface AppendResult permits AppendResult.Committed, Backpressure {

    /** What happened to one entry. */
    enum Status { ACCEPTED, DUPLICATE, QUARANTINED }

    /**
     * One entry's fate.
     *
     * @param status accepted, duplicate (of an event already in the log) or quarantined
     * @param offset the event's offset; for a duplicate the original event's offset; for a quarantined event its
     *     quarantine sequence number
     */
    record EntryResult(Status status, long offset) {}

    /**
     * The request is durable.
     *
     * @param entries one result per request entry, in request order
     * @param committedAtMicros when the group commit containing the request was written, epoch microseconds
     */
    record Committed(List<EntryResult> entries, long committedAtMicros) implements AppendResult {
        public Committed {
            entries = List.copyOf(entries);
        }

        public long count(Status status) {
            long count = 0;
            for (EntryResult entry : entries) {
                if (entry.status() == status) {
                    count++;
                }
            }
            return count;
        }
    }
}
