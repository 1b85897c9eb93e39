package dev.interlace.log.kafka;

import dev.interlace.runtime.config.ConfigException;
import dev.interlace.runtime.log.LogUnavailableException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.DescribeConsumerGroupsOptions;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * The topics of the log, their names and settings, and the admin operations on them: created when missing, checked
 * when present (a topic with other settings stops start-up with a message naming the setting), end offsets and
 * record deletion.
 *
 * <p>Per stream: {@code <prefix><stream>} (accepted events), {@code <prefix><stream>__quarantine} and
 * {@code <prefix><stream>__keys} (the key blocks the deduplication index is built from), one partition each so that a stream's order is one sequence, kept until Interlace deletes records ({@code retention.ms=-1});
 * {@code <prefix><stream>__index} and {@code <prefix><stream>__segments}, compacted: the holder's deduplication
 * segments published for the next holder ({@link IndexTopic}).
 * For the whole log: {@code <prefix>_publishes} (publish records) and {@code <prefix>_state} (consumer groups and
 * trim points), compacted, keyed so that only the newest value of each key matters. For the cluster's API keys:
 * {@code <prefix>_keys}, compacted, keyed by key id ({@link ClusterKeys}).
 */
final class Topics {

    private static final long ADMIN_SECONDS = 30;

    private final Admin admin;
    private final String prefix;
    private final int replicationFactor;
    private final int minInsyncReplicas;

    Topics(Admin admin, String prefix, int replicationFactor, int minInsyncReplicas) {
        this.admin = admin;
        this.prefix = prefix;
        this.replicationFactor = replicationFactor;
        this.minInsyncReplicas = minInsyncReplicas;
    }

    TopicPartition events(String stream) {
        return new TopicPartition(prefix + stream, 0);
    }

    TopicPartition quarantine(String stream) {
        return new TopicPartition(prefix + stream + "__quarantine", 0);
    }

    /** The stream's key blocks: the durable record its deduplication index is built from. */
    TopicPartition keyBlocks(String stream) {
        return new TopicPartition(prefix + stream + "__keys", 0);
    }

    /** The seals of the stream's published deduplication segments ({@link IndexTopic}): which copies, through where. */
    TopicPartition indexSeals(String stream) {
        return new TopicPartition(prefix + stream + "__index", 0);
    }

    /** The parts of the stream's published deduplication segment files ({@link IndexTopic}). */
    TopicPartition indexParts(String stream) {
        return new TopicPartition(prefix + stream + "__segments", 0);
    }

    /**
     * The streams (log streams: a partition p &ge; 1 of a stream is one of its own) whose events topic exists under
     * this prefix, created by this node or any other, now or before.
     */
    java.util.Set<String> streams() {
        java.util.Set<String> streams = new java.util.TreeSet<>();
        for (String topic : topicNames()) {
            if (!topic.startsWith(prefix) || topic.length() == prefix.length()) {
                continue;
            }
            String stream = topic.substring(prefix.length());
            // Stream names start with a letter (the log's own topics with "_"), and never hold the suffixes.
            if (Character.isLetter(stream.charAt(0)) && !stream.endsWith("__quarantine")
                    && !stream.endsWith("__keys") && !stream.endsWith("__index") && !stream.endsWith("__segments")) {
                streams.add(stream);
            }
        }
        return streams;
    }

