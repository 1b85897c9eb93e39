package dev.interlace.log.kafka;

import dev.interlace.runtime.dedup.DedupIndex;
import dev.interlace.runtime.dedup.SegmentListener;
import dev.interlace.runtime.health.ComponentHealth;
import dev.interlace.runtime.log.AppendListener;
import dev.interlace.runtime.log.AppendRequest;
import dev.interlace.runtime.log.AppendResult;
import dev.interlace.runtime.log.ConsumerGroups;
import dev.interlace.runtime.log.ForwardingConsumerGroups;
import dev.interlace.runtime.log.ForwardingPublishRecords;
import dev.interlace.runtime.log.LogEntry;
import dev.interlace.runtime.log.LogSettings;
import dev.interlace.runtime.log.LogUnavailableException;
import dev.interlace.runtime.log.PayloadAllowance;
import dev.interlace.runtime.log.PublishRecords;
import dev.interlace.runtime.log.ReplayRequest;
import dev.interlace.runtime.log.ReplayResult;
import dev.interlace.runtime.log.Sequencers;
import dev.interlace.runtime.log.StreamLog;
import dev.interlace.runtime.log.Watermarks;
import dev.interlace.runtime.ops.DaemonThreads;
import dev.interlace.runtime.stream.StreamDescriptor;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.TopicPartition;

/**
 * The stream log on an Apache Kafka cluster: one topic per stream (one partition, so a stream is one sequence),
 * one sequencer per stream cluster-wide, and every node's view of the log rebuilt from the topics.
 *
 * <p>Writes go through the stream's {@link Sequencer} on the node the sequencer group assigned the stream to
 * ({@link Membership}); an append or a consumer-group operation on a node that does not hold the stream waits a
 * little for a takeover under way, then fails with {@link dev.interlace.runtime.log.NoSequencerException} (the HTTP layer forwards such
 * requests to the holder). A node of {@code --role warehouse} is no member of the group and never sequences.
 * Where streams are sequenced is {@link SequencerPlacement}'s. Reads work on every node: the {@link Tailer} follows
 * every topic read-committed into the {@link StreamViews} and the {@link PublishStore}, and events and quarantined
 * entries are read from their topics ({@link EventReads}, {@link QuarantineReads}). Consumer groups and publish
 * records have classes of their own ({@link KafkaConsumerGroups}, {@link KafkaPublishRecords}).
 *
 * <p>What {@link #append} completing means: the request's events, quarantined events and publish record are one
 * Kafka transaction, committed with {@code acks=all}, i.e. in the page cache of at least {@code min.insync.replicas}
 * brokers (with {@code flush.messages=1} on the topics, also fsynced). A request is atomic: read-committed readers
 * see all of its records or none. A {@link #replay} is the same, with its replay marks in the transaction too.
 */
