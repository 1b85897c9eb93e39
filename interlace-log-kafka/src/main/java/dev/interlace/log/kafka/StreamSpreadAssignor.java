package dev.interlace.log.kafka;

import dev.interlace.runtime.stream.StreamPartitions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.TopicPartition;

/**
 * The sequencer group's assignor: spreads each declared stream's partitions evenly over the members that are
 * candidates for them, then evens out the number of partitions each member holds over all streams, moving a
 * partition only when that is needed.
 *
 * <p>Every partition {@code p} of a stream is a log stream of its own, with its own events topic ({@link Topics});
 * Kafka's cooperative-sticky assignor balances only the number of topics each member holds, over every stream, so that
 * one stream's partitions could all land on one node while another node held the unpartitioned streams: the hot
 * stream would still be sequenced by one machine. Here a topic's stream is
 * {@link StreamPartitions#streamOf its log stream's declared stream} (the prefix stays on both), and:
 * <ol>
 *   <li>a member keeps what it holds (the {@code ownedPartitions} its subscription reports; a partition two members
 *       claim goes to the one of the later generation) as long as it is still a candidate for it (subscribed);</li>
 *   <li>stream by stream, each partition nobody holds goes to the candidate that holds the fewest of that stream's
 *       partitions, then the fewest partitions overall; then, while a candidate holds two more of the stream's
 *       partitions than another candidate for one of them, one moves;</li>
 *   <li>while a member holds two more partitions overall than another, one partition of a stream of which it holds
 *       more than the other moves (that keeps every stream even).</li>
 * </ol>
 * A member becomes a candidate for a log stream by subscribing to its topic ({@link Candidacy}: a node far behind a
 * keyed stream another node holds subscribes only once caught up), so the candidacy rules hold as before.
 *
 * <p>The protocol is cooperative, as the assignor it replaces: a partition that moves is first only taken from its
 * holder (not given to anyone in that round); the holder's revocation makes the group rebalance again, and the
 * partition, now held by nobody, goes where step 2 says. The member lists this assignor first and Kafka's
 * cooperative-sticky one second ({@link Membership}), so that a group whose older members know only the latter (a
 * rolling upgrade) still agrees on one. Public only because Kafka makes it by reflection from its class name.
 */
public final class StreamSpreadAssignor implements ConsumerPartitionAssignor {

    /** The name the members agree on in the group protocol. */
    static final String NAME = "interlace-stream-spread";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public List<RebalanceProtocol> supportedProtocols() {
        return List.of(RebalanceProtocol.COOPERATIVE);
    }

    @Override
    public GroupAssignment assign(Cluster metadata, GroupSubscription group) {
        Map<String, Subscription> members = new TreeMap<>(group.groupSubscription());
        Map<String, Integer> partitionCounts = new HashMap<>();
        members.values().forEach(member -> member.topics().forEach(topic -> {
            Integer count = metadata.partitionCountForTopic(topic);
            if (count != null) {
                partitionCounts.put(topic, count);
            }
        }));
        Spread spread = new Spread(members);
        spread.keepOwned(partitionCounts);
        Map<String, List<TopicPartition>> byStream = new TreeMap<>();
        partitionCounts.forEach((topic, count) -> {
            for (int p = 0; p < count; p++) {
                byStream.computeIfAbsent(StreamPartitions.streamOf(topic), stream -> new ArrayList<>())
                        .add(new TopicPartition(topic, p));
            }
        });
        byStream.values().forEach(partitions -> partitions.sort(ORDER));
        for (List<TopicPartition> partitions : byStream.values()) {
            spread.placeUnheld(partitions);
            spread.evenOut(partitions);
        }
        spread.evenOutTotals(byStream.values());
        Map<String, Assignment> assignments = new HashMap<>();
        members.keySet().forEach(member -> assignments.put(member, new Assignment(spread.given(member))));
        return new GroupAssignment(assignments);
    }

    private static final Comparator<TopicPartition> ORDER = Comparator.comparing(TopicPartition::topic)
            .thenComparingInt(TopicPartition::partition);

    /** One rebalance's computation: who holds what, from what the members own to where it goes. */
    private static final class Spread {

        private final Map<String, Subscription> members;
        /** The member that validly owns each partition from the last assignment. */
        private final Map<TopicPartition, String> owners = new HashMap<>();
        private final Map<String, Set<TopicPartition>> holds = new TreeMap<>();

        Spread(Map<String, Subscription> members) {
            this.members = members;
            members.keySet().forEach(member -> holds.put(member, new TreeSet<>(ORDER)));
        }

