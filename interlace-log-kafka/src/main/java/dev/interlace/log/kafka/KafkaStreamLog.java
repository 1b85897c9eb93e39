package dev.interlace.log.kafka;

import dev.interlace.runtime.dedup.DedupIndex;
import dev.interlace.runtime.dedup.SegmentListener;
import dev.interlace.runtime.log.AppendListener;
import dev.interlace.runtime.log.AppendRequest;
import dev.interlace.runtime.log.AppendResult;
import dev.interlace.runtime.log.GroupRules;
import dev.interlace.runtime.log.Leases;
import dev.interlace.runtime.log.LogEntry;
import dev.interlace.runtime.log.LogSettings;
import dev.interlace.runtime.log.LogUnavailableException;
import dev.interlace.runtime.log.NoSequencerException;
import dev.interlace.runtime.log.PayloadAllowance;
import dev.interlace.runtime.log.PublishRecord;
import dev.interlace.runtime.log.QuarantineEntry;
import dev.interlace.runtime.log.ReplayRequest;
import dev.interlace.runtime.log.ReplayResult;
import dev.interlace.runtime.log.Sequencers;
import dev.interlace.runtime.log.StreamHead;
import dev.interlace.runtime.log.StreamLog;
import dev.interlace.runtime.log.Watermarks;
import dev.interlace.runtime.ops.ComponentHealth;
import dev.interlace.runtime.ops.FatalErrors;
import dev.interlace.runtime.stream.StreamDescriptor;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.DescribeConsumerGroupsOptions;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The stream log on an Apache Kafka cluster: one topic per stream (one partition, so a stream is one sequence),
 * one sequencer per stream cluster-wide, and every node's view of the log rebuilt from the topics.
 *
 * <p>Writes go through the stream's {@link Sequencer} on the node the sequencer group assigned the stream to
 * ({@link Membership}); an append or a consumer-group operation on a node that does not hold the stream waits a
 * little for a takeover under way, then fails with {@link NoSequencerException} (the HTTP layer forwards such
 * requests to the holder). A node of {@code --role warehouse} is no member of the group and never sequences.
 * Reads work on every node: the {@link Tailer} follows every topic read-committed into per-stream
 * {@link StreamView}s and the {@link PublishStore}, and events are read from the topic through {@link Readers}.
 *
 * <p>What {@link #append} completing means: the request's events, quarantined events and publish record are one
 * Kafka transaction, committed with {@code acks=all}, i.e. in the page cache of at least {@code min.insync.replicas}
 * brokers (with {@code flush.messages=1} on the topics, also fsynced). A request is atomic: read-committed readers
 * see all of its records or none. A {@link #replay} is the same, with its replay marks in the transaction too.
 */
public final class KafkaStreamLog implements StreamLog, Sequencers {

    private static final Logger LOG = Logger.getLogger(KafkaStreamLog.class.getName());
    private static final Duration CATCH_UP_TIMEOUT = Duration.ofSeconds(60);
    private static final long OPERATION_SECONDS = 30;
    private static final long HOLDER_CACHE_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
    /** How often a request waiting for this node's sequencer of its stream asks who holds the stream. */
    private static final long HOLDER_LOOK_NANOS = TimeUnit.MILLISECONDS.toNanos(250);
    /** How often a node that may sequence streams looks whether its standby segments need new keys. */
    private static final Duration STANDBY_PERIOD = Duration.ofSeconds(5);
    /** How many old publish records one round of a trim removes: what a trim holds in memory at once. */
    private static final int TRIM_KEYS_PER_ROUND = 10_000;

    private final KafkaLogSettings kafka;
    private final LogSettings settings;
    private final ClusterWatermarks watermarks;
    private final Clock clock;
    private final Admin admin;
    private final Topics topics;
    private final PublishStore publishes;
    private final Map<String, StreamView> views = new ConcurrentHashMap<>();
    private final Set<String> registered = ConcurrentHashMap.newKeySet();
    /** Which stream and kind each followed topic holds. */
    private final Map<String, Route> routes = new ConcurrentHashMap<>();
    private final Map<String, Sequencer> sequencers = new ConcurrentHashMap<>();
    /** The streams the sequencer group assigns this node now (their partitions are this member's). */
    private final Set<String> assignedHere = ConcurrentHashMap.newKeySet();
    /**
     * How long a read of events for an answer (a page, the recent events, the quarantine) may see no record come
     * before it fails {@code log_unavailable}: a client waits seconds, not the 30 s the log's own reads allow.
     */
    private static final Duration ANSWER_PATIENCE = Duration.ofSeconds(5);
    private final List<AppendListener> listeners = new CopyOnWriteArrayList<>();
    private final Object sequencerChanges = new Object();
    private final Tailer tailer;
    private final Readers readers;
    /** The deduplication indexes of the streams this node sequences. */
    private final SequencerIndexes indexes;
    /** The keys of the keyed streams' events on this node's disk, if it may sequence streams (else null). */
    private final LocalKeys localKeys;
    /** Completes the sequencers' appends after their commits (see {@link Sequencer.Context#acknowledger}). */
    private final java.util.concurrent.ExecutorService acknowledger =
            java.util.concurrent.Executors.newSingleThreadExecutor(runnable -> {
                Thread thread = new Thread(runnable, "interlace-kafka-ack");
                thread.setDaemon(true);
                return thread;
            });
    /**
     * Keeps the standby deduplication segments of the keyed streams this node may take over up to date (see
     * {@link SequencerIndexes#standby}); null on a node that sequences nothing.
     */
    private final java.util.concurrent.ScheduledExecutorService standby;
    /** Answers what waits on a sequencer the cluster does not answer ({@link Sequencer#checkStall}); null likewise. */
    private final java.util.concurrent.ScheduledExecutorService watchdog;
    /** This node's membership of the sequencer group; null on a node that sequences nothing. */
    private final Membership membership;
    /** When this node becomes a candidate for each stream it follows (see {@link Candidacy}); null likewise. */
    private final Candidacy candidacy;
    private final Sequencer.Context context;
    /** Writes what needs no fencing: publish records of retries and tombstones of old ones; made when first used. */
    private volatile KafkaProducer<byte[], byte[]> plain;
    private volatile Map<String, String> holders = Map.of();
    private volatile long holdersReadAt;
    private volatile boolean closed;
    private final ComponentHealth components;

    private record Route(String stream, boolean quarantine) {}

    /**
     * Connects to the cluster, creates or checks the log's own topics and reads them; streams come with register.
     *
     * @param materialised how far this node's own flusher has materialised each stream (zero without one); the log's
     *     {@link #watermarks()} add what the cluster's flusher committed
     */
    public KafkaStreamLog(KafkaLogSettings kafka, LogSettings settings, Watermarks materialised, Clock clock) {
        this(kafka, settings, materialised, clock, Fencing.TRANSACTIONAL, ComponentHealth.unwatched(), STANDBY_PERIOD);
    }

    /** The same, reporting a sequencer that died or a failed watchdog or standby round to {@code components}. */
    public KafkaStreamLog(KafkaLogSettings kafka, LogSettings settings, Watermarks materialised, Clock clock,
            ComponentHealth components) {
        this(kafka, settings, materialised, clock, Fencing.TRANSACTIONAL, components, STANDBY_PERIOD);
    }

    /**
     * The same, with the sequencers fencing earlier holders as {@code fencing} says: always
     * {@link Fencing#TRANSACTIONAL}, except for the negative control of the multi-node failure test (a
     * test module reaches this constructor; no flag does).
     */
    KafkaStreamLog(KafkaLogSettings kafka, LogSettings settings, Watermarks materialised, Clock clock,
            Fencing fencing) {
        this(kafka, settings, materialised, clock, fencing, ComponentHealth.unwatched(), STANDBY_PERIOD);
    }

    /**
     * The same, with the standby runs {@code standbyPeriod} apart (a test keeps a node far behind with a long one; no
     * flag does).
     */
    KafkaStreamLog(KafkaLogSettings kafka, LogSettings settings, Watermarks materialised, Clock clock,
            Duration standbyPeriod) {
        this(kafka, settings, materialised, clock, Fencing.TRANSACTIONAL, ComponentHealth.unwatched(), standbyPeriod);
    }

    private KafkaStreamLog(KafkaLogSettings kafka, LogSettings settings, Watermarks materialised, Clock clock,
            Fencing fencing, ComponentHealth components, Duration standbyPeriod) {
        this.components = components;
        this.kafka = kafka;
        this.settings = settings;
        this.watermarks = new ClusterWatermarks(materialised, views::get, kafka.nodeUrl(), clock);
        this.clock = clock;
        this.admin = Topics.connect(kafka, kafka.topicPrefix() + "admin");
        this.topics = new Topics(admin, kafka.topicPrefix(), kafka.replicationFactor(), kafka.minInsyncReplicas());
        this.publishes = PublishStore.create(kafka.publishStoreFile());
        this.localKeys = kafka.sequences() ? new LocalKeys(kafka.localKeysDirectory()) : null;
        Tailer startedTailer = null;
        try {
            topics.ensureLogTopics();
            startedTailer = new Tailer(kafka.bootstrap(), kafka.topicPrefix() + "tailer", this::apply,
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
        this.indexes = new SequencerIndexes(kafka.indexDirectory(), settings.dedup(), SegmentListener.NONE, clock,
                localKeys);
        this.context = new Sequencer.Context(kafka.bootstrap(), kafka.nodeUrl(), topics, tailer, publishes, settings,
                watermarks, clock, this::sequencersChanged, this::appended, acknowledger, fencing, readers, indexes,
                this::plainProducer, this::takeoverRefusal);
        this.membership = !kafka.sequences() ? null : new Membership(kafka.bootstrap(), topics.sequencerGroup(),
                kafka.nodeUrl(), kafka.sessionTimeout(), this::assigned, this::revoked);
        this.candidacy = membership == null ? null : new Candidacy(membership, indexes, admin,
                topics.sequencerGroup(), kafka.nodeUrl());
        if (kafka.sequences()) {
            standby = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(runnable -> {
                Thread thread = new Thread(runnable, "interlace-kafka-standby");
                thread.setDaemon(true);
                thread.setPriority(Thread.NORM_PRIORITY - 1);
                return thread;
            });
            standby.scheduleWithFixedDelay(() -> reportingErrors(ComponentHealth.Component.KAFKA_STANDBY,
                    this::standbyRound), standbyPeriod.toMillis(), standbyPeriod.toMillis(),
                    TimeUnit.MILLISECONDS);
            watchdog = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(runnable -> {
                Thread thread = new Thread(runnable, "interlace-kafka-watchdog");
                thread.setDaemon(true);
                return thread;
            });
            watchdog.scheduleWithFixedDelay(() -> reportingErrors(ComponentHealth.Component.KAFKA_WATCHDOG,
                    this::watch), 500, 500, TimeUnit.MILLISECONDS);
        } else {
            standby = null;
            watchdog = null;
        }
    }

    /**
     * Runs one round of a scheduled component: an error escaping it would end its schedule silently, so out of memory
     * ends the process and any other error is reported and the round runs again at the next period.
     */
    private void reportingErrors(ComponentHealth.Component component, Runnable round) {
        try {
            round.run();
            components.recovered(component, null);
        } catch (Error e) {
            FatalErrors.exitIfFatal(e);
            components.failed(component, null, e, ComponentHealth.Fate.RESTARTING);
        }
    }

    /**
     * One look at every keyed stream this node follows without sequencing it (see {@link SequencerIndexes#standby}),
     * including one whose registration is still catching up with its events: a node that never followed a stream
     * builds its segments from the key blocks while its tailer reads the events, so that its takeover reads only the
     * blocks written since, instead of building every segment after the catch-up.
     */
    private void standbyRound() {
        for (StreamView view : views.values()) {
            if (closed) {
                return;
            }
            // Its topics exist once the tailer follows them (a route).
            if (view.keyed() && !sequencers.containsKey(view.name)
                    && routes.containsKey(topics.events(view.name).topic())) {
                indexes.standby(view, new KeyBlockTopic(view, topics, readers));
            }
        }
    }

    /** The newest offset of {@code stream} whose key this node has on its disk (-1: none); for tests and benchmarks. */
    long localKeysThrough(String stream) {
        return localKeys == null ? -1 : localKeys.through(stream);
    }

    /** The streams this node follows but is no candidate for sequencing yet ({@link Candidacy}); for tests. */
    List<String> candidacyWaiting() {
        return candidacy == null ? List.of() : candidacy.waiting();
    }

    /** Where this node's standby segments of {@code stream} reach (-1 before the first run); for benchmarks. */
    long standbySealedThrough(String stream) {
        return indexes.standbySealedThrough(stream);
    }

    /**
     * How far each stream is materialised cluster-wide, as far as this node knows: what backpressure and retention
     * read on this node (see {@link ClusterWatermarks}).
     */
    public Watermarks watermarks() {
        return watermarks;
    }

    // ================================================================== streams

    @Override
    public void register(StreamDescriptor stream) {
        if (closed) {
            throw new LogUnavailableException("the log is closed");
        }
        if (registered.contains(stream.name())) {
            return;
        }
        long retentionMicros = stream.retentionMillis().isPresent() ? stream.retentionMillis().getAsLong() * 1_000
                : 0;
        StreamView view = view(stream.name());
        view.registered(retentionMicros, stream.idempotencyKey() != null);
        topics.ensureStreamTopics(stream.name());
        TopicPartition events = topics.events(stream.name());
        TopicPartition quarantine = topics.quarantine(stream.name());
        routes.put(events.topic(), new Route(stream.name(), false));
        routes.put(quarantine.topic(), new Route(stream.name(), true));
        tailer.follow(Set.of(events, quarantine));
        try {
            tailer.awaitCaughtUp(topics.stableEnds(List.of(events, quarantine, topics.state())), CATCH_UP_TIMEOUT);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LogUnavailableException("interrupted while reading stream " + stream.name(), e);
        }
        registered.add(stream.name());
        if (candidacy != null) {
            candidacy.offer(view, events.topic());
        }
    }

    private StreamView view(String stream) {
        return views.computeIfAbsent(stream, name -> new StreamView(name, 0));
    }

    private StreamView registeredView(String stream) {
        StreamView view = views.get(stream);
        if (view == null || !registered.contains(stream)) {
            throw new IllegalArgumentException("stream " + stream + " is not registered with the log");
        }
        return view;
    }

    /** Applies one record the tailer read. */
    private void apply(ConsumerRecord<byte[], byte[]> record) {
        String topic = record.topic();
        if (topic.equals(topics.publishes().topic())) {
            String key = Codec.text(record.key());
            if (record.value() == null) {
                publishes.applyTombstone(key, record.offset());
            } else {
                publishes.apply(key, Codec.json(record.value(), PublishRecord.class), record.offset());
            }
        } else if (topic.equals(topics.state().topic())) {
            String key = Codec.text(record.key());
            if (record.value() == null) {
                return;
            }
            if (key.startsWith("group/")) {
                Codec.GroupState state = Codec.json(record.value(), Codec.GroupState.class);
                view(state.stream()).applyGroup(state, record.offset());
            } else if (key.startsWith("trim/")) {
                Codec.TrimPoint trim = Codec.json(record.value(), Codec.TrimPoint.class);
                view(trim.stream()).applyTrim(trim.throughOffset());
            } else if (key.startsWith("replay/")) {
                Codec.ReplayMark mark = Codec.json(record.value(), Codec.ReplayMark.class);
                view(mark.stream()).applyReplay(mark);
            }
        } else {
            Route route = routes.get(topic);
            if (route == null) {
                return;
            }
            StreamView view = view(route.stream());
            if (route.quarantine()) {
                view.applyQuarantine(Codec.longHeader(record.headers(), Codec.SEQ), record.offset());
            } else {
                long before = view.headOffset();
                long offset = Codec.longHeader(record.headers(), Codec.OFFSET);
                long at = Codec.longHeader(record.headers(), Codec.AT);
                view.applyEvent(offset, record.offset(), at, Codec.longHeader(record.headers(), Codec.LAST));
                if (localKeys != null && view.keyed()) {
                    localKeys.saw(route.stream(), offset, at, record.key(), view.trimmedThrough());
                }
                if (view.headOffset() > before) {
                    appended(route.stream());
                }
            }
        }
    }

    // ================================================================== sequencers

    private void assigned(TopicPartition partition) {
        Route route = routes.get(partition.topic());
        if (route == null || closed) {
            return;
        }
        assignedHere.add(route.stream());
        LOG.info("the sequencer group assigns stream " + route.stream() + " to this node (" + kafka.nodeUrl() + ")");
        Sequencer sequencer = new Sequencer(view(route.stream()), context);
        Sequencer previous = sequencers.put(route.stream(), sequencer);
        if (previous != null) {
            previous.stop();
        }
        sequencer.start();
    }

    private void revoked(TopicPartition partition) {
        Route route = routes.get(partition.topic());
        if (route == null) {
            return;
        }
        assignedHere.remove(route.stream());
        LOG.info("the sequencer group takes stream " + route.stream() + " away from this node (" + kafka.nodeUrl()
                + ")");
        context.fencing().revoked(route.stream(), () -> {
            Sequencer sequencer = sequencers.remove(route.stream());
            if (sequencer != null) {
                sequencer.stop();
            }
            sequencersChanged();
        });
    }

    /**
     * The watchdog's round: answers what waits on a sequencer the cluster does not answer
     * ({@link Sequencer#checkStall}), and takes back a stream whose sequencer was fenced while the group still assigns
     * it here. A legitimate new holder gets the stream from the group, which revokes it here first (cooperative
     * rebalancing); a fence without a revocation within the session timeout came from a node the group does not
     * assign it to (one cut off from the group, or gone since), and without this the stream would have no writer
     * until the next rebalance.
     */
    private void watch() {
        RuntimeException tailerFailure = tailer.failure();
        if (tailerFailure != null && !closed) {
            components.failed(ComponentHealth.Component.KAFKA_TAILER, null, tailerFailure, ComponentHealth.Fate.DEAD);
        }
        try {
            candidacy.check();
            for (Map.Entry<String, Sequencer> entry : sequencers.entrySet()) {
                Sequencer sequencer = entry.getValue();
                Throwable died = sequencer.died();
                if (died != null) {
                    components.failed(ComponentHealth.Component.KAFKA_SEQUENCER, entry.getKey(), died,
                            ComponentHealth.Fate.DEAD);
                }
                Throwable sealFailure = indexes.sealFailure(entry.getKey());
                if (sealFailure != null) {
                    components.failed(ComponentHealth.Component.DEDUP_SEALER, entry.getKey(), sealFailure,
                            ComponentHealth.Fate.RESTARTING);
                } else {
                    components.recovered(ComponentHealth.Component.DEDUP_SEALER, entry.getKey());
                }
                sequencer.checkStall();
                long fenced = sequencer.fencedNanosAgo();
                if (!closed && fenced > kafka.sessionTimeout().toNanos()
                        && sequencer.state() == Sequencer.State.STOPPED && assignedHere.contains(entry.getKey())) {
                    Sequencer again = new Sequencer(view(entry.getKey()), context, true);
                    if (sequencers.replace(entry.getKey(), sequencer, again)) {
                        LOG.warning("the sequencer of stream " + entry.getKey() + " was fenced "
                                + TimeUnit.NANOSECONDS.toMillis(fenced) + " ms ago by a holder the sequencer group"
                                + " does not know, and the group still assigns the stream to this node: taking it"
                                + " back");
                        again.start();
                        sequencersChanged();
                    }
                }
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "the Kafka log's watchdog round failed", e);
        }
    }

    /**
     * Why this node must not take {@code stream} over now, or null (see {@link Sequencer.TakeoverGuard}): the group
     * must assign the stream here, and its coordinator must have answered this member within the session timeout
     * (a member cut off from it keeps its partitions until it hears from it again, long after the group gave them
     * to another node); with {@code confirm}, the coordinator must also say so now.
     */
    private String takeoverRefusal(String stream, boolean confirm) {
        if (closed || membership == null || !assignedHere.contains(stream)) {
            return "the sequencer group does not assign stream " + stream + " to this node (" + kafka.nodeUrl() + ")";
        }
        if (!membership.live()) {
            return "the sequencer group's coordinator has not answered this node for "
                    + TimeUnit.NANOSECONDS.toSeconds(membership.silentNanos()) + " s (cut off from the brokers, or"
                    + " the brokers stopped): the group may have given stream " + stream + " to another node, and"
                    + " this node takes it over only once the group says it is still its own";
        }
        return confirm ? coordinatorRefusal(stream) : null;
    }

    /**
     * Why the sequencer group's coordinator does not confirm now that the group assigns {@code stream} here, or null.
     */
    private String coordinatorRefusal(String stream) {
        String topic = topics.events(stream).topic();
        ConsumerGroupDescription group;
        try {
            group = admin.describeConsumerGroups(List.of(topics.sequencerGroup()),
                    new DescribeConsumerGroupsOptions().timeoutMs(2_000)).all().get(3, TimeUnit.SECONDS)
                    .get(topics.sequencerGroup());
        } catch (ExecutionException | TimeoutException | KafkaException e) {
            return "the sequencer group's coordinator did not say who holds stream " + stream + ": " + e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted while asking the sequencer group who holds stream " + stream;
        }
        if (group.groupState() != GroupState.STABLE) {
            return "the sequencer group is rebalancing (" + group.groupState() + "): this node takes stream "
                    + stream + " over once the group says it is its own";
        }
        for (MemberDescription member : group.members()) {
            if (member.assignment().topicPartitions().stream().anyMatch(partition -> partition.topic().equals(topic))) {
                return member.clientId().equals(kafka.nodeUrl()) ? null : "the sequencer group assigns stream "
                        + stream + " to " + member.clientId() + ", not to this node (" + kafka.nodeUrl() + ")";
            }
        }
        return "the sequencer group assigns stream " + stream + " to no node right now";
    }

    private void sequencersChanged() {
        synchronized (sequencerChanges) {
            sequencerChanges.notifyAll();
        }
    }

    /**
     * This node's active sequencer of {@code stream}, waiting up to the sequencer wait for a takeover under way; as
     * soon as the sequencer group's coordinator says that another node holds the stream (asked every 250 ms while
     * this node has no active sequencer of it), {@link NoSequencerException} naming that node, so that the request is
     * forwarded there rather than held for the whole wait (a stream handed over in a rebalance, a node back from a
     * partition whose stream the group gave away).
     */
    private Sequencer activeSequencer(String stream) {
        if (closed) {
            throw new LogUnavailableException("the log is closed");
        }
        if (membership == null) {
            throw new NoSequencerException(stream, holder(stream).map(url -> "stream " + stream + " is sequenced by "
                    + url + "; this node (" + kafka.nodeUrl() + ", --role warehouse) sequences no stream")
                    .orElse("no node sequences stream " + stream + " right now, and this node (" + kafka.nodeUrl()
                            + ", --role warehouse) sequences no stream"), 1);
        }
        long started = System.nanoTime();
        long deadline = started + kafka.sequencerWait().toNanos();
        long nextHolderLook = started + HOLDER_LOOK_NANOS;
        while (true) {
            synchronized (sequencerChanges) {
                Sequencer sequencer = sequencers.get(stream);
                if (sequencer != null && sequencer.state() == Sequencer.State.ACTIVE) {
                    return sequencer;
                }
                long remaining = deadline - System.nanoTime();
                if (!closed && sequencer != null && sequencer.stall() != null) {
                    throw new LogUnavailableException(sequencer.stall()); // the cluster does not answer it
                }
                if (remaining <= 0 && !closed && sequencer != null && sequencer.state() == Sequencer.State.TAKING_OVER
                        && sequencer.problem() != null) {
                    // This node holds the stream but cannot write it: the cluster did not commit (too few in-sync
                    // replicas, brokers gone), and the sequencer keeps trying to take the stream over again.
                    throw new LogUnavailableException(sequencer.problem());
                }
                if (remaining <= 0 || closed) {
                    Optional<String> holder = closed ? Optional.empty() : holder(stream);
                    throw new NoSequencerException(stream, holder.map(url -> "stream " + stream + " is sequenced by "
                            + url + ", not by this node (" + kafka.nodeUrl() + ")")
                            .orElse("no node sequences stream " + stream + " right now (a takeover is under way)"),
                            1);
                }
                try {
                    sequencerChanges.wait(Math.max(1, Math.min(100, remaining / 1_000_000)));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new LogUnavailableException("interrupted while waiting for the sequencer of " + stream, e);
                }
            }
            if (System.nanoTime() >= nextHolderLook) {
                // Outside the lock: the coordinator may take its time to answer.
                Optional<String> holder = holder(stream);
                if (holder.isPresent() && !holder.get().equals(kafka.nodeUrl())) { // not this node's, just activated
                    throw new NoSequencerException(stream, "stream " + stream + " is sequenced by " + holder.get()
                            + ", not by this node (" + kafka.nodeUrl() + ")", 1);
                }
                nextHolderLook = System.nanoTime() + HOLDER_LOOK_NANOS;
            }
        }
    }

    @Override
    public Optional<String> holder(String stream) {
        Sequencer local = sequencers.get(stream);
        if (local != null && local.state() == Sequencer.State.ACTIVE) {
            return Optional.of(kafka.nodeUrl());
        }
        if (System.nanoTime() - holdersReadAt > HOLDER_CACHE_NANOS) {
            holders = readHolders();
            holdersReadAt = System.nanoTime();
        }
        String url = holders.get(topics.events(stream).topic());
        return url == null || url.equals(kafka.nodeUrl()) ? Optional.empty() : Optional.of(url);
    }

    /** The members of the sequencer group, by their client ids (the nodes' URLs); empty when none answers. */
    List<String> sequencerGroupMembers() {
        return topics.sequencerGroupMembers();
    }

    /** The URL this node advertises, as other nodes know it. */
    String nodeUrl() {
        return kafka.nodeUrl();
    }

    /** Which member of the sequencer group holds each stream topic, by its client id (the node's URL). */
    private Map<String, String> readHolders() {
        try {
            ConsumerGroupDescription group = admin.describeConsumerGroups(List.of(topics.sequencerGroup()),
                    new DescribeConsumerGroupsOptions().timeoutMs(2_000)).all().get(2, TimeUnit.SECONDS)
                    .get(topics.sequencerGroup());
            Map<String, String> byTopic = new TreeMap<>();
            for (MemberDescription member : group.members()) {
                member.assignment().topicPartitions().forEach(partition ->
                        byTopic.put(partition.topic(), member.clientId()));
            }
            return byTopic;
        } catch (ExecutionException | TimeoutException | KafkaException e) {
            return Map.of();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Map.of();
        }
    }

    // ================================================================== EventLog

    @Override
    public CompletableFuture<AppendResult> append(AppendRequest request) {
        try {
            registeredView(request.stream());
            return activeSequencer(request.stream()).append(request);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>Here each record's value is offered to {@code allowance} as the read comes to it, before the entry is built:
     * what a page holds unasked is the one fetch the reader's consumer has in hand (Kafka returns at most
     * {@code max.partition.fetch.bytes} of a partition at a time, or one record batch larger than that), whatever the
     * page's size.
     */
    @Override
    public List<LogEntry> read(String stream, long afterOffset, int limit, long maxBytes,
            PayloadAllowance allowance) {
        StreamView view = views.get(stream);
        if (view == null || limit <= 0) {
            return List.of();
        }
        long head = view.headOffset();
        long from = Math.max(afterOffset + 1, view.earliest());
        return from > head ? List.of() : entries(view, from, Math.min(head, from + limit - 1), maxBytes, allowance);
    }

    @Override
    public List<LogEntry> read(String stream, long afterOffset, int limit, long maxBytes, Duration wait)
            throws InterruptedException {
        StreamView view = views.get(stream);
        if (view == null || limit <= 0) {
            return List.of();
        }
        long deadline = System.nanoTime() + wait.toNanos();
        while (true) {
            long head = view.headOffset();
            long from = Math.max(afterOffset + 1, view.earliest());
            if (from <= head) {
                return entries(view, from, Math.min(head, from + limit - 1), maxBytes, PayloadAllowance.UNLIMITED);
            }
            long remaining = deadline - System.nanoTime();
            if (remaining <= 0 || !view.awaitHeadAbove(Math.max(afterOffset, from - 1), remaining)) {
                return List.of();
            }
        }
    }

    /**
     * The entries from {@code from} through {@code through}, ending with the one whose payload brings their total to
     * {@code maxBytes}, or before the first whose payload {@code allowance} refuses.
     */
    private List<LogEntry> entries(StreamView view, long from, long through, long maxBytes,
            PayloadAllowance allowance) {
        List<LogEntry> entries = new ArrayList<>();
        long[] bytes = {0};
        long[] last = {0, 0};
        try {
            readers.scan(topics.events(view.name), view.readFrom(from), view.readEnd(through), ANSWER_PATIENCE,
                    record -> {
                        LogEntry entry = Codec.entry(view.name, record);
                        long offset = entry.offset();
                        if (offset >= from && offset <= through) {
                            long length = record.value() == null ? 0 : record.value().length;
                            if (!allowance.admit(length)) {
                                return false;
                            }
                            entries.add(entry);
                            bytes[0] += length;
                            last[0] = offset;
                            last[1] = record.offset();
                        }
                        // Ends with the record whose value brings the total to maxBytes.
                        return offset < through && bytes[0] < maxBytes;
                    });
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e); // the visitor throws none
        }
        if (last[0] > 0) {
            view.learn(last[0], last[1]);
        }
        return entries;
    }

    /**
     * Runs the replay on the stream's sequencer: its events are appended as one publish request and its entries
     * marked replayed on {@code _state}, in one Kafka transaction (see {@link Sequencer}).
     */
    @Override
    public CompletableFuture<ReplayResult> replay(ReplayRequest request) {
        try {
            registeredView(request.stream());
            return activeSequencer(request.stream()).replay(request);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Not yet: a partition's sequencer cannot mark partition 0's quarantine in its transaction. */
    @Override
    public boolean replaysAcrossPartitions() {
        return false;
    }

    @Override
    public List<QuarantineEntry> replayedBy(String stream, String requestId, int limit) {
        StreamView view = views.get(stream);
        if (view == null || limit <= 0) {
            return List.of();
        }
        List<Long> seqs = view.replayedBy(requestId, limit);
        if (seqs.isEmpty()) {
            return List.of();
        }
        Set<Long> wanted = Set.copyOf(seqs);
        long last = seqs.get(seqs.size() - 1);
        return quarantined(view, seqs.get(0), last, Long.MAX_VALUE, wanted::contains, PayloadAllowance.UNLIMITED);
    }

    @Override
    public List<QuarantineEntry> readQuarantine(String stream, long afterSeq, int limit, long maxBytes) {
        return readQuarantine(stream, afterSeq, limit, maxBytes, PayloadAllowance.UNLIMITED);
    }

    /** {@inheritDoc} Each value is offered to {@code allowance} as the read comes to it, as {@link #read} does. */
    @Override
    public List<QuarantineEntry> readQuarantine(String stream, long afterSeq, int limit, long maxBytes,
            PayloadAllowance allowance) {
        StreamView view = views.get(stream);
        if (view == null || limit <= 0) {
            return List.of();
        }
        long head = view.quarantineHeadSeq();
        long from = afterSeq + 1;
        if (from > head) {
            return List.of();
        }
        long through = Math.min(head, from + limit - 1);
        return quarantined(view, from, through, maxBytes, seq -> true, allowance);
    }

    /**
     * The quarantined entries from {@code from} through {@code through} that {@code wanted} takes, read forward from
     * the nearest position the view knows, up to and including the one whose payload brings the total to maxBytes,
     * or before the first whose payload {@code allowance} refuses.
     */
    private List<QuarantineEntry> quarantined(StreamView view, long from, long through, long maxBytes,
            java.util.function.LongPredicate wanted, PayloadAllowance allowance) {
        List<QuarantineEntry> entries = new ArrayList<>();
        long[] bytes = {0};
        long[] last = {0, 0};
        try {
            readers.scan(topics.quarantine(view.name), view.quarantineReadFrom(from), view.quarantineReadEnd(through),
                    ANSWER_PATIENCE, record -> {
                        long seq = Codec.longHeader(record.headers(), Codec.SEQ);
                        if (seq >= from && seq <= through && wanted.test(seq)) {
                            long length = record.value() == null ? 0 : record.value().length;
                            if (!allowance.admit(length)) {
                                return false;
                            }
                            entries.add(Codec.quarantined(view.name, record, replayOf(view, seq)));
                            bytes[0] += length;
                            last[0] = seq;
                            last[1] = record.offset();
                        }
                        return seq < through && bytes[0] < maxBytes;
                    });
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e); // the visitor throws none
        }
        if (last[0] > 0) {
            view.learnQuarantine(last[0], last[1]);
        }
        return entries;
    }

    private static QuarantineEntry.Replay replayOf(StreamView view, long seq) {
        Codec.ReplayMark mark = view.replayOf(seq);
        return mark == null ? null : new QuarantineEntry.Replay(mark.offset(), mark.requestId(), mark.atMicros());
    }

    @Override
    public void addAppendListener(AppendListener listener) {
        listeners.add(listener);
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

    @Override
    public List<LogEntry> latest(String stream, int limit, long maxBytes) {
        return latest(stream, limit, maxBytes, PayloadAllowance.UNLIMITED);
    }

    /** {@inheritDoc} Each value is offered to {@code allowance} as the read comes to it, as {@link #read} does. */
    @Override
    public List<LogEntry> latest(String stream, int limit, long maxBytes, PayloadAllowance allowance) {
        StreamView view = views.get(stream);
        if (view == null || limit <= 0) {
            return List.of();
        }
        long head = view.headOffset();
        long from = Math.max(view.earliest(), head - limit + 1);
        // Newest first, one event a read: a record's size is known only once it is fetched, and the newest must be
        // the ones kept when the budget ends the list.
        List<LogEntry> entries = new ArrayList<>();
        long bytes = 0;
        boolean[] refused = {false};
        PayloadAllowance asked = length -> {
            boolean admitted = allowance.admit(length);
            refused[0] = !admitted;
            return admitted;
        };
        for (long offset = head; offset >= from && bytes < maxBytes && !refused[0]; offset--) {
            for (LogEntry entry : entries(view, offset, offset, Long.MAX_VALUE, asked)) {
                entries.add(entry);
                bytes += entry.payload().length;
            }
        }
        return entries;
    }

    @Override
    public java.util.Set<String> knownStreams() {
        return topics.streams();
    }

    @Override
    public Map<String, StreamHead> heads() {
        Map<String, StreamHead> heads = new TreeMap<>();
        for (String stream : registered) {
            heads.put(stream, views.get(stream).head());
        }
        return heads;
    }

    @Override
    public long trim(String stream, long throughOffset) {
        StreamView view = registeredView(stream);
        Sequencer sequencer = activeSequencer(stream);
        return await(sequencer.control(now -> {
            long through = Math.min(throughOffset, view.headOffset());
            long trimmed = view.trimmedThrough();
            if (through <= trimmed) {
                return Sequencer.Decision.answerOnly(0L);
            }
            // At or before the first kept event's position (the records between go at the next trim).
            long before = view.readFrom(through + 1);
            ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(topics.state().topic(), 0,
                    Codec.text(Codec.trimKey(stream)), Codec.json(new Codec.TrimPoint(stream, through)));
            return new Sequencer.Decision<>(through - trimmed, List.of(record), position -> {
                view.applyTrim(through);
                sequencer.trimmed(through);
                try {
                    topics.deleteBefore(topics.events(stream), before);
                } catch (LogUnavailableException e) {
                    // The trim point is durable; the records go at the next trim or by hand.
                    LOG.log(Level.WARNING, "deleting the trimmed records of " + stream + " failed", e);
                }
            });
        }), "trim " + stream);
    }

    @Override
    public long firstOffsetSince(String stream, long epochMicros) {
        StreamView view = views.get(stream);
        return view == null ? 1 : view.firstOffsetSince(epochMicros);
    }

    @Override
    public long offsetOfKey(String stream, String key) {
        StreamView view = views.get(stream);
        if (view == null || !view.keyed()) {
            return 0;
        }
        // Only the node that sequences the stream holds its keys; elsewhere this is no_sequencer, naming the holder.
        return await(activeSequencer(stream).offsetOfKey(key), "look up a key of " + stream);
    }

    @Override
    public Optional<DedupIndex.Stats> dedupStats(String stream) {
        Sequencer sequencer = sequencers.get(stream);
        return sequencer == null ? Optional.empty() : sequencer.dedupStats();
    }

    @Override
    public Health health() {
        if (closed) {
            return new Health(false, "the log is closed");
        }
        String silence = silence();
        if (silence != null) {
            return new Health(false, silence);
        }
        for (Sequencer sequencer : sequencers.values()) {
            String stall = sequencer.stall();
            if (stall != null) {
                return new Health(false, stall);
            }
            if (sequencer.state() != Sequencer.State.ACTIVE && sequencer.problem() != null) {
                return new Health(false, sequencer.problem());
            }
        }
        return Health.ok();
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

    // ================================================================== ConsumerGroups

    @Override
    public Leases.LeaseResult lease(String stream, String group, String owner, Duration ttl, Leases.Actor actor) {
        StreamView view = registeredView(stream);
        return await(activeSequencer(stream).control(now -> write(view,
                GroupRules.lease(stream, group, view.groupState(group), owner, ttl, actor, now))),
                "lease " + stream + "/" + group);
    }

    @Override
    public Leases.CommitResult commit(String stream, String group, Leases.Token token, long offset,
            Leases.Actor actor) {
        StreamView view = registeredView(stream);
        return await(activeSequencer(stream).control(now -> write(view,
                GroupRules.commit(view.groupState(group), token, offset, view.headOffset(), actor, now))),
                "commit " + stream + "/" + group);
    }

    @Override
    public Leases.ReleaseResult release(String stream, String group, Leases.Token token, Leases.Actor actor) {
        StreamView view = registeredView(stream);
        return await(activeSequencer(stream).control(now -> write(view,
                GroupRules.release(view.groupState(group), token, actor, now))), "release " + stream + "/" + group);
    }

    @Override
    public Leases.Group grant(String stream, String group, String keyId) {
        StreamView view = registeredView(stream);
        return await(activeSequencer(stream).control(now -> write(view,
                GroupRules.grant(stream, group, view.groupState(group), keyId))), "grant " + stream + "/" + group);
    }

    /**
     * A decision that stores the group's new state on {@code _state} and applies it to the view once committed;
     * only an answer when nothing changes.
     */
    private <T> Sequencer.Decision<T> write(StreamView view, GroupRules.Decision<T> decision) {
        if (decision.next() == null) {
            return Sequencer.Decision.answerOnly(decision.answer());
        }
        Codec.GroupState state = Codec.GroupState.of(decision.next());
        ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(topics.state().topic(), 0,
                Codec.text(Codec.groupKey(state.stream(), state.group())), Codec.json(state));
        return new Sequencer.Decision<>(decision.answer(), List.of(record),
                position -> view.applyGroup(state, position), () -> state.equals(view.storedGroup(state.group())));
    }

    @Override
    public List<Leases.Group> groups(String stream) {
        StreamView view = views.get(stream);
        return view == null ? List.of() : view.groups();
    }

    // ================================================================== PublishRecords

    @Override
    public PublishRecord.Page publishes(PublishRecord.Filter filter) {
        return publishes.page(filter);
    }

    @Override
    public List<String> traceIds(String stream, long afterOffset, long throughOffset) {
        return publishes.traceIds(stream, afterOffset, throughOffset);
    }

    @Override
    public long trimPublishes(long beforeMicros) {
        long removed = 0;
        while (true) {
            List<String> keys = publishes.keysReceivedBefore(beforeMicros, TRIM_KEYS_PER_ROUND);
            if (keys.isEmpty()) {
                return removed;
            }
            KafkaProducer<byte[], byte[]> producer = plainProducer();
            try {
                List<java.util.concurrent.Future<?>> sends = new ArrayList<>();
                for (String key : keys) {
                    sends.add(producer.send(new ProducerRecord<>(topics.publishes().topic(), 0, Codec.text(key),
                            null)));
                }
                for (java.util.concurrent.Future<?> send : sends) {
                    send.get(OPERATION_SECONDS, TimeUnit.SECONDS);
                }
            } catch (ExecutionException | TimeoutException | KafkaException e) {
                throw new LogUnavailableException("cannot remove old publish records: " + e.getMessage(), e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new LogUnavailableException("interrupted while removing old publish records", e);
            }
            keys.forEach(publishes::remove);
            removed += keys.size();
        }
    }

    private KafkaProducer<byte[], byte[]> plainProducer() {
        KafkaProducer<byte[], byte[]> producer = plain;
        if (producer != null) {
            return producer;
        }
        synchronized (this) {
            if (plain == null) {
                Properties properties = new Properties();
                properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrap());
                properties.put(ProducerConfig.CLIENT_ID_CONFIG, kafka.topicPrefix() + "plain");
                properties.put(ProducerConfig.ACKS_CONFIG, "all");
                properties.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
                properties.put(ProducerConfig.LINGER_MS_CONFIG, "0");
                // A sequencer's thread sends through it: never block it for long on a cluster that does not answer.
                properties.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "5000");
                properties.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
                properties.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "10000");
                plain = new KafkaProducer<>(properties, new ByteArraySerializer(), new ByteArraySerializer());
            }
            return plain;
        }
    }

    // ================================================================== closing

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (membership != null) {
            membership.close();
        }
        for (Sequencer sequencer : sequencers.values()) {
            sequencer.stop();
        }
        sequencers.clear();
        acknowledger.shutdown(); // answers already committed are still given
        try {
            acknowledger.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        sequencersChanged();
        if (watchdog != null) {
            watchdog.shutdownNow();
        }
        if (standby != null) {
            standby.shutdownNow();
        }
        indexes.close(); // a standby run under way stops at its next group of keys
        if (standby != null) {
            try {
                standby.awaitTermination(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        tailer.close();
        readers.close();
        publishes.close(); // after the tailer, which applies what it reads to it
        if (localKeys != null) {
            localKeys.close(); // the same
        }
        if (plain != null) {
            plain.close(Duration.ofSeconds(5));
        }
        admin.close(Duration.ofSeconds(5));
    }

    private static <T> T await(CompletableFuture<T> future, String what) {
        try {
            return future.get(OPERATION_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new LogUnavailableException("cannot " + what + ": " + e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            throw new LogUnavailableException("the Kafka log did not " + what + " within " + OPERATION_SECONDS
                    + " s", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LogUnavailableException("interrupted while trying to " + what, e);
        }
    }
}
