package dev.interlace.runtime.log;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Replaying a stream's quarantine: moving quarantined events, once they are valid, into the stream, each at most
 * once. (Quarantined events are written by {@link EventLog#append} and read with {@link EventLog#readQuarantine},
 * whose entries carry their replay state.)
 *
 * <p>Contract: {@link #replay} appends the entries it is given exactly as {@link EventLog#append} would append an
 * equivalent request (the same deduplication, backpressure, publish record and durability before completing) and, in
 * the same atomic step, marks each appended entry replayed with its offset, so that no entry is ever replayed twice,
 * even by concurrent replays. An entry whose event turns out to be a duplicate of one already in the log is marked
 * replayed with the original's offset. A request into another partition of the stream than its quarantine's
 * ({@link ReplayRequest#elsewhere()}) appends there and marks the entries of the quarantine, in the same atomic step.
 * A backend that cannot make the mark atomic with the append must still never
 * append an entry twice; for keyed streams the event's idempotency key makes a repeated replay a duplicate.
 */
public interface QuarantineStore {

    /**
     * Appends the request's entries and marks them replayed, durably and atomically; or, for a dry run, decides the
     * same outcome without writing anything.
     *
     * @return a future completed once the outcome is durable (or decided, for a dry run); completed exceptionally
     *     with {@link LogUnavailableException} when the log cannot write
     */
    CompletableFuture<ReplayResult> replay(ReplayRequest request);

    /**
     * The quarantined entries of {@code stream} that the request {@code requestId} replayed, oldest first, at most
     * {@code limit}: the link from a replayed event back to where it was quarantined.
     */
    List<QuarantineEntry> replayedBy(String stream, String requestId, int limit);
}
