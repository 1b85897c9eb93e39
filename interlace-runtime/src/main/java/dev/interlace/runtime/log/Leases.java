package dev.interlace.runtime.log;

/** Outcomes of the consumer-group operations of {@link ConsumerGroups} (leases with fencing tokens, commits). */
public final class Leases {

    private Leases() {}

    /** What {@link ConsumerGroups#lease} answered. */
    public sealed interface LeaseResult {}

    /**
     * The lease is yours until {@code expiresAtMicros}; present {@code token} with every commit.
     *
     * @param token the fencing token: higher than any earlier holder's
     * @param committedOffset the group's committed offset; read after it
     */
    public record Granted(long token, long committedOffset, long expiresAtMicros) implements LeaseResult {}

    /** Someone else holds an unexpired lease. */
    public record Held(String holder, long expiresAtMicros) implements LeaseResult {}

    /** What {@link ConsumerGroups#commit} answered. */
    public sealed interface CommitResult {}

    /** The offset is committed. */
    public record Committed(long committedOffset) implements CommitResult {}

    /** The token is not the group's current one: another consumer took over. */
    public record StaleToken(long currentToken) implements CommitResult {}

    /** The lease expired; lease again (a new token) before committing. */
    public record LeaseExpired(long expiredAtMicros) implements CommitResult {}

    /** The offset is below the committed one. */
    public record OffsetRegressed(long committedOffset) implements CommitResult {}

    /** The offset is past the stream's head. */
    public record BeyondHead(long head) implements CommitResult {}

    /**
     * A consumer group's state.
     *
     * @param holder the lease holder, or null when nobody holds it
     * @param expiresAtMicros when the lease expires (0 when never leased)
     */
    public record Group(String stream, String group, long committedOffset, long token, String holder,
            long expiresAtMicros) {}
}
