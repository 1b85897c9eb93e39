package dev.interlace.log.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupSubscription;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * The rounds of the sequencer group's assignor as the group runs them (each member reporting what the last round gave
 * it): a stream's partitions spread over the candidates, a partition that moves is taken from its holder one round and
 * given the next (the cooperative protocol), nothing moves once even, and a member that is no candidate gets nothing.
 */
class StreamSpreadAssignorTest {

    private static final List<String> ORDERS = List.of("p.orders", "p.orders__p1", "p.orders__p2", "p.orders__p3");
    private static final List<String> OTHERS = List.of("p.payments", "p.refunds", "p.returns", "p.shipments");

    private final StreamSpreadAssignor assignor = new StreamSpreadAssignor();
    private final Map<String, List<TopicPartition>> owned = new HashMap<>();
    private int generation;

    @Test
    void aStreamsPartitionsSpreadOverTheCandidatesMovingOnlyWhatEvensThemOut() {
        List<String> all = new ArrayList<>(ORDERS);
        all.addAll(OTHERS);
        // The first member held orders alone, the second the other streams alone; now both are candidates for all.
        owned.put("a", partitions(ORDERS));
        owned.put("b", partitions(OTHERS));
        Map<String, List<TopicPartition>> round = round(Map.of("a", all, "b", all));
        // Each gives up half of what it holds, and is given nothing the other still owns this round.
        assertThat(round.get("a")).isEqualTo(partitions(ORDERS.subList(0, 2)));
        assertThat(round.get("b")).hasSize(2).allMatch(partition -> OTHERS.contains(partition.topic()));
        round = round(Map.of("a", all, "b", all));
        assertThat(count(round.get("a"), ORDERS)).isEqualTo(2);
        assertThat(count(round.get("b"), ORDERS)).isEqualTo(2);
        assertThat(count(round.get("a"), OTHERS)).isEqualTo(2);
        Map<String, List<TopicPartition>> settled = round;
        assertThat(round(Map.of("a", all, "b", all))).as("even: nothing moves").isEqualTo(settled);

        // A third member that is a candidate for orders only gets one or two of them, no other stream.
        round = round(Map.of("a", all, "b", all, "c", ORDERS));
        round = round(Map.of("a", all, "b", all, "c", ORDERS));
        assertThat(count(round.get("c"), ORDERS)).isBetween(1, 2);
        assertThat(count(round.get("c"), OTHERS)).isZero();
        assertThat(count(round.get("a"), ORDERS) + count(round.get("b"), ORDERS)).isEqualTo(4 - count(round.get("c"),
                ORDERS));

        // The first member leaves: its partitions of orders go to b and c, two each.
        owned.remove("a");
        round = round(Map.of("b", all, "c", ORDERS));
        assertThat(count(round.get("b"), ORDERS)).isEqualTo(2);
        assertThat(count(round.get("c"), ORDERS)).isEqualTo(2);
        assertThat(count(round.get("b"), OTHERS)).isEqualTo(4);
    }

    /** One rebalance: each member subscribed to its topics and owning what the last round gave it. */
    private Map<String, List<TopicPartition>> round(Map<String, List<String>> subscriptions) {
        generation++;
        Map<String, Subscription> members = new HashMap<>();
        subscriptions.forEach((member, topics) -> members.put(member, new Subscription(topics, null,
                owned.getOrDefault(member, List.of()), generation - 1, Optional.empty())));
        Map<String, List<TopicPartition>> given = new HashMap<>();
        assignor.assign(cluster(), new GroupSubscription(members)).groupAssignment()
                .forEach((member, assignment) -> given.put(member, assignment.partitions().stream()
                        .sorted(java.util.Comparator.comparing(TopicPartition::topic)).toList()));
        owned.clear();
        owned.putAll(given);
        return given;
    }

    private static Cluster cluster() {
        Node node = new Node(0, "localhost", 9092);
        List<PartitionInfo> partitions = new ArrayList<>();
        for (String topic : ORDERS) {
            partitions.add(new PartitionInfo(topic, 0, node, new Node[] {node}, new Node[] {node}));
        }
        for (String topic : OTHERS) {
            partitions.add(new PartitionInfo(topic, 0, node, new Node[] {node}, new Node[] {node}));
        }
        return new Cluster("c", List.of(node), partitions, java.util.Set.of(), java.util.Set.of());
    }

    private static List<TopicPartition> partitions(List<String> topics) {
        return topics.stream().map(topic -> new TopicPartition(topic, 0)).toList();
    }

    private static int count(List<TopicPartition> held, List<String> topics) {
        return (int) held.stream().filter(partition -> topics.contains(partition.topic())).count();
    }
}
