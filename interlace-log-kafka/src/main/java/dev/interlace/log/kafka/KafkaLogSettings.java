package dev.interlace.log.kafka;

import dev.interlace.runtime.config.InterlaceConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * How the Kafka log reaches its cluster and names what it creates there.
 *
 * @param bootstrap {@code HOST:PORT[,...]} of the brokers to contact first
 * @param topicPrefix prefix of every topic, consumer group and transactional id the log uses
 * @param replicationFactor replicas of each topic the log creates (and expects of those it finds)
 * @param minInsyncReplicas {@code min.insync.replicas} of those topics
 * @param nodeUrl this node's advertised URL: what {@code GET /streams/{name}} shows as the stream's sequencer
 * @param sessionTimeout how long the cluster waits for a silent node before another takes over its streams
 * @param sequencerWait how long an append or a lease waits for this node to hold the stream before answering
 *     {@code no_sequencer}
 * @param sequences whether this node joins the sequencer group (false on {@code --role warehouse}: it reads the
 *     topics, never appends)
 * @param dataDirectory this node's data directory: the deduplication indexes of the streams it sequences are in its
 *     {@code dedup/kafka/} folder, its copy of the publish records in {@code kafka/publishes.sqlite}
 */
public record KafkaLogSettings(String bootstrap, String topicPrefix, int replicationFactor, int minInsyncReplicas,
        String nodeUrl, Duration sessionTimeout, Duration sequencerWait, boolean sequences, Path dataDirectory) {

    /** Takeover within ten seconds of a node's death: the session timeout plus a rebalance and a catch-up. */
    public static final Duration DEFAULT_SESSION_TIMEOUT = Duration.ofSeconds(6);
    public static final Duration DEFAULT_SEQUENCER_WAIT = Duration.ofSeconds(5);
    /**
     * How long a starting node waits for a broker of the bootstrap list to answer before it gives up with a message
     * naming them (rather than the admin client's default timeouts, which end in a less telling error later).
     */
    public static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(15);

    public KafkaLogSettings {
        Objects.requireNonNull(bootstrap, "bootstrap");
        Objects.requireNonNull(topicPrefix, "topicPrefix");
        Objects.requireNonNull(nodeUrl, "nodeUrl");
        Objects.requireNonNull(dataDirectory, "dataDirectory");
    }

    /** Settings of a node that may sequence streams (every role but {@code warehouse}). */
    public KafkaLogSettings(String bootstrap, String topicPrefix, int replicationFactor, int minInsyncReplicas,
            String nodeUrl, Duration sessionTimeout, Duration sequencerWait, Path dataDirectory) {
        this(bootstrap, topicPrefix, replicationFactor, minInsyncReplicas, nodeUrl, sessionTimeout, sequencerWait,
                true, dataDirectory);
    }

    /** Where this node keeps the deduplication indexes of the streams it sequences. */
    Path indexDirectory() {
        return dataDirectory.resolve("dedup").resolve("kafka");
    }

    /**
     * Where this node keeps its copy of the publish records ({@link PublishStore}), made anew from the topic at each
     * start.
     */
    /** Where a node that may sequence streams keeps its copy of their events' keys ({@link LocalKeys}). */
    Path localKeysDirectory() {
        return dataDirectory.resolve("kafka").resolve("keys");
    }

    Path publishStoreFile() {
        return dataDirectory.resolve("kafka").resolve("publishes.sqlite");
    }

    /** The settings of {@code serve --log kafka}. */
    public static KafkaLogSettings from(InterlaceConfig config) {
        return new KafkaLogSettings(config.log().kafkaBootstrap(), config.log().kafkaTopicPrefix(),
                config.log().kafkaReplicationFactor(), config.log().kafkaMinInsyncReplicas(), config.advertisedUrl(),
                DEFAULT_SESSION_TIMEOUT, DEFAULT_SEQUENCER_WAIT, config.role().sequences(), config.dataDirectory());
    }
}
