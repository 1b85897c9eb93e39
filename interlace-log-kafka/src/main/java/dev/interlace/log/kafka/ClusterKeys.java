package dev.interlace.log.kafka;

import dev.interlace.runtime.auth.ApiKey;
import dev.interlace.runtime.auth.ApiKeys;
import dev.interlace.runtime.auth.KeyFile;
import dev.interlace.runtime.auth.StoredKey;
import dev.interlace.runtime.log.LogUnavailableException;
import dev.interlace.runtime.ops.DaemonThreads;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The API keys of a cluster of nodes: every node's key file, shared through the compacted topic
 * {@code <prefix>_keys}, so that any node accepts any key of the cluster and refuses a key revoked on any node, within
 * a second.
 *
 * <p>The topic holds one record per key, keyed by the key's id, valued with the key as its entry in {@code keys.json}
 * has it (id, name, scopes, SHA-256 of the secret, times, quota, revocation): hashes only, never a secret. A thread,
 * {@code interlace-kafka-keys}, keeps the key file and the topic in step every {@value #SYNC_INTERVAL_MILLIS} ms:
 *
 * <ul>
 *   <li>a key in the file (created or revoked by {@code interlace keys}, or with a newer last use) that the topic does
 *       not have as it is, is published;
 *   <li>a key on the topic that the file does not have as it is, is merged into the file, so {@code interlace keys
 *       list} on any node lists the cluster's keys and {@code interlace keys revoke} on any node revokes any of them.
 * </ul>
 *
 * <p>Copies of a key are merged, never replaced ({@link StoredKey#mergedWith}): a revocation in any copy wins, and the
 * later last use is kept, so nodes whose files disagree converge whatever order the records arrive in, and a key file
 * restored from an old backup cannot bring a revoked key back. Two different keys with one id (two nodes drew the same
 * random id at once) are both refused. Authentication goes against the union of the file and the topic, so a node
 * with no key of its own is not open while the cluster has keys; a record of the topic that cannot be read refuses
 * its key id rather than guess.
 *
 * <p>While the cluster is unreachable the node keeps authenticating with what it knows (the file and the keys read
 * before), and publishes its changes once the cluster is back.
 */
public final class ClusterKeys implements ApiKeys, AutoCloseable {

    static final long SYNC_INTERVAL_MILLIS = 100;

    private static final Logger LOG = Logger.getLogger(ClusterKeys.class.getName());
    private static final Duration CATCH_UP_TIMEOUT = Duration.ofSeconds(30);

    private final KeyFile file;
    private final TopicPartition topic;
    private final KafkaProducer<byte[], byte[]> producer;
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Thread thread;
    /** Every key read from the topic, each merged over all its records. Written by the sync thread only. */
    private final Map<String, StoredKey> onTopic = new HashMap<>();
    /** The newest record of each key on the topic (the one compaction keeps). Written by the sync thread only. */
    private final Map<String, StoredKey> newestOnTopic = new HashMap<>();
    /** Key ids whose newest record on the topic cannot be read. Written by the sync thread only. */
    private final Set<String> unreadable = new HashSet<>();
    /** Keys sent to the topic and not yet read back, by id. */
    private final Map<String, StoredKey> sent = new ConcurrentHashMap<>();
    private final Set<String> reportedConflicts = ConcurrentHashMap.newKeySet();
    /** The keys authentication goes against: the file's and the topic's, merged; conflicting ids left out. */
    private volatile List<StoredKey> union = List.of();
    private List<StoredKey> fileKeysSynced;
    private boolean topicChanged = true;
    private volatile boolean closed;
    private volatile String lastProblem;

    /**
     * Connects to the cluster, creates or checks the keys' topic, reads it to its end, merges it with the key file
     * (both ways) and starts keeping them in step. Returns only once this node knows the cluster's keys, so that the
     * start-up checks (open mode, exposure) see them.
     *
     * @throws dev.interlace.runtime.config.ConfigException when the cluster cannot be reached or the topic has
     *     other settings than the log needs
     */
    public ClusterKeys(KafkaLogSettings kafka, KeyFile file) {
        this.file = file;
        try (Admin admin = Topics.connect(kafka, kafka.topicPrefix() + "keys-admin")) {
            Topics topics = new Topics(admin, kafka.topicPrefix(), kafka.replicationFactor(),
                    kafka.minInsyncReplicas());
            topics.ensureKeysTopic();
            this.topic = topics.keys();
        }
        Properties producerProperties = Topics.durableProducer(kafka.bootstrap(), kafka.topicPrefix() + "keys");
        // A send never holds the sync thread long: while the cluster is away the node keeps merging its own file.
        producerProperties.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "5000");
        Properties consumerProperties = new Properties();
        consumerProperties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrap());
        consumerProperties.put(ConsumerConfig.CLIENT_ID_CONFIG, kafka.topicPrefix() + "keys-reader");
        consumerProperties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        consumerProperties.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        consumerProperties.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, Long.toString(SYNC_INTERVAL_MILLIS));
        this.producer = new KafkaProducer<>(producerProperties, new ByteArraySerializer(), new ByteArraySerializer());
        this.consumer = new KafkaConsumer<>(consumerProperties, new ByteArrayDeserializer(),
                new ByteArrayDeserializer());
        this.thread = DaemonThreads.thread(this::run, "interlace-kafka-keys");
        try {
            consumer.assign(List.of(topic));
            consumer.seekToBeginning(List.of(topic));
            catchUp();
            sync();
            producer.flush();
        } catch (RuntimeException e) {
            consumer.close(Duration.ZERO);
            producer.close(Duration.ZERO);
            throw e instanceof KafkaException ? new LogUnavailableException("cannot read the cluster's API keys from "
                    + topic.topic() + ": " + e.getMessage(), e) : e;
        }
        thread.start();
    }

    @Override
    public boolean isEmpty() {
        return union.stream().noneMatch(StoredKey::live);
    }

    @Override
    public Optional<ApiKey> live(String id) {
        for (StoredKey key : union) {
            if (key.live() && key.id().equals(id)) {
                return Optional.of(file.live(id).orElse(key.apiKey(0)));
            }
        }
        return Optional.empty();
    }

    @Override
    public Optional<ApiKey> authenticate(String secret) {
        if (secret == null) {
            return Optional.empty();
        }
        byte[] presented = KeyFile.sha256(secret);
        StoredKey match = null;
        for (StoredKey key : union) {
            // Every hash is compared, in constant time, so the time taken says nothing about which bytes matched.
            if (key.hashMatches(presented) && key.live()) {
                match = key;
            }
        }
        if (match == null) {
            return Optional.empty();
        }
        // The key file records the use (at most once a minute); a key not merged into it yet is used unrecorded.
        Optional<ApiKey> recorded = file.authenticate(secret);
        return Optional.of(recorded.orElse(match.apiKey(0)));
    }

    /** Reads the topic up to the end it has now. */
    private void catchUp() {
        long end = consumer.endOffsets(List.of(topic), CATCH_UP_TIMEOUT).get(topic);
        long deadline = System.nanoTime() + CATCH_UP_TIMEOUT.toNanos();
        while (consumer.position(topic, CATCH_UP_TIMEOUT) < end) {
            if (System.nanoTime() > deadline) {
                throw new LogUnavailableException("did not read the cluster's API keys (" + topic.topic()
                        + ") within " + CATCH_UP_TIMEOUT.toSeconds() + " s");
            }
            poll(Duration.ofMillis(SYNC_INTERVAL_MILLIS));
        }
    }

    private void poll(Duration timeout) {
        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(timeout)) {
            apply(record);
        }
    }

    /** Takes in one record of the topic. */
    private void apply(ConsumerRecord<byte[], byte[]> record) {
        if (record.key() == null || record.value() == null) {
            return; // Interlace writes no tombstones: a key is revoked, never removed
        }
        String id = new String(record.key(), StandardCharsets.UTF_8);
        StoredKey key;
        try {
            key = StoredKey.fromJson(record.value());
            if (!key.id().equals(id)) {
                throw new IllegalArgumentException("the record's key is " + id + " but its value is key " + key.id());
            }
        } catch (IllegalArgumentException e) {
            if (unreadable.add(id)) {
                LOG.severe("the record of API key " + id + " on " + topic.topic() + " (offset " + record.offset()
                        + ") cannot be read, so the key is refused until a readable record replaces it: "
                        + e.getMessage());
            }
            topicChanged = true;
            return;
        }
        unreadable.remove(id);
        newestOnTopic.put(id, key);
        sent.remove(id, key);
        StoredKey known = onTopic.get(id);
        if (known == null) {
            onTopic.put(id, key);
        } else if (known.sameDefinition(key)) {
            onTopic.put(id, known.mergedWith(key));
        } else {
            reportConflict(id, "two records of " + topic.topic());
        }
        topicChanged = true;
    }

    /**
     * One step of keeping the file and the topic in step: publishes what the file knows better, merges what the
     * topic knows better into the file, and recomputes the keys authentication goes against.
     */
    private void sync() {
        List<StoredKey> fileKeys = file.stored();
        if (fileKeys == fileKeysSynced && !topicChanged) {
            return;
        }
        topicChanged = false;
        Map<String, StoredKey> merged = new LinkedHashMap<>();
        Set<String> refused = new HashSet<>(unreadable);
        List<StoredKey> toFile = new ArrayList<>();
        Map<String, StoredKey> fileById = new HashMap<>();
        for (StoredKey key : fileKeys) {
            fileById.put(key.id(), key);
            StoredKey published = onTopic.get(key.id());
            if (published != null && !published.sameDefinition(key)) {
                reportConflict(key.id(), file.path() + " and " + topic.topic());
                continue;
            }
            StoredKey best = published == null ? key : key.mergedWith(published);
            merged.put(key.id(), best);
            if (!best.equals(key)) {
                toFile.add(best);
            }
            if (!best.equals(newestOnTopic.get(key.id())) && !best.equals(sent.get(key.id()))) {
                publish(best);
            }
        }
        for (StoredKey key : onTopic.values()) {
            if (!fileById.containsKey(key.id())) {
                merged.put(key.id(), key);
                toFile.add(key);
            }
        }
        refused.addAll(reportedConflicts);
        merged.keySet().removeAll(refused);
        union = List.copyOf(merged.values());
        fileKeysSynced = fileKeys;
        if (!toFile.isEmpty()) {
            file.merge(toFile);
        }
    }

    private void publish(StoredKey key) {
        sent.put(key.id(), key);
        producer.send(new ProducerRecord<>(topic.topic(), key.id().getBytes(StandardCharsets.UTF_8), key.toJson()),
                (metadata, failure) -> {
                    if (failure != null) {
                        sent.remove(key.id(), key); // sent again at the next step
                        problem("cannot publish API key " + key.id() + " to " + topic.topic() + ": " + failure);
                    }
                });
    }

    private void reportConflict(String id, String where) {
        if (reportedConflicts.add(id)) {
            LOG.severe("two different API keys have the id " + id + " (in " + where + "): both are refused on this"
                    + " node. Revoke the key where it was created and create a new one");
        }
    }

    private void run() {
        while (!closed) {
            try {
                poll(Duration.ofMillis(SYNC_INTERVAL_MILLIS));
                sync();
                lastProblem = null;
            } catch (WakeupException e) {
                // closing
            } catch (RuntimeException e) {
                // Keep the keys known: a cluster or a file that is away for a moment must not turn keys off (or on).
                problem("keeping the API keys in step with " + topic.topic() + " failed: " + e
                        + "; still using the keys known before");
                try {
                    TimeUnit.MILLISECONDS.sleep(SYNC_INTERVAL_MILLIS);
                } catch (InterruptedException interrupted) {
                    return;
                }
            }
        }
    }

    private void problem(String message) {
        if (!message.equals(lastProblem)) {
            LOG.log(Level.SEVERE, message);
            lastProblem = message;
        }
    }

    /** Stops keeping the file and the topic in step; the key file itself is closed by its owner. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        consumer.wakeup();
        DaemonThreads.join(thread, Duration.ofSeconds(10));
        consumer.close(Duration.ofSeconds(5));
        producer.close(Duration.ofSeconds(5));
    }
}
