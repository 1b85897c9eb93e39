package dev.interlace.log.kafka;

import dev.interlace.runtime.dedup.DedupIndex;
import dev.interlace.runtime.log.LogUnavailableException;
import dev.interlace.runtime.log.NoSequencerException;
import dev.interlace.runtime.health.ComponentHealth;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;

/**
 * Where each stream is sequenced: this node's {@link Sequencer}s, started and stopped as the sequencer group
 * ({@link Membership}) assigns and revokes streams here, the stream a fenced sequencer left taken back, who holds a
 * stream this node does not, and the wait of a request for this node's sequencer of its stream.
 */
final class SequencerPlacement {

    private static final Logger LOG = Logger.getLogger(SequencerPlacement.class.getName());
    /** How long an operation on a stream's sequencer (a trim, a consumer group's change) may take. */
    static final long OPERATION_SECONDS = 30;
    private static final long HOLDER_CACHE_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
    /** How often a request waiting for this node's sequencer of its stream asks who holds the stream. */
    private static final long HOLDER_LOOK_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

    private final KafkaLogSettings kafka;
    private final Topics topics;
    private final StreamViews views;
    private final SequencerIndexes indexes;
    private final Map<String, Sequencer> sequencers = new ConcurrentHashMap<>();
    /** The streams the sequencer group assigns this node now (their partitions are this member's). */
    private final Set<String> assignedHere = ConcurrentHashMap.newKeySet();
    private final Object sequencerChanges = new Object();
    private volatile SequencerContext context;
    /** This node's membership of the sequencer group; null on a node that sequences nothing. */
    private volatile Membership membership;
    /** When this node becomes a candidate for each stream it follows (see {@link Candidacy}); null likewise. */
    private volatile Candidacy candidacy;
    private volatile Map<String, String> holders = Map.of();
    private volatile long holdersReadAt;
    private volatile boolean closed;

    SequencerPlacement(KafkaLogSettings kafka, Topics topics, StreamViews views, SequencerIndexes indexes) {
        this.kafka = kafka;
        this.topics = topics;
        this.views = views;
        this.indexes = indexes;
    }

    /**
     * Makes this node's sequencers with {@code context} from now on and, on a node that may sequence streams, joins
     * the sequencer group; its membership, or null on a node that sequences nothing.
     */
    Membership join(SequencerContext context) {
        this.context = context;
        if (kafka.sequences()) {
            membership = new Membership(kafka.bootstrap(), topics.sequencerGroup(), kafka.nodeUrl(),
                    kafka.sessionTimeout(), this::assigned, this::revoked);
            candidacy = new Candidacy(membership, indexes, topics, kafka.nodeUrl());
        }
        return membership;
    }

    /** A stream registered here, its events in {@code topic}: this node may become a candidate for it. */
    void offer(StreamView view, String topic) {
        if (candidacy != null) {
            candidacy.offer(view, topic);
        }
    }

    /** The streams this node follows but is no candidate for sequencing yet ({@link Candidacy}). */
    List<String> candidacyWaiting() {
        return candidacy == null ? List.of() : candidacy.waiting();
    }

    private void assigned(TopicPartition partition) {
        String stream = views.streamOf(partition.topic());
        if (stream == null || closed) {
            return;
        }
        assignedHere.add(stream);
        LOG.info("the sequencer group assigns stream " + stream + " to this node (" + kafka.nodeUrl() + ")");
        Sequencer sequencer = new Sequencer(views.view(stream), context);
        Sequencer previous = sequencers.put(stream, sequencer);
        if (previous != null) {
            previous.stop();
        }
        sequencer.start();
    }

    private void revoked(TopicPartition partition) {
        String stream = views.streamOf(partition.topic());
        if (stream == null) {
            return;
        }
        assignedHere.remove(stream);
        LOG.info("the sequencer group takes stream " + stream + " away from this node (" + kafka.nodeUrl() + ")");
        context.fencing().revoked(stream, () -> {
            Sequencer sequencer = sequencers.remove(stream);
            if (sequencer != null) {
                sequencer.stop();
            }
            changed();
        });
    }

