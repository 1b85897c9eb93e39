package dev.interlace.runtime.log;

import java.time.Duration;
import java.util.List;

/**
 * The decisions of {@link ConsumerGroups}, one rule for every log: from a group's current state (null when it does
 * not exist yet) and a request, what the group becomes and what the caller is answered. A log reads the state, asks
 * here, and stores the new state (when there is one) atomically with its other decisions, so that the SQLite log and
 * the Kafka log grant, fence and refuse alike.
 *
 * <p>Ownership: a group belongs to the key that created it and to the keys an admin granted it to; any other key is
 * answered {@link Leases.Forbidden} before its token or body is looked at. A group no key owns (made in open mode, or
 * before groups had owners) becomes the key's that leases it first, and that lease always starts a new epoch, so a
 * lease granted while tokens were not credentials is fenced off at once.
 *
 * <p>A lease is its key's: the group remembers which key it was granted to, and only that key renews it (the same
 * token, a later expiry). The owner string names the holder in listings and is no credential: another key allowed
 * on the group (a granted key, an admin key) that sends it is answered {@link Leases.Held} like any other leaser,
 * and takes the group at a new epoch only once the lease has expired or been released.
 */
public final class GroupRules {

    private GroupRules() {}

    /**
     * What a decision does.
     *
     * @param next the group's new state to store, or null when nothing changes
     * @param answer what the caller is answered
     */
    public record Decision<T>(Leases.Group next, T answer) {

        static <T> Decision<T> answerOnly(T answer) {
            return new Decision<>(null, answer);
        }
    }

    /** See {@link ConsumerGroups#lease}. */
    public static Decision<Leases.LeaseResult> lease(String stream, String group, Leases.Group current, String owner,
            Duration ttl, Leases.Actor actor, long nowMicros) {
        long expires = nowMicros + ttl.toNanos() / 1_000;
        if (current == null) {
            Leases.Token token = Leases.Token.mint(1);
            List<String> keys = actor.keyId() == null ? List.of() : List.of(actor.keyId());
            return granted(new Leases.Group(stream, group, 0, 1, owner, actor.keyId(), expires, token.secret(), keys),
                    token);
        }
        if (!actor.mayActOn(current)) {
            return Decision.answerOnly(new Leases.Forbidden());
        }
        boolean held = current.holder() != null && current.expiresAtMicros() > nowMicros;
        boolean claims = actor.claims(current);
        if (held && !(current.holder().equals(owner) && (actor.holds(current) || claims))) {
            return Decision.answerOnly(new Leases.Held(current.holder(), current.expiresAtMicros()));
        }
        List<String> keys = claims ? List.of(actor.keyId()) : current.keys();
        if (held && current.secret() != null && !claims) {
            Leases.Token same = new Leases.Token(current.token(), current.secret());
            return granted(new Leases.Group(stream, group, current.committedOffset(), current.token(), owner,
                    current.holderKey(), expires, current.secret(), keys), same);
        }
        Leases.Token token = Leases.Token.mint(current.token() + 1);
        return granted(new Leases.Group(stream, group, current.committedOffset(), token.epoch(), owner, actor.keyId(),
                expires, token.secret(), keys), token);
    }

    /** See {@link ConsumerGroups#commit}; {@code head} is the stream's. */
    public static Decision<Leases.CommitResult> commit(Leases.Group current, Leases.Token token, long offset,
            long head, Leases.Actor actor, long nowMicros) {
        if (!actor.mayActOn(current)) {
            return Decision.answerOnly(new Leases.Forbidden());
        }
        if (token == null || !token.isCurrentOf(current)) {
            return Decision.answerOnly(new Leases.StaleToken(current == null ? 0 : current.token()));
        }
        if (current.holder() == null || current.expiresAtMicros() <= nowMicros) {
            return Decision.answerOnly(new Leases.LeaseExpired(current.expiresAtMicros()));
        }
        if (offset < current.committedOffset()) {
            return Decision.answerOnly(new Leases.OffsetRegressed(current.committedOffset()));
        }
        if (offset > head) {
            return Decision.answerOnly(new Leases.BeyondHead(head));
        }
        return new Decision<>(new Leases.Group(current.stream(), current.group(), offset, current.token(),
                current.holder(), current.holderKey(), current.expiresAtMicros(), current.secret(), current.keys()),
                new Leases.Committed(offset));
    }

    /** See {@link ConsumerGroups#release}. */
    public static Decision<Leases.ReleaseResult> release(Leases.Group current, Leases.Token token,
            Leases.Actor actor, long nowMicros) {
        if (!actor.mayActOn(current)) {
            return Decision.answerOnly(new Leases.Forbidden());
        }
        if (token == null || !token.isCurrentOf(current) || current.holder() == null) {
            return Decision.answerOnly(new Leases.StaleToken(current == null ? 0 : current.token()));
        }
        return new Decision<>(new Leases.Group(current.stream(), current.group(), current.committedOffset(),
                current.token(), null, null, nowMicros, current.secret(), current.keys()), new Leases.Released());
    }

    /** See {@link ConsumerGroups#grant}: a group that does not exist yet is made, never leased, at offset 0. */
    public static Decision<Leases.Group> grant(String stream, String group, Leases.Group current, String keyId) {
        Leases.Group next = current == null ? new Leases.Group(stream, group, 0, 0, null, null, 0, null, List.of(keyId))
                : current.grantedTo(keyId);
        return new Decision<>(next == current ? null : next, next);
    }

    private static Decision<Leases.LeaseResult> granted(Leases.Group next, Leases.Token token) {
        return new Decision<>(next, new Leases.Granted(token, next.committedOffset(), next.expiresAtMicros()));
    }
}