    /** The names of the cluster's topics (all of them, whatever their prefix). */
    private java.util.Set<String> topicNames() {
        try {
            return admin.listTopics().names().get(ADMIN_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LogUnavailableException("interrupted while listing the Kafka cluster's topics", e);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new LogUnavailableException("cannot list the Kafka cluster's topics: " + e.getMessage(), e);
        }
    }

    TopicPartition publishes() {
        return new TopicPartition(prefix + "_publishes", 0);
    }

    TopicPartition state() {
        return new TopicPartition(prefix + "_state", 0);
    }

    TopicPartition keys() {
        return new TopicPartition(prefix + "_keys", 0);
    }

    /**
     * The properties of a producer whose sends are acknowledged by all in-sync replicas and written once each
     * ({@code acks=all}, idempotent): what every producer of the log starts from.
     */
    static Properties durableProducer(String bootstrap, String clientId) {
        Properties properties = client(bootstrap, clientId);
        properties.put(ProducerConfig.ACKS_CONFIG, "all");
        properties.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        return properties;
    }

    /**
     * The settings of a consumer that reads what is committed of the log's topics, from their first records on, and
     * keeps no offsets in a group (it seeks where it reads); a broker holds its empty fetches up to
     * {@code fetchMaxWaitMillis}.
     */
    static Properties committedReader(String bootstrap, String clientId, long fetchMaxWaitMillis) {
        Properties properties = client(bootstrap, clientId);
        properties.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        properties.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        properties.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, Long.toString(fetchMaxWaitMillis));
        return properties;
    }

    /** What every client of the log is told first: the brokers to ask, and the id it names itself with to them. */
    private static Properties client(String bootstrap, String clientId) {
        Properties properties = new Properties();
        properties.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        properties.put(CommonClientConfigs.CLIENT_ID_CONFIG, clientId);
        return properties;
    }

