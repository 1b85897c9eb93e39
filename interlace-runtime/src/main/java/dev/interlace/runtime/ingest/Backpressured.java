package dev.interlace.runtime.ingest;

import dev.interlace.runtime.log.Backpressure;

/**
 * A publish or a quarantine replay refused because its stream's backlog is full (429): the log's {@link Backpressure},
 * the one refusal of both; nothing was stored; retry after {@code retryAfterSeconds}.
 */
public record Backpressured(String requestId, String stream, long pending, long maxPending, int retryAfterSeconds)
        implements PublishOutcome, ReplayOutcome {

    /** The log's refusal of a request to {@code stream}, as answered. */
    static Backpressured of(String requestId, String stream, Backpressure refused) {
        return new Backpressured(requestId, stream, refused.pending(), refused.maxPending(),
                Publisher.BACKPRESSURE_RETRY_SECONDS);
    }
}
