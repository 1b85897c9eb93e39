package dev.interlace.log.kafka;

import com.google.inject.AbstractModule;
import com.google.inject.Module;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import com.google.inject.multibindings.OptionalBinder;
import dev.interlace.runtime.auth.ApiKeys;
import dev.interlace.runtime.auth.KeyFile;
import dev.interlace.runtime.cluster.ClusterNodes;
import dev.interlace.runtime.cluster.WarehouseNode;
import dev.interlace.runtime.config.InterlaceConfig;
import dev.interlace.runtime.config.LogOptions;
import dev.interlace.runtime.flush.FlushLease;
import dev.interlace.runtime.flush.FlushPositions;
import dev.interlace.runtime.log.LogBackendFactory;
import dev.interlace.runtime.log.LogSettings;
import dev.interlace.runtime.log.Sequencers;
import dev.interlace.runtime.log.StreamLog;
import dev.interlace.runtime.log.Watermarks;
import dev.interlace.runtime.health.ComponentHealth;
import dev.interlace.runtime.ops.RequestIds;
import dev.interlace.runtime.records.SystemRecords;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.inject.Provider;
import java.time.Clock;

/**
 * {@code serve --log kafka}: binds {@link StreamLog} and {@link Sequencers} to a {@link KafkaStreamLog} configured
 * from the {@code --kafka-*} settings, {@link Watermarks} to what the cluster's flusher committed, {@link ApiKeys} to
 * the cluster's keys ({@link ClusterKeys}: every node's key file, shared through the log's cluster), and
 * {@link WarehouseNode} to the cluster's warehouses as the flush leases show them, {@link ClusterNodes} to the nodes
 * the sequencer group and the flush leases name. Listed in {@code META-INF/services},
 * so the runtime finds it by name.
 */
public final class KafkaLogBackend implements LogBackendFactory {

    @Override
    public String name() {
        return LogOptions.KAFKA;
    }

    @Override
    public Module module(InterlaceConfig config) {
        return new KafkaLogModule(KafkaLogSettings.from(config));
    }

    /**
     * {@inheritDoc} Here a {@link KafkaLogFollower} of the cluster at {@code --kafka-bootstrap}, under
     * {@code --kafka-topic-prefix}: it needs no cluster secret, role or advertised URL, since it is no node.
     */
    @Override
    public StreamLog follower(InterlaceConfig config, Clock clock) {
        return new KafkaLogFollower(new KafkaLogSettings(config.log().kafkaBootstrap(),
                config.log().kafkaTopicPrefix(), config.log().kafkaReplicationFactor(),
                config.log().kafkaMinInsyncReplicas(), "http://query-process.invalid",
                KafkaLogSettings.DEFAULT_SESSION_TIMEOUT, KafkaLogSettings.DEFAULT_SEQUENCER_WAIT, false,
                config.dataDirectory()), clock);
    }

    /** The Guice module of the Kafka log; {@code Interlace} lays it over the default log module. */
    public static final class KafkaLogModule extends AbstractModule {

        private final KafkaLogSettings kafka;

        public KafkaLogModule(KafkaLogSettings kafka) {
            this.kafka = kafka;
        }

        @Override
        protected void configure() {
            bind(StreamLog.class).to(KafkaStreamLog.class);
            OptionalBinder.newOptionalBinder(binder(), Sequencers.class).setBinding().to(KafkaStreamLog.class);
            bind(ApiKeys.class).to(ClusterKeys.class);
            OptionalBinder.newOptionalBinder(binder(), WarehouseNode.class).setBinding().to(FlushLeaseHolders.class);
            OptionalBinder.newOptionalBinder(binder(), ClusterNodes.class).setBinding().to(LogMembers.class);
        }

        /** This node's flusher's positions are only part of the truth: the log adds what the cluster's committed. */
        @Provides
        @Singleton
        KafkaStreamLog kafkaStreamLog(LogSettings settings, FlushPositions materialised, Clock clock,
                ComponentHealth components) {
            return new KafkaStreamLog(kafka, settings, materialised, clock, components);
        }

        /**
         * What the cluster's warehouses have materialised: backpressure reads the most caught-up one's, the retention
         * sweep the slowest replica's that still counts ({@link FlushLeaseHolders#retained}).
         */
        @Provides
        Watermarks watermarks(KafkaStreamLog log, FlushLeaseHolders replicas) {
            Watermarks cluster = log.watermarks();
            return new Watermarks() {
                @Override
                public long events(String stream) {
                    return cluster.events(stream);
                }

                @Override
                public long quarantine(String stream) {
                    return cluster.quarantine(stream);
                }

                @Override
                public long retained(String stream) {
                    return Math.min(cluster.events(stream), replicas.retained(stream));
                }
            };
        }

        @Provides
        @Singleton
        ClusterKeys clusterKeys(KeyFile keyFile) {
            return new ClusterKeys(kafka, keyFile);
        }

        @Provides
        @Singleton
        FlushLeaseHolders flushLeaseHolders(KafkaStreamLog log, Clock clock, InterlaceConfig config,
                Provider<FlushLease> lease, SystemRecords records, RequestIds ids, MeterRegistry registry) {
            String ownGroup = config.role().runsWarehouse() ? lease.get().group() : null;
            return new FlushLeaseHolders(log, clock, ownGroup, config.log().replicaTimeoutMillis(), records, ids,
                    registry);
        }

        @Provides
        @Singleton
        LogMembers logMembers(KafkaStreamLog log, Clock clock) {
            return new LogMembers(log, clock);
        }
    }
}
