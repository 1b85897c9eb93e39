package dev.interlace.runtime.log;

/**
 * The one refusal of an append or a replay: the stream's backlog would pass {@code --max-pending}; nothing was
 * written. Decided by {@link AppendDecision} for every log backend.
 *
 * @param pending entries not yet materialised
 * @param newEntries entries the request would have added
 * @param maxPending the limit
 */
public record Backpressure(long pending, long newEntries, long maxPending) implements AppendResult, ReplayResult {}
