package dev.interlace.runtime.log;

import java.time.Duration;
import java.util.List;

/**
 * Consumer groups of the log's streams: a group's position is leased to one owner at a time, with a fencing token,
 * and committed by that owner.
 *
 * <p>Leases and commits are durable like an append (on the SQLite implementation they go through the same writer).
 */
public interface ConsumerGroups {

    /**
     * Leases {@code group}'s position in {@code stream} to {@code owner} for {@code ttl}. A lease nobody holds (never
     * leased, released or expired) is granted with a fencing token higher than any before; the unexpired holder may
     * lease again to renew (same token); anyone else is refused. Durable like an append.
     */
    Leases.LeaseResult lease(String stream, String group, String owner, Duration ttl);

    /**
     * Commits {@code offset} as processed by {@code group}, refused unless {@code token} is current, the lease has not
     * expired, the offset does not go backwards and is not past the head. Durable like an append.
     */
    Leases.CommitResult commit(String stream, String group, long token, long offset);

    /** Gives the lease up so another consumer can take it at once; false when {@code token} is not current. */
    boolean release(String stream, String group, long token);

    /** The consumer groups of {@code stream}, ordered by name. */
    List<Leases.Group> groups(String stream);
}
