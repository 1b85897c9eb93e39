package dev.interlace.runtime.log;

import java.time.Duration;
import java.util.List;

/**
 * {@link ConsumerGroups} answered by another instance: a log whose groups live in a collaborator (the Kafka log's
 * {@code KafkaConsumerGroups}, a follower's {@link FollowerGroups}) implements this and names the collaborator once
 * instead of forwarding each call itself.
 */
public interface ForwardingConsumerGroups extends ConsumerGroups {

    /** The instance every call of {@link ConsumerGroups} goes to. */
    ConsumerGroups consumerGroups();

    @Override
    default Leases.LeaseResult lease(String stream, String group, String owner, Duration ttl, Leases.Actor actor) {
        return consumerGroups().lease(stream, group, owner, ttl, actor);
    }

    @Override
    default Leases.CommitResult commit(String stream, String group, Leases.Token token, long offset,
            Leases.Actor actor) {
        return consumerGroups().commit(stream, group, token, offset, actor);
    }

    @Override
    default Leases.ReleaseResult release(String stream, String group, Leases.Token token, Leases.Actor actor) {
        return consumerGroups().release(stream, group, token, actor);
    }

    @Override
    default Leases.Group grant(String stream, String group, String keyId) {
        return consumerGroups().grant(stream, group, keyId);
    }

    @Override
    default List<Leases.Group> groups(String stream) {
        return consumerGroups().groups(stream);
    }
}