        /** Step 1: each member keeps what it owns and still subscribes to; a claim of a later generation wins. */
        void keepOwned(Map<String, Integer> partitionCounts) {
            Map<TopicPartition, Integer> generations = new HashMap<>();
            members.forEach((member, subscription) -> {
                int generation = subscription.generationId().orElse(-1);
                for (TopicPartition partition : subscription.ownedPartitions()) {
                    Integer count = partitionCounts.get(partition.topic());
                    if (count == null || partition.partition() >= count || !candidate(member, partition)) {
                        continue;
                    }
                    Integer other = generations.get(partition);
                    if (other == null || generation > other) {
                        owners.put(partition, member);
                        generations.put(partition, generation);
                    }
                }
            });
            owners.forEach((partition, member) -> holds.get(member).add(partition));
        }

        /** Step 2a: the stream's partitions nobody holds, each to the candidate holding fewest of them, then fewest. */
        void placeUnheld(List<TopicPartition> stream) {
            for (TopicPartition partition : stream) {
                if (holder(partition) != null) {
                    continue;
                }
                String to = null;
                for (String member : members.keySet()) {
                    if (candidate(member, partition) && (to == null || fewer(member, to, stream))) {
                        to = member;
                    }
                }
                if (to != null) {
                    holds.get(to).add(partition);
                }
            }
        }

        /** Step 2b: while a candidate holds two more of the stream's partitions than another, one moves. */
        void evenOut(List<TopicPartition> stream) {
            boolean moved = true;
            while (moved) {
                moved = false;
                for (int i = stream.size() - 1; i >= 0; i--) {
                    TopicPartition partition = stream.get(i);
                    String from = holder(partition);
                    if (from == null) {
                        continue; // no candidate for it
                    }
                    String to = null;
                    for (String member : members.keySet()) {
                        if (candidate(member, partition) && count(member, stream) + 1 < count(from, stream)
                                && (to == null || fewer(member, to, stream))) {
                            to = member;
                        }
                    }
                    if (to != null) {
                        move(partition, from, to);
                        moved = true;
                        break;
                    }
                }
            }
        }

        /**
         * Step 3: while a member holds two more partitions overall than another, a partition of a stream of which it
         * holds more than the other moves to the other.
         */
        void evenOutTotals(Iterable<List<TopicPartition>> streams) {
            boolean moved = true;
            while (moved) {
                moved = false;
                search:
                for (List<TopicPartition> stream : streams) {
                    for (int i = stream.size() - 1; i >= 0; i--) {
                        TopicPartition partition = stream.get(i);
                        String from = holder(partition);
                        if (from == null) {
                            continue;
                        }
                        for (String to : members.keySet()) {
                            if (candidate(to, partition) && holds.get(to).size() + 1 < holds.get(from).size()
                                    && count(to, stream) < count(from, stream)) {
                                move(partition, from, to);
                                moved = true;
                                break search;
                            }
                        }
                    }
                }
            }
        }

        /**
         * What {@code member} is given this round: what it holds, without a partition another member still owns (it
         * revokes it first; the next round gives it).
         */
        List<TopicPartition> given(String member) {
            List<TopicPartition> given = new ArrayList<>();
            for (TopicPartition partition : holds.get(member)) {
                String owner = owners.get(partition);
                if (owner == null || owner.equals(member)) {
                    given.add(partition);
                }
            }
            return given;
        }

        private boolean candidate(String member, TopicPartition partition) {
            return members.get(member).topics().contains(partition.topic());
        }

        private String holder(TopicPartition partition) {
            for (Map.Entry<String, Set<TopicPartition>> entry : holds.entrySet()) {
                if (entry.getValue().contains(partition)) {
                    return entry.getKey();
                }
            }
            return null;
        }

        private int count(String member, List<TopicPartition> stream) {
            Set<TopicPartition> held = holds.get(member);
            int count = 0;
            for (TopicPartition partition : stream) {
                count += held.contains(partition) ? 1 : 0;
            }
            return count;
        }

        /** Whether {@code a} holds fewer of the stream's partitions than {@code b}, or as many and fewer overall. */
        private boolean fewer(String a, String b, List<TopicPartition> stream) {
            int byStream = Integer.compare(count(a, stream), count(b, stream));
            return byStream < 0 || byStream == 0 && holds.get(a).size() < holds.get(b).size();
        }

        private void move(TopicPartition partition, String from, String to) {
            holds.get(from).remove(partition);
            holds.get(to).add(partition);
        }
    }
}