    /**
     * The watchdog's round: reports a tailer that died, lets streams this node caught up with make it a candidate
     * ({@link Candidacy#check}), and looks at this node's sequencers: reports one that died or whose sealer fails,
     * answers what waits on one the cluster does not answer ({@link Sequencer#checkStall}), and takes back a stream
     * whose sequencer was fenced while the group still assigns it here. A legitimate new holder gets the stream from
     * the group, which revokes it here first (cooperative rebalancing); a fence without a revocation within the
     * session timeout came from a node the group does not assign it to (one cut off from the group, or gone since),
     * and without this the stream would have no writer until the next rebalance. What fails is reported to
     * {@code components}, the health the rounds report to.
     */
    void watch(ComponentHealth components) {
        RuntimeException tailerFailure = context.tailer().failure();
        if (tailerFailure != null && !closed) {
            components.failed(ComponentHealth.Component.KAFKA_TAILER, null, tailerFailure, ComponentHealth.Fate.DEAD);
        }
        try {
            candidacy.check();
            watchSequencers(components);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "the Kafka log's watchdog round failed", e);
        }
    }

    private void watchSequencers(ComponentHealth components) {
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
                Sequencer again = new Sequencer(views.view(entry.getKey()), context, true);
                if (sequencers.replace(entry.getKey(), sequencer, again)) {
                    LOG.warning("the sequencer of stream " + entry.getKey() + " was fenced "
                            + TimeUnit.NANOSECONDS.toMillis(fenced) + " ms ago by a holder the sequencer group"
                            + " does not know, and the group still assigns the stream to this node: taking it back");
                    again.start();
                    changed();
                }
            }
        }
    }

    /**
     * One look at every keyed stream this node follows without sequencing it (see {@link SequencerIndexes#standby}),
     * including one whose registration is still catching up with its events: a node that never followed a stream
     * builds its segments from the key blocks while its tailer reads the events, so that its takeover reads only the
     * blocks written since, instead of building every segment after the catch-up.
     */
    void standbyRound() {
        for (StreamView view : views.all()) {
            if (closed) {
                return;
            }
            // Its topics exist once the tailer follows them (a route).
            if (view.keyed() && !sequencers.containsKey(view.name)
                    && views.streamOf(topics.events(view.name).topic()) != null) {
                indexes.standby(view, new KeyBlockTopic(view, topics, context.readers()));
            }
        }
    }

    /**
     * Why this node must not take {@code stream} over now, or null (see {@link TakeoverGuard}): the group
     * must assign the stream here, and its coordinator must have answered this member within the session timeout
     * (a member cut off from it keeps its partitions until it hears from it again, long after the group gave them
     * to another node); with {@code confirm}, the coordinator must also say so now.
     */
    String takeoverRefusal(String stream, boolean confirm) {
        Membership member = membership;
        if (closed || member == null || !assignedHere.contains(stream)) {
            return "the sequencer group does not assign stream " + stream + " to this node (" + kafka.nodeUrl() + ")";
        }
        if (!member.live()) {
            return "the sequencer group's coordinator has not answered this node for "
                    + TimeUnit.NANOSECONDS.toSeconds(member.silentNanos()) + " s (cut off from the brokers, or"
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
            group = topics.describeSequencerGroup(3);
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

    /** Wakes the requests waiting for a sequencer: one started, stopped or changed state. */
    void changed() {
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
    Sequencer active(String stream) {
        return serving(stream, true);
    }

    /**
     * Whether this node sequences {@code stream} right now, as {@link #holder} answers it: the group assigns the stream
     * here and its sequencer is active. Never waits.
     */
    boolean holdsHere(String stream) {
        Sequencer local = sequencers.get(stream);
        return local != null && local.state() == Sequencer.State.ACTIVE && assignedHere.contains(stream);
    }

    /** This node's sequencer of {@code stream} if it is active right now; null without waiting otherwise. */
    Sequencer activeNow(String stream) {
        if (closed || membership == null) {
            return null;
        }
        Sequencer sequencer = sequencers.get(stream);
        return sequencer != null && sequencer.state() == Sequencer.State.ACTIVE ? sequencer : null;
    }

    /**
     * As {@link #active}; without {@code readsKeys}, also a sequencer still opening its index (which serves the
     * tasks that read no keys: a flusher's lease and commits).
     */
    Sequencer serving(String stream, boolean readsKeys) {
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
                if (sequencer != null && (sequencer.state() == Sequencer.State.ACTIVE
                        || !readsKeys && sequencer.state() == Sequencer.State.OPENING_INDEX)) {
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

    /**
     * Runs {@code operation} on this node's active sequencer of {@code stream} (see {@link #active}) and waits for its
     * answer; {@code what} says what it does, for the error of one that failed or did not answer in time.
     */
    <T> T await(String stream, String what, Function<Sequencer, CompletableFuture<T>> operation) {
        return await(stream, what, true, operation);
    }

    /** As {@link #await}; without {@code readsKeys}, on a sequencer still opening its index too ({@link #serving}). */
    <T> T await(String stream, String what, boolean readsKeys, Function<Sequencer, CompletableFuture<T>> operation) {
        CompletableFuture<T> future = operation.apply(serving(stream, readsKeys));
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

    /**
     * The URL of the node that sequences {@code stream}: this node's while the group assigns the stream here and its
     * sequencer is active, else the member the group's coordinator said lately (a sequencer still active after the
     * group took its stream away is on its way out, or in a negative control one that nothing fences).
     */
    Optional<String> holder(String stream) {
        if (holdsHere(stream)) {
            return Optional.of(kafka.nodeUrl());
        }
        if (System.nanoTime() - holdersReadAt > HOLDER_CACHE_NANOS) {
            holders = readHolders();
            holdersReadAt = System.nanoTime();
        }
        String url = holders.get(topics.events(stream).topic());
        return url == null || url.equals(kafka.nodeUrl()) ? Optional.empty() : Optional.of(url);
    }

    /** Which member of the sequencer group holds each stream topic, by its client id (the node's URL). */
    private Map<String, String> readHolders() {
        ConsumerGroupDescription group = topics.sequencerGroupOrNull(2);
        Map<String, String> byTopic = new TreeMap<>();
        for (MemberDescription member : group == null ? List.<MemberDescription>of() : group.members()) {
            member.assignment().topicPartitions().forEach(partition ->
                    byTopic.put(partition.topic(), member.clientId()));
        }
        return byTopic;
    }

    /** Whether this node sequences {@code stream} (in any state). */
    boolean sequences(String stream) {
        return sequencers.containsKey(stream);
    }

    /** What keeps a sequencer of this node from writing (the cluster does not answer, a takeover fails), or null. */
    String problem() {
        for (Sequencer sequencer : sequencers.values()) {
            String stall = sequencer.stall();
            if (stall != null) {
                return stall;
            }
            if (sequencer.state() != Sequencer.State.ACTIVE && sequencer.problem() != null) {
                return sequencer.problem();
            }
        }
        return null;
    }

    Optional<DedupIndex.Stats> dedupStats(String stream) {
        Sequencer sequencer = sequencers.get(stream);
        return sequencer == null ? Optional.empty() : sequencer.dedupStats();
    }

    /** Leaves the sequencer group and stops every sequencer of this node; the waiting requests fail. */
    void close() {
        closed = true;
        if (membership != null) {
            membership.close();
        }
        for (Sequencer sequencer : sequencers.values()) {
            sequencer.stop();
        }
        sequencers.clear();
    }
}
