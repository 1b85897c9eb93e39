package dev.interlace.log.kafka;

import dev.interlace.runtime.log.AppendListener;
import dev.interlace.runtime.log.ConsumerGroups;
import dev.interlace.runtime.log.FollowerGroups;
import dev.interlace.runtime.log.ForwardingConsumerGroups;
import dev.interlace.runtime.log.ForwardingPublishRecords;
import dev.interlace.runtime.log.LogUnavailableException;
import dev.interlace.runtime.log.PublishRecords;
import dev.interlace.runtime.log.ReadOnlyLog;
import dev.interlace.runtime.stream.StreamDescriptor;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.TopicPartition;

/**
 * The Kafka log read and never written: what a query process (a local replica of a node's warehouse) flushes from. It
 * has the read side of every node ({@link Tailer} into the {@link StreamViews} and a {@link PublishStore} of its own,
 * events and quarantined entries read through {@link TopicPages}) and nothing of the write side: it joins no group of
 * the cluster (no sequencer group, its consumers have no group id), creates no topic and writes no record. Its
 * flusher's groups are in its memory ({@link FollowerGroups}), so no flush lease of it is on {@code _state}: the
 * cluster does not count or list it among the warehouse replicas, and the log's trims do not wait for it (a follower
 * behind a trim stops flushing the stream, and the query process is rebuilt from what the log holds).
 * Appends, replays, trims and grants are refused.
 */
public final class KafkaLogFollower extends KafkaLogReads
        implements ReadOnlyLog, ForwardingConsumerGroups, ForwardingPublishRecords {

    private final Admin admin;
    private final Topics topics;
    private final PublishStore publishes;
    private final StreamViews views;
    private final Tailer tailer;
    private final Readers readers;
    private final Reads reads;
    private final KafkaPublishRecords publishRecords;
    private final FollowerGroups groups;

    /**
     * Connects to the cluster {@code kafka} names (only its bootstrap, topic prefix and data directory are used: the
     * follower's copy of the publish records is in that directory) and reads the log's own topics.
     */
    public KafkaLogFollower(KafkaLogSettings kafka, Clock clock) {
        String client = kafka.topicPrefix() + "query-process.";
        this.admin = Topics.connect(kafka, client + "admin");
        this.topics = new Topics(admin, kafka.topicPrefix(), kafka.replicationFactor(), kafka.minInsyncReplicas());
        this.publishes = PublishStore.create(kafka.publishStoreFile());
        this.views = new StreamViews(topics, publishes, null, this::appended);
        this.tailer = new Tailer(kafka.bootstrap(), client + "tailer", views::apply);
        this.readers = new Readers(kafka.bootstrap(), client + "reader");
        this.reads = Reads.of(views, topics, readers);
        this.publishRecords = new KafkaPublishRecords(kafka, topics, publishes);
        this.groups = new FollowerGroups(clock, stream -> {
            StreamView view = views.find(stream);
            return view == null ? 0 : view.headOffset();
        });
        try {
            List<TopicPartition> own = List.of(topics.publishes(), topics.state());
            tailer.follow(Set.copyOf(own));
            tailer.awaitCaughtUp(topics.stableEnds(own), CATCH_UP_TIMEOUT);
        } catch (RuntimeException | InterruptedException e) {
            close();
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
                throw new LogUnavailableException("interrupted while reading the Kafka log", e);
            }
            throw (RuntimeException) e;
        }
    }

    /** Follows {@code stream}'s topics, which the node that serves it created, and reads them up to their ends. */
    @Override
    public void register(StreamDescriptor stream) {
        registerAll(List.of(stream));
    }

    /** {@inheritDoc} Here the streams are followed together. */
    @Override
    public void registerAll(List<StreamDescriptor> streams) {
        Set<String> created = null;
        for (StreamDescriptor stream : streams) {
            if (!toRegister(stream)) {
                continue;
            }
            created = created == null ? topics.streams() : created;
            if (!created.contains(stream.name())) {
                throw new LogUnavailableException("the Kafka log has no topic of stream " + stream.name() + " yet (the"
                        + " node creates it when it registers the stream)");
            }
        }
        List<StreamDescriptor> registering = registering(streams);
        if (!registering.isEmpty()) {
            follow(registering, topics, tailer);
        }
    }

    @Override
    Reads reads() {
        return reads;
    }

    @Override
    public String followedLog() {
        return "the Kafka log";
    }

    private void appended(String stream) {
        for (AppendListener listener : listeners) {
            listener.appended(stream);
        }
    }

    /** Only a stream's sequencer holds its keys: unknown here. */
    @Override
    public long offsetOfKey(String stream, String key) {
        return 0;
    }

    @Override
    public Health health() {
        if (closed()) {
            return new Health(false, "the log follower is closed");
        }
        if (tailer.failure() != null) {
            return new Health(false, "the log follower cannot read the Kafka log: " + tailer.failure().getMessage());
        }
        long silent = tailer.silentNanos();
        return silent > Sequencer.STALL_NANOS ? new Health(false, "the Kafka cluster has not answered the log"
                + " follower's reads for " + TimeUnit.NANOSECONDS.toSeconds(silent) + " s") : Health.ok();
    }

    @Override
    public ConsumerGroups consumerGroups() {
        return groups;
    }

    @Override
    public PublishRecords publishRecords() {
        return publishRecords;
    }

    /** The node trims the publish records. */
    @Override
    public long trimPublishes(long beforeMicros) {
        return 0;
    }

    @Override
    void release() {
        tailer.close();
        readers.close();
        publishes.close(); // after the tailer, which applies what it reads to it
        admin.close(Duration.ofSeconds(5));
    }
}
