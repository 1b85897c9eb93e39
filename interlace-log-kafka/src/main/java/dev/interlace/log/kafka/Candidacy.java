package dev.interlace.log.kafka;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.logging.Logger;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.GroupIdNotFoundException;

/**
 * When this node becomes a candidate for sequencing a stream it follows, i.e. subscribes to the stream's topic in the
 * sequencer group ({@link Membership}), which may then assign the stream here: at once when its deduplication
 * segments are close to the stream's head (a takeover reads only the last key blocks and serves within seconds), or
 * when no node holds the stream (availability first: the only candidate takes the stream however far behind it is).
 * A node far behind a stream another node holds waits until its standby runs ({@link SequencerIndexes#standby})
 * have caught up, so that adding a node never hands a live holder's stream to a node that would first build its index
 * from the whole window. Once a candidate, a node stays one: its standby keeps its segments up to date.
 *
 * <p>The group protocol assigns a topic only to members subscribed to it, so the group's assignor
 * ({@link StreamSpreadAssignor}) needs nothing more. "No node holds it" is the group's coordinator saying so twice, at
 * least {@link #UNHELD_CONFIRMATION_NANOS} apart (a cooperative rebalance that moves a stream leaves it unassigned
 * between its two rounds), or once when the group has no member at all; an unanswered question counts as held.
 */
final class Candidacy {

    private static final Logger LOG = Logger.getLogger(Candidacy.class.getName());
    static final long UNHELD_CONFIRMATION_NANOS = TimeUnit.SECONDS.toNanos(3);
    /** What {@link #heldTopics} says of a group without members. */
    private static final Set<String> NO_MEMBER = java.util.Collections.unmodifiableSet(new HashSet<>());

    private final Membership membership;
    private final SequencerIndexes indexes;
    private final Topics topics;
    private final String nodeUrl;
    /** The topics this node follows but is no candidate for yet, with their views. */
    private final Map<String, Waiting> waiting = new ConcurrentHashMap<>();

    private static final class Waiting {
        final StreamView view;
        /** When the coordinator first said that no member holds the topic (0: it did not, or not last time). */
        long unheldSince;

        Waiting(StreamView view) {
            this.view = view;
        }
    }

    /** Asks the coordinator of {@code topics}' sequencer group which streams its members hold. */
    Candidacy(Membership membership, SequencerIndexes indexes, Topics topics, String nodeUrl) {
        this.membership = membership;
        this.indexes = indexes;
        this.topics = topics;
        this.nodeUrl = nodeUrl;
    }

    /** A stream this node has caught up with (its events read): a candidate now, or once {@link #check} says so. */
    void offer(StreamView view, String topic) {
        if (indexes.caughtUp(view)) {
            membership.add(topic);
            return;
        }
        Waiting entry = new Waiting(view);
        Set<String> held = heldTopics();
        if (held == NO_MEMBER) {
            LOG.info(() -> "this node (" + nodeUrl + ") is a candidate for sequencing stream " + view.name + " at once,"
                    + " " + indexes.behind(view) + " offsets behind: the sequencer group has no member");
            membership.add(topic);
            return;
        }
        if (held != null && !held.contains(topic)) {
            entry.unheldSince = System.nanoTime();
        }
        waiting.put(topic, entry);
        LOG.info(() -> "this node (" + nodeUrl + ") becomes a candidate for sequencing stream " + view.name
                + " once its deduplication segments are caught up with the stream (" + indexes.behind(view)
                + " offsets behind), or at once if no node holds the stream");
    }

    /** One look at the streams waiting (the log's watchdog, every half second). */
    void check() {
        Set<String> held = null;
        boolean asked = false;
        for (Map.Entry<String, Waiting> entry : waiting.entrySet()) {
            Waiting candidate = entry.getValue();
            String why = null;
            boolean caughtUp = indexes.caughtUp(candidate.view);
            if (!caughtUp && !asked) {
                held = heldTopics(); // one question a round, whatever the number of streams waiting
                asked = true;
            }
            if (caughtUp) {
                why = "its deduplication segments are caught up";
            } else if (held == NO_MEMBER) {
                why = "the sequencer group has no member (it takes the stream over " + indexes.behind(candidate.view)
                        + " offsets behind)";
            } else if (held == null || held.contains(entry.getKey())) {
                candidate.unheldSince = 0;
            } else if (candidate.unheldSince == 0) {
                candidate.unheldSince = System.nanoTime();
            } else if (System.nanoTime() - candidate.unheldSince >= UNHELD_CONFIRMATION_NANOS) {
                why = "no node holds the stream (it takes it over " + indexes.behind(candidate.view)
                        + " offsets behind)";
            }
            if (why != null && waiting.remove(entry.getKey(), candidate)) {
                String reason = why;
                LOG.info(() -> "this node (" + nodeUrl + ") is now a candidate for sequencing stream "
                        + candidate.view.name + ": " + reason);
                membership.add(entry.getKey());
            }
        }
    }

    /** The streams this node follows but is no candidate for yet; for tests. */
    List<String> waiting() {
        return waiting.values().stream().map(entry -> entry.view.name).sorted().toList();
    }

    /**
     * The topics the group's coordinator says some member holds now; {@link #NO_MEMBER} when the group has no member
     * (no rebalance can be moving a stream: nobody holds any); null when it does not answer or the group is
     * rebalancing (then nothing counts as unheld).
     */
    private Set<String> heldTopics() {
        ConsumerGroupDescription description;
        try {
            description = topics.describeSequencerGroup(3);
        } catch (ExecutionException e) {
            // A group nobody ever joined (a new cluster) is not found: it has no member.
            return e.getCause() instanceof GroupIdNotFoundException ? NO_MEMBER : null;
        } catch (TimeoutException | KafkaException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
        GroupState state = description.groupState();
        if (state != GroupState.STABLE && state != GroupState.EMPTY && state != GroupState.DEAD) {
            return null; // a rebalance under way: ask again
        }
        if (description.members().isEmpty()) {
            return NO_MEMBER;
        }
        Set<String> held = new HashSet<>();
        for (MemberDescription member : description.members()) {
            member.assignment().topicPartitions().forEach(partition -> held.add(partition.topic()));
        }
        return held;
    }
}
