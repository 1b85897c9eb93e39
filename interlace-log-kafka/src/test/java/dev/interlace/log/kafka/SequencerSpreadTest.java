package dev.interlace.log.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.log.kafka.testing.KafkaCluster;
import dev.interlace.runtime.dedup.DedupIndex;
import dev.interlace.runtime.log.LogSettings;
import dev.interlace.runtime.stream.StreamDescriptor;
import dev.interlace.runtime.testing.Eventually;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sequencer group spreads a stream's partitions evenly over the live nodes, whatever other streams they hold: a
 * node that held all of {@code orders}' four partitions before another node joined, and then the unpartitioned
 * streams too, shares them; with a third node each holds one or two of them; when one leaves, its partitions go to the
 * two others, two each. (Balancing only the number of log streams each node holds left all four on the first node:
 * four of {@code orders} there, the four other streams on the second.) A node names as holder the one the group
 * assigns a partition to.
 */
class SequencerSpreadTest {

    private static final StreamDescriptor ORDERS = keyed("orders", 4);
    private static final List<StreamDescriptor> OTHERS = List.of(keyed("payments", 1), keyed("refunds", 1),
            keyed("returns", 1), keyed("shipments", 1));

    @TempDir
    Path directory;

    private final String prefix = "spread-" + UUID.randomUUID().toString().substring(0, 8) + ".";

    @Test
    void eachNodeHoldsItsShareOfAStreamsPartitionsAndTheSharesOfANodeThatLeavesGoToTheOthers() {
        try (Nodes nodes = new Nodes()) {
            KafkaStreamLog first = nodes.add(open("first"));
            ORDERS.logStreams().forEach(first::register);
            KafkaStreamLog second = nodes.add(open("second"));
            OTHERS.forEach(second::register);
            List<KafkaStreamLog> two = List.of(first, second);
            awaitShares("the first node holds orders, the second the other streams", two, ORDERS, 4, 0);
            OTHERS.forEach(first::register);
            ORDERS.logStreams().forEach(second::register);
            awaitShares("two nodes share orders", two, ORDERS, 2, 2);
            for (StreamDescriptor other : OTHERS) {
                awaitHeld(two, other);
            }

            KafkaStreamLog third = nodes.add(open("third"));
            OTHERS.forEach(third::register);
            ORDERS.logStreams().forEach(third::register);
            List<KafkaStreamLog> three = List.of(first, second, third);
            Eventually.until("three nodes share orders, one or two partitions each, and 2 or 3 log streams each",
                    Duration.ofSeconds(90), () -> {
                        Map<String, Integer> shares = shares(three, ORDERS.logStreams());
                        Map<String, Integer> totals = shares(three, all());
                        return shares.size() == 3 && shares.values().stream().allMatch(n -> n >= 1 && n <= 2)
                                && sum(shares) == 4 && totals.size() == 3 && sum(totals) == 8
                                && totals.values().stream().allMatch(n -> n >= 2 && n <= 3);
                    });

            second.close();
            awaitShares("the second node left: the two others hold two partitions of orders each",
                    List.of(first, third), ORDERS, 2, 2);
        }
    }

    /**
     * A node names as its own only the partitions the group assigns it: one whose sequencers nothing fences and that
     * keeps them when the group takes them away (the negative controls' node, {@link Unfenced}) names the node the
     * group gave them to, so that a test sees the partitions shared whichever node it asks.
     */
    @Test
    void aNodeNamesTheNewHolderOfAPartitionTheGroupTookAwayEvenIfItsSequencerStillRuns() {
        try (Nodes nodes = new Nodes()) {
            KafkaStreamLog first = nodes.add(open("first", Unfenced.NONE));
            ORDERS.logStreams().forEach(first::register);
            awaitShares("the first node holds orders", List.of(first), ORDERS, 4);
            KafkaStreamLog second = nodes.add(open("second", Unfenced.NONE));
            ORDERS.logStreams().forEach(second::register);
            Eventually.until("the first node names the second as the holder of two partitions",
                    Duration.ofSeconds(90), () -> ORDERS.logStreams().stream().filter(logStream ->
                            first.holder(logStream.name()).equals(java.util.Optional.of(second.nodeUrl()))).count()
                            == 2);
        }
    }

    /** Waits until each of {@code nodes}, in order, holds the given numbers of {@code stream}'s partitions. */
    private static void awaitShares(String what, List<KafkaStreamLog> nodes, StreamDescriptor stream,
            int... expected) {
        Eventually.until(what, Duration.ofSeconds(90), () -> {
            Map<String, Integer> shares = shares(nodes, stream.logStreams());
            for (int i = 0; i < nodes.size(); i++) {
                if (shares.getOrDefault(nodes.get(i).nodeUrl(), 0) != expected[i]) {
                    return false;
                }
            }
            return sum(shares) == stream.partitions();
        });
    }

    private static void awaitHeld(List<KafkaStreamLog> nodes, StreamDescriptor stream) {
        Eventually.until(stream.name() + " is held", Duration.ofSeconds(90),
                () -> sum(shares(nodes, stream.logStreams())) == 1);
    }

    /** How many of {@code logStreams} each node sequences now (its own sequencer active), by node URL. */
    private static Map<String, Integer> shares(List<KafkaStreamLog> nodes, List<StreamDescriptor> logStreams) {
        Map<String, Integer> shares = new TreeMap<>();
        for (KafkaStreamLog node : nodes) {
            for (StreamDescriptor logStream : logStreams) {
                if (node.holder(logStream.name()).filter(node.nodeUrl()::equals).isPresent()) {
                    shares.merge(node.nodeUrl(), 1, Integer::sum);
                }
            }
        }
        return shares;
    }

    private static int sum(Map<String, Integer> shares) {
        return shares.values().stream().mapToInt(Integer::intValue).sum();
    }

    private static List<StreamDescriptor> all() {
        List<StreamDescriptor> all = new ArrayList<>(ORDERS.logStreams());
        all.addAll(OTHERS);
        return all;
    }

    private KafkaStreamLog open(String node) {
        return new KafkaStreamLog(settings(node), LogSettings.defaults(100_000).withDedup(new DedupIndex.Settings(
                1_000, 2)), KeyedOrders.EVERYTHING_FLUSHED, Clock.systemUTC(), Duration.ofSeconds(1));
    }

    private KafkaStreamLog open(String node, Fencing fencing) {
        return new KafkaStreamLog(settings(node), LogSettings.defaults(100_000), KeyedOrders.EVERYTHING_FLUSHED,
                Clock.systemUTC(), fencing);
    }

    private KafkaLogSettings settings(String node) {
        return new KafkaLogSettings(KafkaCluster.shared().bootstrap(), prefix, 1, 1, "http://" + node + ".test",
                Duration.ofSeconds(6), Duration.ofSeconds(20), directory.resolve(node));
    }

    private static StreamDescriptor keyed(String stream, int partitions) {
        return KeyedOrders.keyed(stream, partitions, SequencerSpreadTest.class);
    }
}
