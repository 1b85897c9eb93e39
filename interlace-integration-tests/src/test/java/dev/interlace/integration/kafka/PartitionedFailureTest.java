package dev.interlace.integration.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.interlace.integration.crash.Ledger;
import dev.interlace.integration.crash.Load;
import dev.interlace.log.kafka.testing.CutOff;
import dev.interlace.log.kafka.testing.KafkaCluster;
import dev.interlace.runtime.stream.StreamPartitions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A stream of {@value #PARTITIONS} partitions ({@code orders}, declared with {@code partitions = 4} by
 * {@link PartitionedServeMain}) on three nodes of {@code --role ingest} and three Kafka brokers (three replicas,
 * {@code min.insync.replicas=2}), under publish load, through one failure after the other: the SIGKILL of a node
 * holding some partitions, the SIGKILL of the broker leading partition 0's topic (restarted while the test goes on),
 * and a node cut off from every broker (each of its Kafka connections goes through a {@link CutOff} proxy the test
 * cuts) while clients and the other nodes still reach it over HTTP. The group moves only the partitions of the node
 * that failed; the cut-off node must never acknowledge anything after its ownership of a partition ended, before or
 * after the heal.
 *
 * <p>The oracle ({@link KafkaOracle#checkPartitioned}): every acknowledged key is stored exactly once, in the
 * partition its 200 named (the one its key hashes to) at the offset the 200 reported; each partition's offsets are
 * dense from 1 to its head; re-publishing every acknowledged key on every node answers it deduplicated in its
 * partition at its offset. The negative control cuts off a node whose sequencers fence nobody and keep their
 * partitions when the group takes them away ({@link PartitionedServeMain} {@code unfenced}): the oracle must catch it.
 */
class PartitionedFailureTest extends KafkaFailureTest {

    private static final int PARTITIONS = 4;
    private static final String[] REPLICATED = {"--kafka-replication-factor", "3", "--kafka-min-insync-replicas",
            "2"};
    /** Events acknowledged between one failure and the next: proof that publishing goes on, and little more. */
    private static final int EVENTS_PER_PHASE = 100;
    /** How long publishing may take to resume after a failure (a broker's SIGKILL usually takes 12-19 s). */
    private static final Duration RESUME_TIMEOUT = Duration.ofSeconds(120);
    /** How long the group may take to move a failed node's partitions to the others. */
    private static final Duration TAKEOVER_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration START_TIMEOUT = Duration.ofSeconds(180);

    private static final ObjectMapper JSON = new ObjectMapper();

    @RegisterExtension
    static final OwnBrokers BROKERS = OwnBrokers.restoredAfterEach(() -> KafkaCluster.startWithCutListeners(3, 1));

    private final HttpClient http = HttpClient.newHttpClient();

    PartitionedFailureTest() {
        super("parts", 38, BROKERS::cluster);
    }

    @Test
    void nothingAcknowledgedIsLostOrDuplicatedWhenANodeABrokerAndANodesLinkToTheBrokersFail() throws Exception {
        Nodes nodes = new Nodes(false);
        Ledger ledger = new Ledger();
        Load load = failover(nodes.urls(), ledger, "parts");
        try {
            load.awaitMore(EVENTS_PER_PHASE);
            phase(EVENTS_PER_PHASE + " events acknowledged; holders " + nodes.holders(nodes.first));

            // A node holding some partitions dies: only its partitions move, to the two others.
            ServeNode victim = nodes.first;
            victim.kill();
            phase("SIGKILL of " + victim.uri);
            nodes.awaitHolders(nodes.second, holders -> !holders.contains(victim.uri.toString()));
            phase("its partitions taken over: holders " + nodes.holders(nodes.second));
            CompletableFuture<Void> back = nodes.restartFirstInBackground();
            load.awaitMore(EVENTS_PER_PHASE);
            back.get(2, TimeUnit.MINUTES);
            phase("the killed node is back; holders " + nodes.holders(nodes.second));

            // The leader of partition 0's topic dies.
            KafkaCluster.Node leader = cluster().leaderOf(new TopicPartition(prefix + "orders", 0)).orElseThrow();
            cluster().kill(leader);
            long brokerKilledAt = System.nanoTime();
            load.awaitMore(EVENTS_PER_PHASE, RESUME_TIMEOUT);
            phase("publishes acknowledged again " + (System.nanoTime() - brokerKilledAt) / 1_000_000
                    + " ms or less after SIGKILL of broker " + leader.id() + ", leader of partition 0's topic");
            // It comes back while the test goes on (a restart takes 10-60 s here); two brokers are enough meanwhile.
            CompletableFuture<Void> brokerBack = CompletableFuture.runAsync(() -> {
                try {
                    cluster().restart(leader);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            });

            // The third node is cut off from every broker; clients and the other nodes still reach it.
            cutOffTheThirdNode(nodes, ledger);
            load.awaitMore(EVENTS_PER_PHASE);
            phase(EVENTS_PER_PHASE + " more events acknowledged during the cut; healing");
            nodes.cutOff.heal();
            nodes.awaitHolders(nodes.first, holders -> holders.contains(nodes.third.uri.toString()));
            phase("healed; the group gave the third node partitions again: " + nodes.holders(nodes.first));
            load.awaitMore(EVENTS_PER_PHASE);
            phase(EVENTS_PER_PHASE + " more events acknowledged after the heal; holders "
                    + nodes.holders(nodes.first));
            brokerBack.get(2, TimeUnit.MINUTES);
            phase("the killed broker is back");
        } finally {
            load.stopAndAwaitEnd();
        }
        System.out.println(load.summary());
        // The oracle re-publishes on every node: once each node sees every partition held, none by a node in doubt.
        for (ServeNode node : nodes.all()) {
            nodes.awaitHolders(node, holders -> holders.size() == 3);
        }
        phase("settled; holders " + nodes.holders(nodes.first));
        KafkaOracle.Findings findings = oracle(ledger, nodes.all());
        phase("oracle done");
        System.out.println(findings);
        assertThat(findings.problems()).as(findings.toString()).isEmpty();
    }

    @Test
    void negativeControlAnUnfencedNodeCutOffFromTheBrokersCorruptsItsPartitionsAndTheOracleSaysSo()
            throws Exception {
        Nodes nodes = new Nodes(true);
        Ledger ledger = new Ledger();
        // The cut comes while no publish is under way: a write in flight at the cut may already be on the broker,
        // and its sequencer, waiting for the answer until the heal, would take nothing else, the straight request
        // included. Once idle, the cut-off node's sequencers take that request and write it with their stale heads.
        Load before = failover(nodes.urls(), ledger, "control-a");
        try {
            before.awaitMore(EVENTS_PER_PHASE);
        } finally {
            before.stopAndAwaitEnd();
        }
        cutOffTheThirdNode(nodes, ledger);
        Load load = failover(nodes.urls(), ledger, "control-b");
        try {
            load.awaitMore(EVENTS_PER_PHASE);
            phase(EVENTS_PER_PHASE + " more events acknowledged during the cut; healing");
            nodes.cutOff.heal();
            load.awaitMore(EVENTS_PER_PHASE);
            phase("negative control: " + EVENTS_PER_PHASE + " more events acknowledged after the heal");
        } finally {
            load.stopAndAwaitEnd();
        }
        System.out.println(before.summary());
        System.out.println(load.summary());
        KafkaOracle.Findings findings = oracle(ledger, nodes.all());
        System.out.println("negative control: " + findings);
        assertThat(findings.problems()).as("the oracle must find the partitions' topics corrupt")
                .anyMatch(problem -> problem.startsWith("topic "));
    }

    /**
     * Cuts the third node off from the brokers until the group has given its partitions to the two others, then sends
     * one request straight to the third node with a key in each partition it held, so that whatever it still runs for
     * them is tried whichever nodes a load's clients happen to pick: a fenced node stopped its sequencers on the
     * revocation, an unfenced one kept them. The caller heals the cut.
     */
    private void cutOffTheThirdNode(Nodes nodes, Ledger ledger) throws InterruptedException {
        ServeNode third = nodes.third;
        nodes.awaitHolders(nodes.first, holders -> holders.contains(third.uri.toString()));
        List<String> before = nodes.holders(nodes.first);
        List<Integer> held = new ArrayList<>();
        for (int partition = 0; partition < before.size(); partition++) {
            if (third.uri.toString().equals(before.get(partition))) {
                held.add(partition);
            }
        }
        assertThat(held).as("the partitions of %s among %s", third.uri, before).isNotEmpty();
        phase("cutting " + third.uri + " off from the brokers; holders " + before);
        nodes.cutOff.cut();
        nodes.awaitHolders(nodes.first, holders -> !holders.contains(third.uri.toString()));
        phase("its partitions taken over: holders " + nodes.holders(nodes.first));
        phase("a request straight to it for partitions " + held + ": " + publishStraightTo(third, held, ledger));
    }

    /**
     * Publishes one fresh key in each of {@code partitions} straight to {@code node} (no failover), records a 200's
     * events in the ledger, and says what the node answered.
     */
    private String publishStraightTo(ServeNode node, List<Integer> partitions, Ledger ledger)
            throws InterruptedException {
        List<String> keys = new ArrayList<>();
        for (int partition : partitions) {
            String key;
            do {
                key = "straight-" + Long.toHexString(random.nextLong());
            } while (StreamPartitions.partitionOfKey(key, PARTITIONS) != partition);
            keys.add(key);
        }
        HttpRequest request = HttpRequest.newBuilder(node.uri.resolve("/streams/orders?verbose=true"))
                .timeout(REQUEST_TIMEOUT).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(Load.batch(keys))).build();
        try {
            HttpResponse<String> answer = http.send(request, HttpResponse.BodyHandlers.ofString());
            if (answer.statusCode() == 200) {
                JsonNode body = JSON.readTree(answer.body());
                JsonNode results = body.path("results");
                for (int i = 0; i < keys.size(); i++) {
                    ledger.acknowledge(keys.get(i), results.path(i).path("partition").asInt(), results.path(i)
                            .path("offset").asLong(), body.path("request_id").asText(null));
                }
            }
            return answer.statusCode() + " " + answer.body();
        } catch (IOException e) {
            return "no answer (" + e + ")";
        }
    }

    /**
     * The nodes of a test, sharing a cluster secret, all of {@code --role ingest}: the first two reach the brokers
     * directly, the third only through {@link #cutOff}. Started together; each holds some partitions once started.
     */
    private final class Nodes {

        private volatile ServeNode first;
        private final ServeNode second;
        private final ServeNode third;
        private final CutOff cutOff;
        private final boolean unfenced;
        private final String[] flags;

        Nodes(boolean unfenced) throws Exception {
            this.unfenced = unfenced;
            Path secret = NodeFixtures.clusterSecret(directory, "the cluster secret of the partitioned failure test");
            List<String> all = new ArrayList<>(List.of(REPLICATED));
            all.addAll(List.of("--cluster-secret-file", secret.toString(), "--role", "ingest"));
            this.flags = all.toArray(String[]::new);
            this.cutOff = track(cluster().cutOff(0));
            CompletableFuture<ServeNode> a = startInBackground("first", cluster().bootstrap());
            CompletableFuture<ServeNode> b = startInBackground("second", cluster().bootstrap());
            CompletableFuture<ServeNode> c = startInBackground("third", cluster().cutBootstrap(0));
            this.first = a.get(3, TimeUnit.MINUTES);
            this.second = b.get(3, TimeUnit.MINUTES);
            this.third = c.get(3, TimeUnit.MINUTES);
            // A node joins a keyed stream's sequencer group once it is a candidate; on a loaded machine the three
            // nodes can take longer than a takeover to share the partitions.
            awaitHolders(first, holders -> holders.containsAll(Set.of(first.uri.toString(), second.uri.toString(),
                    third.uri.toString())), START_TIMEOUT);
            phase("nodes started; holders " + holders(first));
        }

        private CompletableFuture<ServeNode> startInBackground(String name, String bootstrap) {
            return CompletableFuture.supplyAsync(() -> {
                try {
                    return track(ServeNode.startPartitioned(directory.resolve(name), bootstrap, prefix, PARTITIONS,
                            unfenced, flags));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }

        /** Starts the first node again (after its SIGKILL) while the test goes on. */
        CompletableFuture<Void> restartFirstInBackground() {
            ServeNode dead = first;
            return CompletableFuture.runAsync(() -> {
                try {
                    first = track(dead.restart());
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }

        List<URI> urls() {
            return List.of(first.uri, second.uri, third.uri);
        }

        List<ServeNode> all() {
            return List.of(first, second, third);
        }

        /** The sequencer of each partition of {@code orders} as {@code asked} sees it, partition 0 first. */
        List<String> holders(ServeNode asked) {
            List<String> holders = new ArrayList<>();
            for (JsonNode partition : asked.get("/streams/orders").body().path("by_partition")) {
                holders.add(partition.path("sequencer").asText(null));
            }
            return holders;
        }

        /** Waits until every partition has a sequencer and their set, as {@code asked} sees it, satisfies it. */
        void awaitHolders(ServeNode asked, Predicate<Set<String>> condition) {
            awaitHolders(asked, condition, TAKEOVER_TIMEOUT);
        }

        void awaitHolders(ServeNode asked, Predicate<Set<String>> wanted, Duration timeout) {
            // Not before every partition has a sequencer again: an incomplete map is an empty set.
            Predicate<Set<String>> condition = holders -> !holders.isEmpty() && wanted.test(holders);
            JsonNode stream = asked.await("/streams/orders", body -> condition.test(holderSet(body)), timeout);
            assertThat(condition.test(holderSet(stream))).as("the holders %s\n%s", stream.path("by_partition"),
                    asked.output()).isTrue();
        }

        private static Set<String> holderSet(JsonNode stream) {
            Set<String> holders = new HashSet<>();
            JsonNode partitions = stream.path("by_partition");
            if (partitions.size() != PARTITIONS) {
                return Set.of();
            }
            for (JsonNode partition : partitions) {
                if (!partition.path("sequencer").isTextual()) {
                    return Set.of();
                }
                holders.add(partition.path("sequencer").asText());
            }
            return holders;
        }
    }

    private KafkaOracle.Findings oracle(Ledger ledger, List<ServeNode> nodes) throws Exception {
        return oracle().checkPartitioned(ledger, PARTITIONS, nodes);
    }
}
