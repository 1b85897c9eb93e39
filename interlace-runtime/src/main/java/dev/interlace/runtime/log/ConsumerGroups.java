package dev.interlace.runtime.log;

import java.time.Duration;
import java.util.List;

/**
 * Consumer groups of the log's streams: a group's position is leased to one owner at a time, with a fencing token,
 * and committed by that owner; a group belongs to the keys that may use it. Every implementation decides with
 * {@link GroupRules}.
 *
 * <p>Leases and commits are durable like an append (on the SQLite implementation they go through the same writer).
 */
public interface ConsumerGroups {

    /**
     * Leases {@code group}'s position in {@code stream} to {@code owner} for {@code ttl}. A lease nobody holds (never
     * leased, released or expired) is granted with a token whose epoch is higher than any before; the unexpired holder
     * may lease again to renew (same token); anyone else is refused, and a key the group does not belong to is
     * {@link Leases.Forbidden}. Durable like an append.
     */
    Leases.LeaseResult lease(String stream, String group, String owner, Duration ttl, Leases.Actor actor);

    /**
     * Commits {@code offset} as processed by {@code group}, refused unless {@code actor} may act on the group,
     * {@code token} is current (null never is), the lease has not expired, the offset does not go backwards and is
     * not past the head. Durable like an append.
     */
    Leases.CommitResult commit(String stream, String group, Leases.Token token, long offset, Leases.Actor actor);

    /** Gives the lease up so another consumer can take it at once, when {@code token} is current. */
    Leases.ReleaseResult release(String stream, String group, Leases.Token token, Leases.Actor actor);

    /**
     * Adds {@code keyId} to the keys {@code group} belongs to, making the group (never leased, at offset 0) when it
     * does not exist; an admin's act, checked by the caller. Durable like an append.
     *
     * @return the group as it is now
     */
    Leases.Group grant(String stream, String group, String keyId);

    /** The consumer groups of {@code stream}, ordered by name. */
    List<Leases.Group> groups(String stream);
}