public final class KafkaStreamLog extends KafkaLogReads
        implements StreamLog, ForwardingConsumerGroups, ForwardingPublishRecords, Sequencers {

    private static final Logger LOG = Logger.getLogger(KafkaStreamLog.class.getName());
    /** How often a node that may sequence streams looks whether its standby segments need new keys. */
    private static final Duration STANDBY_PERIOD = Duration.ofSeconds(5);

    private final KafkaLogSettings kafka;
    private final ClusterWatermarks watermarks;
    private final Admin admin;
    private final Topics topics;
    private final PublishStore publishes;
    private final StreamViews views;
    private final Tailer tailer;
    private final Readers readers;
    /** The deduplication indexes of the streams this node sequences. */
    private final SequencerIndexes indexes;
    /** The keys of the keyed streams' events on this node's disk, if it may sequence streams (else null). */
    private final LocalKeys localKeys;
    private final SequencerPlacement placement;
    private final KafkaConsumerGroups groups;
    private final KafkaPublishRecords publishRecords;
    private final StreamTrims trims;
    private final Reads reads;
    /** Completes the sequencers' appends after their commits (see {@link SequencerContext#acknowledger}). */
    private final ExecutorService acknowledger = Executors.newSingleThreadExecutor(
            DaemonThreads.named("interlace-kafka-ack"));
    /** The watchdog and the standby segments' upkeep; null on a node that sequences nothing. */
    private final SequencingRounds rounds;
    /** This node's membership of the sequencer group; null on a node that sequences nothing. */
    private final Membership membership;

    /**
     * Connects to the cluster, creates or checks the log's own topics and reads them; streams come with register.
     *
     * @param materialised how far this node's own flusher has materialised each stream (zero without one); the log's
     *     {@link #watermarks()} add what the cluster's flusher committed
     */
    public KafkaStreamLog(KafkaLogSettings kafka, LogSettings settings, Watermarks materialised, Clock clock) {
        this(kafka, settings, materialised, clock, Fencing.TRANSACTIONAL, ComponentHealth.unwatched(), STANDBY_PERIOD,
                SegmentListener.NONE, IndexPublicationListener.NONE);
    }

    /** The same, reporting a sequencer that died or a failed watchdog or standby round to {@code components}. */
    public KafkaStreamLog(KafkaLogSettings kafka, LogSettings settings, Watermarks materialised, Clock clock,
            ComponentHealth components) {
        this(kafka, settings, materialised, clock, Fencing.TRANSACTIONAL, components, STANDBY_PERIOD,
                SegmentListener.NONE, IndexPublicationListener.NONE);
    }

    /**
     * The same, telling {@code segments} of the steps of the sequencer indexes' files and {@code publication} of
     * those of their publication: crash tests stop the process there (a test module reaches this constructor; no
     * flag does).
     */
    KafkaStreamLog(KafkaLogSettings kafka, LogSettings settings, Watermarks materialised, Clock clock,
            SegmentListener segments, IndexPublicationListener publication) {
        this(kafka, settings, materialised, clock, Fencing.TRANSACTIONAL, ComponentHealth.unwatched(), STANDBY_PERIOD,
                segments, publication);
    }

    /**
     * The same, with the sequencers fencing earlier holders as {@code fencing} says: always
     * {@link Fencing#TRANSACTIONAL}, except for the negative control of the multi-node failure test (a
     * test module reaches this constructor; no flag does).
     */
    KafkaStreamLog(KafkaLogSettings kafka, LogSettings settings, Watermarks materialised, Clock clock,
            Fencing fencing) {
        this(kafka, settings, materialised, clock, fencing, ComponentHealth.unwatched(), STANDBY_PERIOD,
                SegmentListener.NONE, IndexPublicationListener.NONE);
    }

    /**
     * The same, with the standby runs {@code standbyPeriod} apart (a test keeps a node far behind with a long one; no
     * flag does).
     */
    KafkaStreamLog(KafkaLogSettings kafka, LogSettings settings, Watermarks materialised, Clock clock,
            Duration standbyPeriod) {
        this(kafka, settings, materialised, clock, Fencing.TRANSACTIONAL, ComponentHealth.unwatched(), standbyPeriod,
                SegmentListener.NONE, IndexPublicationListener.NONE);
    }

    private KafkaStreamLog(KafkaLogSettings kafka, LogSettings settings, Watermarks materialised, Clock clock,
            Fencing fencing, ComponentHealth components, Duration standbyPeriod, SegmentListener segments,
            IndexPublicationListener publication) {
        this.kafka = kafka;
        this.admin = Topics.connect(kafka, kafka.topicPrefix() + "admin");
        this.topics = new Topics(admin, kafka.topicPrefix(), kafka.replicationFactor(), kafka.minInsyncReplicas());
        this.publishes = PublishStore.create(kafka.publishStoreFile());
        this.localKeys = kafka.sequences() ? new LocalKeys(kafka.localKeysDirectory()) : null;
        this.views = new StreamViews(topics, publishes, localKeys, this::appended);
        this.watermarks = new ClusterWatermarks(materialised, views::find, kafka.nodeUrl(), clock);
        Tailer startedTailer = null;
        try {
            topics.ensureLogTopics();
            startedTailer = new Tailer(kafka.bootstrap(), kafka.topicPrefix() + "tailer", views::apply,
                    localKeys == null ? () -> { } : localKeys::flush);
            this.tailer = startedTailer;
            List<TopicPartition> own = List.of(topics.publishes(), topics.state());
            tailer.follow(Set.copyOf(own));
            tailer.awaitCaughtUp(topics.stableEnds(own), CATCH_UP_TIMEOUT);
        } catch (RuntimeException | InterruptedException e) {
            if (startedTailer != null) {
                startedTailer.close();
            }
            publishes.close();
            if (localKeys != null) {
                localKeys.close();
            }
            admin.close();
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
                throw new LogUnavailableException("interrupted while opening the Kafka log", e);
            }
            throw (RuntimeException) e;
        }
        this.readers = new Readers(kafka.bootstrap(), kafka.topicPrefix() + "reader");
        this.reads = Reads.of(views, topics, readers);
        this.indexes = new SequencerIndexes(kafka.indexDirectory(), settings.dedup(), segments, clock, localKeys,
                new IndexTopics(kafka.bootstrap(), kafka.topicPrefix() + "dedup-publisher", topics, readers,
                        publication));
        this.placement = new SequencerPlacement(kafka, topics, views, indexes);
        this.publishRecords = new KafkaPublishRecords(kafka, topics, publishes);
        this.groups = new KafkaConsumerGroups(views, placement, topics);
        this.trims = new StreamTrims(views, placement, topics);
        this.membership = placement.join(new SequencerContext(kafka.bootstrap(), kafka.nodeUrl(), topics, tailer,
                publishes, settings, watermarks, clock, placement::changed, this::appended, acknowledger, fencing,
                readers, indexes, publishRecords::plainProducer, placement::takeoverRefusal, views::view));
        this.rounds = !kafka.sequences() ? null : new SequencingRounds(placement, components, standbyPeriod);
    }

    /** The newest offset of {@code stream} whose key this node has on its disk (-1: none); for tests and benchmarks. */
    long localKeysThrough(String stream) {
        return localKeys == null ? -1 : localKeys.through(stream);
    }

    /** How many records this node's tailer read, and how many fetches its position searches made; for tests. */
    long[] tailerReads() {
        return new long[] {tailer.recordsRead(), views.search().fetches()};
    }

    /** The streams this node follows but is no candidate for sequencing yet ({@link Candidacy}); for tests. */
    List<String> candidacyWaiting() {
        return placement.candidacyWaiting();
    }

    /** Where this node's standby segments of {@code stream} reach (-1 before the first run); for benchmarks. */
    long standbySealedThrough(String stream) {
        return indexes.standbySealedThrough(stream);
    }

    /** The members of the sequencer group, by their client ids (the nodes' URLs); empty when none answers. */
    List<String> sequencerGroupMembers() {
        return topics.sequencerGroupMembers();
    }

    /** The URL this node advertises, as other nodes know it. */
    String nodeUrl() {
        return kafka.nodeUrl();
    }

    /**
     * How far each stream is materialised cluster-wide, as far as this node knows: what backpressure and retention
     * read on this node (see {@link ClusterWatermarks}).
     */
    public Watermarks watermarks() {
        return watermarks;
    }

    @Override
    Reads reads() {
        return reads;
    }

    // ================================================================== streams

    @Override
    public void register(StreamDescriptor stream) {
        registerAll(List.of(stream));
    }

    /**
     * {@inheritDoc} Here the streams' topics are made (by partition number, the highest first), followed, and offered
     * to the sequencer group together.
     */
    @Override
    public void registerAll(List<StreamDescriptor> streams) {
        List<StreamDescriptor> registering = registering(streams);
        if (registering.isEmpty()) {
            return;
        }
        topics.ensureStreamTopics(registering.stream().map(StreamDescriptor::name).toList());
        List<TopicPartition> events = follow(registering, topics, tailer);
        for (int i = 0; i < registering.size(); i++) {
            placement.offer(views.view(registering.get(i).name()), events.get(i).topic());
        }
    }

    @Override
    public Optional<String> holder(String stream) {
        return placement.holder(stream);
    }

    @Override
    public boolean sequencesHere(String stream) {
        return placement.holdsHere(stream);
    }

    // ================================================================== EventLog

    @Override
    public CompletableFuture<AppendResult> append(AppendRequest request) {
        return onSequencer(request.stream(), sequencer -> sequencer.append(request));
    }

    /**
     * {@inheritDoc} Here: when this node's sequencer of the stream is active and the request cannot be a retry of
     * committed events (most publishes), it is queued for the sequencer; else {@link #append} must wait (for a
     * takeover, for the events a retry's answer is read from).
     */
    @Override
    public boolean appendReturnsAtOnce() {
        return true;
    }

    @Override
    public CompletableFuture<AppendResult> appendAtOnce(AppendRequest request) {
        if (!views.isRegistered(request.stream())) {
            return null;
        }
        Sequencer sequencer = placement.activeNow(request.stream());
        return sequencer == null ? null : sequencer.appendAtOnce(request);
    }

    /** {@code write} on this node's active sequencer of a registered stream; its failure, as a failed future. */
    private <T> CompletableFuture<T> onSequencer(String stream, Function<Sequencer, CompletableFuture<T>> write) {
        try {
            views.registeredView(stream);
            return write.apply(placement.active(stream));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * Runs the replay on the sequencer of the stream its events go to (of a partitioned stream: their partition's,
     * here): its events are appended as one publish request and its entries marked replayed on {@code _state}, in one
     * Kafka transaction (see {@link Sequencer}); the marks are the quarantine's stream's, even when that is
     * another partition's.
     */
    @Override
    public CompletableFuture<ReplayResult> replay(ReplayRequest request) {
        return onSequencer(request.target(), sequencer -> sequencer.replay(request));
    }

    private void appended(String stream) {
        for (AppendListener listener : listeners) {
            try {
                listener.appended(stream);
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "an append listener failed", e);
            }
        }
    }

    /** {@inheritDoc} Each value is offered to {@code allowance} as the read comes to it, as {@link #read} does. */
    @Override
    public List<LogEntry> latest(String stream, int limit, long maxBytes, PayloadAllowance allowance) {
        return reads.events().latest(stream, limit, maxBytes, allowance);
    }

    @Override
    public Set<String> knownStreams() {
        return topics.streams();
    }

    @Override
    public long trim(String stream, long throughOffset) {
        return trims.trim(stream, throughOffset);
    }

    @Override
    public long offsetOfKey(String stream, String key) {
        StreamView view = views.find(stream);
        if (view == null || !view.keyed()) {
            return 0;
        }
        // Only the node that sequences the stream holds its keys; elsewhere this is no_sequencer, naming the holder.
        return placement.await(stream, "look up a key of " + stream, sequencer -> sequencer.offsetOfKey(key));
    }

    @Override
    public Optional<DedupIndex.Stats> dedupStats(String stream) {
        return placement.dedupStats(stream);
    }

    @Override
    public Health health() {
        if (closed()) {
            return new Health(false, "the log is closed");
        }
        String silence = silence();
        if (silence != null) {
            return new Health(false, silence);
        }
        String problem = placement.problem();
        return problem == null ? Health.ok() : new Health(false, problem);
    }

    /**
     * Why the cluster does not seem to answer this node, whatever it is asked to do: the sequencer group's
     * coordinator silent for {@link Sequencer#STALL_NANOS} (heartbeats go every quarter of the session timeout), or
     * the brokers silent to the tailer's reads as long (they answer an idle read every 100 ms); null while both
     * answer.
     */
    private String silence() {
        long silent = membership == null ? 0 : membership.silentNanos();
        if (silent > Sequencer.STALL_NANOS) {
            return "the Kafka cluster has not answered this node's membership of the sequencer group for "
                    + TimeUnit.NANOSECONDS.toSeconds(silent) + " s (cut off from the brokers, or the brokers stopped):"
                    + " the group gives its streams to other nodes, and it takes none over until it hears from the"
                    + " group again";
        }
        silent = tailer.silentNanos();
        if (silent > Sequencer.STALL_NANOS) {
            return "the Kafka cluster has not answered this node's reads of the log for "
                    + TimeUnit.NANOSECONDS.toSeconds(silent) + " s (cut off from the brokers, or the brokers stopped):"
                    + " what it answers from the log may be behind";
        }
        return null;
    }

    // ================================================================== ConsumerGroups (see KafkaConsumerGroups)

    @Override
    public ConsumerGroups consumerGroups() {
        return groups;
    }

    // ================================================================== PublishRecords (see KafkaPublishRecords)

    @Override
    public PublishRecords publishRecords() {
        return publishRecords;
    }

    // ================================================================== closing

    @Override
    void release() {
        placement.close();
        acknowledger.shutdown(); // answers already committed are still given
        DaemonThreads.awaitTermination(acknowledger, Duration.ofSeconds(5));
        placement.changed();
        if (rounds != null) {
            rounds.stop();
        }
        indexes.close(); // a standby run under way stops at its next group of keys
        if (rounds != null) {
            rounds.awaitStopped();
        }
        tailer.close();
        readers.close();
        publishes.close(); // after the tailer, which applies what it reads to it
        if (localKeys != null) {
            localKeys.close(); // the same
        }
        publishRecords.close();
        admin.close(Duration.ofSeconds(5));
    }
}
