package dev.interlace.runtime.log;

import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.ToLongFunction;

/**
 * The consumer groups of a log follower (a query process's view of the server's log, {@link SqliteLogFollower} or the
 * Kafka log's): kept in this process's memory and never written to the log, decided by the same {@link GroupRules}.
 * The follower's flusher leases its groups here, so the server's log knows nothing of it: its trims do not wait for
 * it (a follower behind a trim rebuilds from what the log holds) and no listing shows it. A group's first token is the
 * time it was made, in microseconds, so that each run's tokens are higher than those an earlier run recorded in the
 * follower's warehouse.
 */
public final class FollowerGroups implements ConsumerGroups {

    private final Clock clock;
    /** The head of a stream, which a commit may not pass. */
    private final ToLongFunction<String> heads;
    private final Map<String, Leases.Group> groups = new HashMap<>();

    public FollowerGroups(Clock clock, ToLongFunction<String> heads) {
        this.clock = clock;
        this.heads = heads;
    }

    @Override
    public synchronized Leases.LeaseResult lease(String stream, String group, String owner, Duration ttl,
            Leases.Actor actor) {
        return decide(stream, group, current -> GroupRules.lease(stream, group, current, owner, ttl, actor, now()));
    }

    @Override
    public synchronized Leases.CommitResult commit(String stream, String group, Leases.Token token, long offset,
            Leases.Actor actor) {
        long at = heads.applyAsLong(stream);
        return decide(stream, group, current -> GroupRules.commit(current, token, offset, at, actor, now()));
    }

    @Override
    public synchronized Leases.ReleaseResult release(String stream, String group, Leases.Token token,
            Leases.Actor actor) {
        return decide(stream, group, current -> GroupRules.release(current, token, actor, now()));
    }

    /** A follower grants nothing: the server's log holds its groups' owners. */
    @Override
    public Leases.Group grant(String stream, String group, String keyId) {
        throw new UnsupportedOperationException("a query process only reads the server's log; it cannot grant"
                + " groups of it");
    }

    @Override
    public synchronized List<Leases.Group> groups(String stream) {
        return groups.values().stream().filter(group -> group.stream().equals(stream)).toList();
    }

    private <T> T decide(String stream, String group, Function<Leases.Group, GroupRules.Decision<T>> rule) {
        String key = stream + "\u0000" + group;
        // A new group starts at this moment's microseconds, above any token an earlier run of this process recorded.
        Leases.Group current = groups.computeIfAbsent(key, k -> new Leases.Group(stream, group, 0, now(), null, null,
                0, null, List.of()));
        GroupRules.Decision<T> decision = rule.apply(current);
        if (decision.next() != null) {
            groups.put(key, decision.next());
        }
        return decision.answer();
    }

    private long now() {
        return dev.interlace.runtime.ops.EpochMicros.now(clock);
    }
}
