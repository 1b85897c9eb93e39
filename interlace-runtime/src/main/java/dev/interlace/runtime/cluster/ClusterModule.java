package dev.interlace.runtime.cluster;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import com.google.inject.multibindings.OptionalBinder;
import dev.interlace.runtime.config.ClusterSecret;
import dev.interlace.runtime.config.InterlaceConfig;
import java.time.Clock;
import java.util.Optional;

/**
 * The node's part in a cluster: {@link Peers} (requests to other nodes), the signature of forwarded requests when
 * the node has a cluster secret, and the seams {@link WarehouseNode} and {@link ClusterNodes}, bound by a log that
 * several nodes share.
 */
public final class ClusterModule extends AbstractModule {

    @Override
    protected void configure() {
        bind(Peers.class).to(PeerClient.class);
        bind(PeerClient.class).in(Singleton.class);
        OptionalBinder.newOptionalBinder(binder(), WarehouseNode.class);
        OptionalBinder.newOptionalBinder(binder(), ClusterNodes.class);
    }

    /** The signature of forwarded requests, with {@code --cluster-secret-file}; without it nothing is forwarded. */
    @Provides
    @Singleton
    Optional<ForwardSignature> forwardSignature(InterlaceConfig config, Clock clock) {
        return Optional.ofNullable(config.log().clusterSecretFile())
                .map(file -> new ForwardSignature(ClusterSecret.read(file), clock));
    }
}
