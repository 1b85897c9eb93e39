package dev.interlace.runtime.log;

import java.util.List;

/**
 * What became of a replay: decided entry by entry, or refused as a whole ({@link Backpressure}) before anything was
 * written.
 */
public sealed interface ReplayResult permits ReplayResult.Replayed, Backpressure {

    /** What happened to one quarantined entry. */
    enum Status {
        /** Appended now (or, in a dry run, would be) at {@code offset}. */
        ACCEPTED,
        /** An event with its idempotency key is already in the log at {@code offset}; marked replayed there. */
        DUPLICATE,
        /** Replayed before, to {@code offset}; nothing was done. */
        ALREADY_REPLAYED,
        /** The stream's quarantine has no entry with this sequence number. */
        UNKNOWN
    }

    /**
     * One entry's fate.
     *
     * @param offset the event's offset in the stream (for a duplicate, the original's; for an entry replayed before,
     *     the offset it was replayed to); 0 when unknown
     */
    record EntryResult(long seq, Status status, long offset) {}

    /**
     * Every entry is decided; durable unless {@code dryRun}.
     *
     * @param entries one result per request entry, in request order
     */
    record Replayed(List<EntryResult> entries, boolean dryRun) implements ReplayResult {
        public Replayed {
            entries = List.copyOf(entries);
        }

        public long count(Status status) {
            return entries.stream().filter(entry -> entry.status() == status).count();
        }
    }
}
