package dev.interlace.log.kafka.testing;

import java.util.List;

/**
 * The proxies between one client and every broker of a {@link KafkaCluster} ({@link KafkaCluster#cutOff}): {@link #cut}
 * cuts that client off from the whole cluster at once, as a network partition between its machine and the brokers
 * would, while everyone else (and the client's own other connections) goes on as before; {@link #heal} ends it.
 */
public final class CutOff implements AutoCloseable {

    private final List<BlackholeProxy> proxies;

    CutOff(List<BlackholeProxy> proxies) {
        this.proxies = List.copyOf(proxies);
    }

    /** From now on nothing goes through to any broker, either way. */
    public void cut() {
        proxies.forEach(BlackholeProxy::cut);
    }

    /** Everything goes through again, what was held first. */
    public void heal() {
        proxies.forEach(BlackholeProxy::heal);
    }

    @Override
    public void close() {
        proxies.forEach(BlackholeProxy::close);
    }
}