    /**
     * An admin client of the cluster, once a broker of {@code kafka.bootstrap()} has answered: how a node finds out at
     * start-up, within {@link KafkaLogSettings#CONNECT_TIMEOUT}, that it cannot reach its cluster.
     *
     * @throws ConfigException naming the bootstrap servers and what was tried, when none answered in time or the
     *     list cannot be used at all
     */
    static Admin connect(KafkaLogSettings kafka, String clientId) {
        Properties properties = new Properties();
        properties.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrap());
        properties.put(AdminClientConfig.CLIENT_ID_CONFIG, clientId);
        properties.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, Long.toString(ADMIN_SECONDS * 1000));
        Admin admin;
        try {
            admin = Admin.create(properties);
        } catch (KafkaException e) {
            throw new ConfigException("cannot use --kafka-bootstrap " + kafka.bootstrap() + ": " + rootMessage(e)
                    + "; give HOST:PORT[,HOST:PORT...] of brokers this machine can resolve");
        }
        Duration timeout = KafkaLogSettings.CONNECT_TIMEOUT;
        try {
            Collection<org.apache.kafka.common.Node> brokers = admin.describeCluster(new DescribeClusterOptions()
                    .timeoutMs((int) timeout.toMillis())).nodes().get(timeout.toMillis() + 1000,
                    TimeUnit.MILLISECONDS);
            if (brokers.isEmpty()) {
                throw new ExecutionException(new KafkaException("the cluster named no live broker"));
            }
            return admin;
        } catch (ExecutionException | TimeoutException e) {
            admin.close(Duration.ZERO);
            Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
            throw new ConfigException("cannot reach the Kafka cluster at --kafka-bootstrap " + kafka.bootstrap()
                    + ": asked " + (kafka.bootstrap().contains(",") ? "each of these brokers" : "this broker")
                    + " for the cluster's brokers for " + timeout.toSeconds() + " s and got no answer ("
                    + rootMessage(cause) + "). Check that the brokers run, that this machine reaches them (host,"
                    + " port, firewall) and that their advertised listeners name addresses it can reach");
        } catch (InterruptedException e) {
            admin.close(Duration.ZERO);
            Thread.currentThread().interrupt();
            throw new LogUnavailableException("interrupted while connecting to the Kafka cluster", e);
        }
    }

    private static String rootMessage(Throwable failure) {
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = root.getMessage();
        return message == null ? root.getClass().getSimpleName() : message;
    }

    /** The consumer group whose members hold the streams' sequencers. */
    String sequencerGroup() {
        return prefix + "sequencers";
    }

    /**
     * The members of the sequencer group, by their client ids (the nodes' URLs), whatever they hold; empty when the
     * group's coordinator does not answer within two seconds.
     */
    List<String> sequencerGroupMembers() {
        ConsumerGroupDescription group = sequencerGroupOrNull(2);
        return group == null ? List.of() : group.members().stream().map(MemberDescription::clientId).toList();
    }

    /** The sequencer group as its coordinator describes it, waiting up to {@code seconds} for the answer. */
    ConsumerGroupDescription describeSequencerGroup(long seconds)
            throws ExecutionException, TimeoutException, InterruptedException {
        return admin.describeConsumerGroups(List.of(sequencerGroup()),
                new DescribeConsumerGroupsOptions().timeoutMs(2_000)).all().get(seconds, TimeUnit.SECONDS)
                .get(sequencerGroup());
    }

    /** The same, or null when the coordinator did not answer in time (an interrupt is kept). */
    ConsumerGroupDescription sequencerGroupOrNull(long seconds) {
        try {
            return describeSequencerGroup(seconds);
        } catch (ExecutionException | TimeoutException | KafkaException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** The transactional id of {@code stream}'s sequencer: the same on every node, so a new holder fences the old. */
    String transactionalId(String stream) {
        return prefix + "sequencer." + stream;
    }

    /** Creates the log's own topics if missing and checks them. */
    void ensureLogTopics() {
        ensure(Map.of(publishes().topic(), compacted(), state().topic(), compacted()));
    }

    /** Creates the API keys' topic if missing and checks it. */
    void ensureKeysTopic() {
        ensure(Map.of(keys().topic(), compacted()));
    }

    /**
     * Creates the topics of {@code streams} that are missing and checks them all, in few rounds of admin calls: one
     * listing of the cluster's topics, one check of those that exist, and one round (create, check) for each partition
     * number with a topic missing, the highest number first, so that a start-up that fails half way leaves a stream's
     * highest partitions, never partition 0 without them (what the next start-up's check of the partition counts
     * relies on). A restart, whose topics all exist, creates nothing.
     */
    void ensureStreamTopics(Collection<String> streams) {
        java.util.TreeMap<Integer, Map<String, Map<String, String>>> missing =
                new java.util.TreeMap<>(java.util.Comparator.reverseOrder());
        Map<String, Map<String, String>> present = new LinkedHashMap<>();
        java.util.Set<String> existing = topicNames();
        for (String stream : streams) {
            Map<String, Map<String, String>> wanted = new LinkedHashMap<>();
            wanted.put(events(stream).topic(), kept());
            wanted.put(quarantine(stream).topic(), kept());
            wanted.put(keyBlocks(stream).topic(), kept());
            wanted.put(indexSeals(stream).topic(), compacted());
            wanted.put(indexParts(stream).topic(), compactedAfterAnHour());
            wanted.forEach((topic, config) -> (existing.contains(topic) ? present : missing.computeIfAbsent(
                    dev.interlace.runtime.stream.StreamPartitions.partitionOf(stream), p -> new LinkedHashMap<>()))
                    .put(topic, config));
        }
        if (!present.isEmpty()) {
            check(present);
        }
        missing.values().forEach(this::ensure);
    }

    /** The read-committed end (last stable offset) of each partition: what a reader has seen once it reaches it. */
    Map<TopicPartition, Long> stableEnds(Collection<TopicPartition> partitions) {
        Map<TopicPartition, OffsetSpec> specs = new HashMap<>();
        partitions.forEach(partition -> specs.put(partition, OffsetSpec.latest()));
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> infos = awaitRetrying(() -> admin.listOffsets(
                specs, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all(), "read the end of the log's topics");
        Map<TopicPartition, Long> ends = new HashMap<>();
        infos.forEach((partition, info) -> ends.put(partition, info.offset()));
        return ends;
    }

    /**
     * The cluster's id of {@code partition}'s topic: a topic deleted and created again under the same name has
     * another, so that what a node derived from the old one (its deduplication segments) is not taken for the new.
     */
    String topicId(TopicPartition partition) {
        return awaitTopics(List.of(partition.topic())).get(partition.topic()).topicId().toString();
    }

    /** The first offset of {@code partition} still stored (after the records deleted before it). */
    long start(TopicPartition partition) {
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> infos = awaitRetrying(() -> admin.listOffsets(
                Map.of(partition, OffsetSpec.earliest())).all(), "read the start of " + partition.topic());
        return infos.get(partition).offset();
    }

    /** Deletes the records of {@code partition} before {@code offset} (Kafka offsets). */
    void deleteBefore(TopicPartition partition, long offset) {
        await(admin.deleteRecords(Map.of(partition, RecordsToDelete.beforeOffset(offset))).all(),
                "delete records of " + partition.topic());
    }

    private Map<String, String> kept() {
        Map<String, String> config = new LinkedHashMap<>();
        config.put(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_DELETE);
        config.put(TopicConfig.RETENTION_MS_CONFIG, "-1");
        config.put(TopicConfig.RETENTION_BYTES_CONFIG, "-1");
        config.put(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, Integer.toString(minInsyncReplicas));
        config.put(TopicConfig.UNCLEAN_LEADER_ELECTION_ENABLE_CONFIG, "false");
        return config;
    }

    private Map<String, String> compacted() {
        Map<String, String> config = new LinkedHashMap<>();
        config.put(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT);
        config.put(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, Integer.toString(minInsyncReplicas));
        config.put(TopicConfig.UNCLEAN_LEADER_ELECTION_ENABLE_CONFIG, "false");
        return config;
    }

    /**
     * Compacted, but a record superseded stays an hour at least: a node restoring the segments an older seal names
     * can still fetch their parts after the holder deleted them (a part gone is rebuilt from the key blocks).
     */
    private Map<String, String> compactedAfterAnHour() {
        Map<String, String> config = compacted();
        config.put(TopicConfig.MIN_COMPACTION_LAG_MS_CONFIG, Long.toString(TimeUnit.HOURS.toMillis(1)));
        return config;
    }

    private void ensure(Map<String, Map<String, String>> wanted) {
        List<NewTopic> creations = new ArrayList<>();
        wanted.forEach((topic, config) -> creations.add(new NewTopic(topic, 1, (short) replicationFactor)
                .configs(config)));
        admin.createTopics(creations).values().forEach((topic, future) -> {
            try {
                future.get(ADMIN_SECONDS, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw new ConfigException("cannot create Kafka topic " + topic + ": " + e.getCause().getMessage());
                }
            } catch (TimeoutException e) {
                throw new LogUnavailableException("the Kafka cluster did not create topic " + topic + " within "
                        + ADMIN_SECONDS + " s", e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new LogUnavailableException("interrupted while creating topic " + topic, e);
            }
        });
        check(wanted);
    }

    /** Every topic must have one partition, the replication factor and the settings the log relies on. */
    private void check(Map<String, Map<String, String>> wanted) {
        Map<String, TopicDescription> descriptions = awaitTopics(wanted.keySet());
        List<ConfigResource> resources = wanted.keySet().stream()
                .map(topic -> new ConfigResource(ConfigResource.Type.TOPIC, topic)).toList();
        Map<ConfigResource, Config> configs = awaitConfigs(resources);
        for (Map.Entry<String, Map<String, String>> entry : wanted.entrySet()) {
            String topic = entry.getKey();
            TopicDescription description = descriptions.get(topic);
            if (description.partitions().size() != 1) {
                throw new ConfigException("Kafka topic " + topic + " has " + description.partitions().size()
                        + " partitions; the Interlace log needs exactly 1 (a stream's offsets are one dense sequence)."
                        + " Delete the topic or choose another --kafka-topic-prefix");
            }
            int replicas = description.partitions().get(0).replicas().size();
            if (replicas < replicationFactor) {
                throw new ConfigException("Kafka topic " + topic + " has " + replicas + " replicas, fewer than"
                        + " --kafka-replication-factor " + replicationFactor + "; add replicas"
                        + " (kafka-reassign-partitions) or lower the setting");
            }
            Config config = configs.get(new ConfigResource(ConfigResource.Type.TOPIC, topic));
            for (Map.Entry<String, String> setting : entry.getValue().entrySet()) {
                ConfigEntry actual = config.get(setting.getKey());
                String value = actual == null ? null : actual.value();
                boolean fine = setting.getKey().equals(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG)
                        ? value != null && Integer.parseInt(value) >= minInsyncReplicas
                        : setting.getValue().equals(value);
                if (!fine) {
                    throw new ConfigException("Kafka topic " + topic + " has " + setting.getKey() + "=" + value
                            + "; the Interlace log needs " + setting.getKey() + "=" + setting.getValue()
                            + " (kafka-configs --alter --entity-type topics --entity-name " + topic
                            + " --add-config " + setting.getKey() + "=" + setting.getValue() + ")");
                }
            }
        }
    }

    /** Describes the topics, waiting out the moment after creation when metadata does not know them yet. */
    private Map<String, TopicDescription> awaitTopics(Collection<String> topics) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(ADMIN_SECONDS);
        while (true) {
            try {
                return admin.describeTopics(topics).allTopicNames().get(ADMIN_SECONDS, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException) || System.nanoTime() > deadline) {
                    throw new LogUnavailableException("cannot describe the log's topics: " + e.getCause().getMessage(),
                            e.getCause());
                }
            } catch (TimeoutException e) {
                throw new LogUnavailableException("the Kafka cluster did not describe the log's topics", e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new LogUnavailableException("interrupted while describing topics", e);
            }
        }
    }

    /** Reads the topics' settings (see {@link #awaitRetrying}). */
    private Map<ConfigResource, Config> awaitConfigs(Collection<ConfigResource> resources) {
        return awaitRetrying(() -> admin.describeConfigs(resources).all(), "read the settings of the log's topics");
    }

    /**
     * Runs an admin call until it answers, waiting out retriable errors for up to the admin timeout: on a cluster
     * of several brokers a topic just created is unknown to a broker whose metadata lags, and a partition whose
     * leader died has none until the controller moves it.
     */
    private <T> T awaitRetrying(java.util.function.Supplier<org.apache.kafka.common.KafkaFuture<T>> call,
            String what) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(ADMIN_SECONDS);
        while (true) {
            try {
                return call.get().get(ADMIN_SECONDS, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof RetriableException) || System.nanoTime() > deadline) {
                    throw new LogUnavailableException("cannot " + what + ": " + e.getCause(), e.getCause());
                }
            } catch (TimeoutException | InterruptedException e) {
                throw notAnswered(e, what);
            }
            try {
                Thread.sleep(100); // a retriable error of the cluster (its metadata moving): ask it again
            } catch (InterruptedException e) {
                throw notAnswered(e, what);
            }
        }
    }

    private static <T> T await(org.apache.kafka.common.KafkaFuture<T> future, String what) {
        try {
            return future.get(ADMIN_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new LogUnavailableException("cannot " + what + ": " + e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException | InterruptedException e) {
            throw notAnswered(e, what);
        }
    }

    /** The failure of a wait for the cluster that timed out or was interrupted (the interrupt kept). */
    private static LogUnavailableException notAnswered(Exception e, String what) {
        if (e instanceof InterruptedException) {
            Thread.currentThread().interrupt();
            return new LogUnavailableException("interrupted while trying to " + what, e);
        }
        return new LogUnavailableException("the Kafka cluster did not " + what + " within " + ADMIN_SECONDS + " s", e);
    }
}
