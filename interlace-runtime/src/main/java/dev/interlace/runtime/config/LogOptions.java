package dev.interlace.runtime.config;

import java.nio.file.Path;
import java.util.Objects;

/**
 * Which stream log {@code serve} runs on, and the settings of the Kafka log.
 *
 * <p>The runtime itself only knows the SQLite log; another backend is a module on the class path found by name
 * ({@code dev.interlace.runtime.log.LogBackendFactory}), so these settings are plain values here and the runtime
 * does not depend on Kafka.
 *
 * @param backend {@code sqlite} (the log in the data directory) or {@code kafka}
 * @param kafkaBootstrap the brokers to contact first, {@code HOST:PORT[,HOST:PORT...]}; empty unless {@code kafka}
 * @param kafkaTopicPrefix prefix of every topic the log creates (one per stream and a few of its own)
 * @param kafkaReplicationFactor replicas of each topic the log creates
 * @param kafkaMinInsyncReplicas {@code min.insync.replicas} of those topics: how many replicas hold a record
 *     before a publish is acknowledged
 * @param advertiseUrl the URL other nodes and clients reach this node at (shown as a stream's {@code sequencer});
 *     empty for {@code http(s)://<bind>:<port>}
 * @param clusterSecretFile the secret shared by the nodes of a cluster, which signs requests forwarded between
 *     them; null forwards nothing
 * @param clusterCaFile PEM certificates trusted for {@code https://} nodes besides the JVM's defaults, or null
 * @param role what this node runs in a cluster on the Kafka log; always {@link Role#ALL} on SQLite
 * @param replicaTimeoutMillis how long a warehouse replica may be silent (its flush leases expired) before the log's
 *     trims stop waiting for it
 */
public record LogOptions(String backend, String kafkaBootstrap, String kafkaTopicPrefix, int kafkaReplicationFactor,
        int kafkaMinInsyncReplicas, String advertiseUrl, Path clusterSecretFile, Path clusterCaFile,
        Role role, long replicaTimeoutMillis) {

    public static final String SQLITE = "sqlite";
    public static final String KAFKA = "kafka";
    /** The default of {@code --replica-timeout-ms}: ten minutes. */
    public static final long DEFAULT_REPLICA_TIMEOUT_MILLIS = 600_000;

    public LogOptions {
        Objects.requireNonNull(backend, "backend");
        Objects.requireNonNull(kafkaBootstrap, "kafkaBootstrap");
        Objects.requireNonNull(kafkaTopicPrefix, "kafkaTopicPrefix");
        Objects.requireNonNull(advertiseUrl, "advertiseUrl");
        Objects.requireNonNull(role, "role");
        if (role != Role.ALL && !backend.equals(KAFKA)) {
            throw new ConfigException("--role " + role.wire() + " needs --log kafka: on the SQLite log one server"
                    + " owns both the log and the warehouse (--role all)");
        }
    }

    /** The SQLite log in the data directory (the Kafka settings at their defaults, unused). */
    public static LogOptions sqlite() {
        return new LogOptions(SQLITE, "", "interlace.", 3, 2, "", null, null, Role.ALL,
                DEFAULT_REPLICA_TIMEOUT_MILLIS);
    }

    /** The Kafka log on {@code bootstrap} with the other settings as given. */
    public static LogOptions kafka(String bootstrap, String topicPrefix, int replicationFactor,
            int minInsyncReplicas) {
        return new LogOptions(KAFKA, bootstrap, topicPrefix, replicationFactor, minInsyncReplicas, "", null, null,
                Role.ALL, DEFAULT_REPLICA_TIMEOUT_MILLIS);
    }
}
