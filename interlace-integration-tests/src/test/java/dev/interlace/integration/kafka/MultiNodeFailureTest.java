package dev.interlace.integration.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.interlace.integration.crash.Ledger;
import dev.interlace.integration.crash.Load;
import dev.interlace.log.kafka.testing.KafkaCluster;
import dev.interlace.runtime.testing.Eventually;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Interlace nodes on a cluster of three Kafka brokers (topics with three replicas, {@code min.insync.replicas=2}),
 * every node and broker a child process, through the failures a cluster lives with: brokers dying, the sequencer of
 * a stream dying, the warehouse node dying, a node paused past its ownership. Two nodes of {@code --role ingest}
 * sequence the streams and take the publishes (forwarding each to the stream's sequencer, signed with the cluster
 * secret); one of {@code --role warehouse} flushes them into DuckDB. The brokers start once for the class.
 *
 * <p>The oracle ({@link KafkaOracle}, the SQLite crash tests') is fed by publishers ({@link Load#failover}) that
 * spread random keys over the nodes and retry every failed or unanswered request on the other node: every
 * acknowledged key is stored exactly once (in the stream's topic, and in {@code streams.orders} of the warehouse),
 * at the offset its 200 reported; offsets are dense from 1 to the head; re-publishing any acknowledged key on any
 * node answers {@code deduplicated} with its original offset. The negative control runs the pause with sequencers
 * that fence nobody and keep their streams when the group takes them away, and the oracle must catch it.
 */
class MultiNodeFailureTest extends KafkaFailureTest {

    private static final String[] REPLICATED = {"--kafka-replication-factor", "3", "--kafka-min-insync-replicas",
            "2"};
    private static final Duration OUTAGE_TIMEOUT = Duration.ofSeconds(120);
    /** Events acknowledged between one failure and the next: proof that publishing goes on, and little more. */
    private static final int EVENTS_PER_PHASE = 150;
    /** How long publishing may take to resume after the SIGKILL of the stream's partition leader. */
    private static final Duration BROKER_FAILOVER_TIMEOUT = Duration.ofSeconds(240);

    @RegisterExtension
    static final OwnBrokers BROKERS = OwnBrokers.restoredAfterEach(() -> KafkaCluster.start(3));

    MultiNodeFailureTest() {
        super("multi", 16, BROKERS::cluster);
    }

    // ================================================================== brokers

    @Test
    void withTwoOfThreeBrokersDeadPublishesAreRefusedAsUnavailableAndSucceedOnceTheyAreBackWithNothingLost()
            throws Exception {
        ServeNode node = track(ServeNode.start(directory.resolve("node"), cluster().bootstrap(), prefix, REPLICATED));
        Ledger ledger = new Ledger();
        for (int i = 0; i < 5; i++) {
            List<String> keys = List.of("before-" + i + "-a", "before-" + i + "-b");
            acknowledge(ledger, keys, node.publish("orders", Load.batch(keys)), node);
        }

        TopicPartition orders = new TopicPartition(prefix + "orders", 0);
        KafkaCluster.Node leader = cluster().leaderOf(orders).orElseThrow();
        List<KafkaCluster.Node> killed = new ArrayList<>(List.of(leader));
        killed.add(cluster().nodes().stream().filter(broker -> broker != leader).findFirst().orElseThrow());
        for (KafkaCluster.Node broker : killed) {
            cluster().kill(broker);
        }
        long killedAt = System.nanoTime();

        // Never a 200 while only one replica is left: each answer is a refusal, until the log says it is unavailable.
        String during = Load.batch(List.of("during-outage"));
        Map<String, Integer> answers = new LinkedHashMap<>();
        ServeNode.Response refused;
        long deadline = System.nanoTime() + OUTAGE_TIMEOUT.toNanos();
        do {
            refused = node.publish("orders", during);
            assertThat(refused.status()).as("a publish with one broker of three left: %s", refused.body())
                    .isEqualTo(503);
            answers.merge(refused.body().get("error").asText(), 1, Integer::sum);
        } while (!refused.body().get("error").asText().equals("log_unavailable") && System.nanoTime() < deadline);
        long firstRefusalMillis = (System.nanoTime() - killedAt) / 1_000_000;
        assertThat(refused.body().get("error").asText()).as(node.output()).isEqualTo("log_unavailable");
        assertThat(refused.header("Retry-After")).isNotNull();
        ServeNode.Response again = node.publish("orders", during);
        assertThat(again.status()).isEqualTo(503);
        assertThat(again.body().get("error").asText()).as("while the brokers are still gone").isEqualTo(
                "log_unavailable");
        JsonNode notReady = node.await("/health/ready", body -> body.path("status").asText().equals("not_ready"));
        assertThat(notReady.get("status").asText()).isEqualTo("not_ready");
        assertThat(notReady.get("reasons").toString()).contains("log_unavailable");
        System.out.println("two of three brokers killed: first log_unavailable after " + firstRefusalMillis
                + " ms; answers before it " + answers + "; readiness " + notReady.get("reasons"));

        cluster().restart(killed.toArray(KafkaCluster.Node[]::new));
        long restartedAt = System.nanoTime();
        ServeNode.Response accepted = node.publish("orders", during);
        deadline = System.nanoTime() + OUTAGE_TIMEOUT.toNanos();
        while (accepted.status() != 200 && System.nanoTime() < deadline) {
            assertThat(accepted.status()).as("until the brokers are back: %s", accepted.body()).isEqualTo(503);
            accepted = node.publish("orders", during);
        }
        assertThat(accepted.status()).as(node.output()).isEqualTo(200);
        System.out.println("brokers restarted: publishes succeed again after "
                + (System.nanoTime() - restartedAt) / 1_000_000 + " ms");
        // Stored once, right after what was acknowledged before: by this publish, or by a refused attempt whose
        // transaction the brokers committed when they came back (a 503 log_unavailable may or may not have stored
        // the event, and the retry is deduplicated to it).
        assertThat(accepted.body().get("accepted").asInt() + accepted.body().get("deduplicated").asInt())
                .as(accepted.body().toString()).isEqualTo(1);
        assertThat(accepted.body().get("last_offset").asLong()).isEqualTo(11);
        acknowledge(ledger, List.of("during-outage"), accepted, node);
        assertThat(node.await("/health/ready", body -> body.path("status").asText().equals("ready"))
                .get("status").asText()).isEqualTo("ready");

        KafkaOracle.Findings findings = oracle(ledger, List.of(node), null);
        assertThat(findings.problems()).as(findings.toString()).isEmpty();
    }

    // ================================================================== nodes

    @Test
    void publishersFailingOverBetweenNodesLoseNothingWhenTheSequencerABrokerAndTheWarehouseAreKilled()
            throws Exception {
        Cluster nodes = new Cluster(false);
        phase("nodes started");
        Ledger ledger = new Ledger();
        Load load = failover(nodes.urls(), ledger, "multi");
        try {
            load.awaitMore(EVENTS_PER_PHASE);
            phase(EVENTS_PER_PHASE + " events acknowledged");

            ServeNode holder = nodes.holder();
            ServeNode other = nodes.other(holder);
            holder.kill();
            long killedAt = System.nanoTime();
            JsonNode taken = other.await("/streams/orders", body -> other.uri.toString()
                    .equals(body.path("sequencer").asText(null)));
            assertThat(taken.get("sequencer").asText()).as(other.output()).isEqualTo(other.uri.toString());
            long takeoverMillis = (System.nanoTime() - killedAt) / 1_000_000;
            System.out.println("takeover after SIGKILL of the sequencer under load (3 brokers): " + takeoverMillis
                    + " ms");
            CompletableFuture<Void> holderBack = nodes.restartInBackground(holder);
            load.awaitMore(EVENTS_PER_PHASE);
            phase(EVENTS_PER_PHASE + " more events acknowledged");
            // One failure at a time: the node is back before a broker dies.
            holderBack.get(2, TimeUnit.MINUTES);
            phase("the killed node is back");

            TopicPartition orders = new TopicPartition(prefix + "orders", 0);
            KafkaCluster.Node leader = cluster().leaderOf(orders).orElseThrow();
            cluster().kill(leader);
            long brokerKilledAt = System.nanoTime();
            // Usually 12-19 s; once, in CI, more than 90 s (not explained yet): the nodes' warnings say why if so.
            awaitMore(load, EVENTS_PER_PHASE, BROKER_FAILOVER_TIMEOUT, nodes);
            System.out.println("publishes acknowledged again " + (System.nanoTime() - brokerKilledAt) / 1_000_000
                    + " ms or less after SIGKILL of the leader of the stream's partition");

            ServeNode warehouse = nodes.warehouse();
            warehouse.kill();
            phase("warehouse node killed");
            CompletableFuture<Void> warehouseBack = nodes.restartInBackground(warehouse);
            cluster().restart(leader);
            phase("broker restarted");
            load.awaitMore(EVENTS_PER_PHASE);
            phase(EVENTS_PER_PHASE + " more events acknowledged");
            warehouseBack.get(2, TimeUnit.MINUTES);
            phase("the warehouse node is back");
            load.awaitMore(EVENTS_PER_PHASE);
            phase(EVENTS_PER_PHASE + " more events acknowledged");
        } finally {
            load.stopAndAwaitEnd();
        }
        phase("publishers stopped");
        System.out.println(load.summary());

        KafkaOracle.Findings findings = oracle(ledger, nodes.republishOn(), nodes.warehouse());
        phase("oracle done");
        nodes.printWarnings();
        System.out.println(findings);
        assertThat(findings.problems()).isEmpty();
    }

    @Test
    void negativeControlAnUnfencedSequencerPausedPastItsOwnershipCorruptsTheStreamAndTheOracleSaysSo()
            throws Exception {
        Cluster nodes = new Cluster(true);
        phase("nodes started");
        Ledger ledger = new Ledger();
        Load load = failover(nodes.urls(), ledger, "control");
        try {
            load.awaitMore(EVENTS_PER_PHASE);
            ServeNode holder = nodes.holder();
            ServeNode other = nodes.other(holder);
            phase("negative control: SIGSTOP of the sequencer " + holder.uri);
            long unanswered = load.unanswered();
            holder.suspend();
            JsonNode taken = other.await("/streams/orders", body -> other.uri.toString()
                    .equals(body.path("sequencer").asText(null)));
            assertThat(taken.get("sequencer").asText()).as(other.output()).isEqualTo(other.uri.toString());
            phase("negative control: " + other.uri + " took the stream over");
            // Publishers give up on requests the paused node has not read yet (some forwarded to it by the other node
            // while it was still named the sequencer); it reads them when it goes on. Its unfenced sequencer keeps the
            // stream when the group takes it away, so from then on both nodes sequence it, and the oracle does not
            // depend on whether the paused node writes before it notices the takeover.
            Eventually.until("publishers gave up on two more requests", Duration.ofSeconds(30),
                    () -> load.unanswered() >= unanswered + 2);
            phase("negative control: SIGCONT");
            holder.resume();
            load.awaitMore(EVENTS_PER_PHASE);
            phase("negative control: " + EVENTS_PER_PHASE + " more events acknowledged");
        } finally {
            load.stopAndAwaitEnd();
        }
        phase("negative control: publishers stopped");
        KafkaOracle.Findings findings = oracle(ledger, nodes.republishOn(), nodes.warehouse());
        phase("negative control: oracle done");
        System.out.println("negative control: " + findings);
        assertThat(findings.problems()).as("the oracle must catch a paused holder that nobody fenced").isNotEmpty();
    }

    /**
     * The Interlace nodes of a test, sharing a cluster secret: two of {@code --role ingest}, which sequence the
     * streams and take the publishes ({@link #urls}), and one of {@code --role warehouse}, which flushes them.
     *
     * <p>The negative control has no warehouse node: the corruption is in the stream's topic, where the oracle looks
     * first, and a warehouse copying it would only cost the test time.
     */
    private final class Cluster {

        private final List<ServeNode> ingest = new CopyOnWriteArrayList<>();
        private volatile ServeNode warehouse;

        /**
         * Starts the nodes; with {@code unfenced}, the ingest nodes' sequencers fence nobody and there is no
         * warehouse node (negative control).
         */
        Cluster(boolean unfenced) throws Exception {
            Path secret = NodeFixtures.clusterSecret(directory, "the cluster secret of the multi-node failure test");
            for (String name : List.of("first", "second")) {
                Path data = directory.resolve(name);
                String[] flags = flags(secret, "ingest");
                ingest.add(track(unfenced ? ServeNode.startUnfenced(data, cluster().bootstrap(), prefix, flags)
                        : ServeNode.start(data, cluster().bootstrap(), prefix, flags)));
            }
            holder();
            if (unfenced) {
                return;
            }
            warehouse = track(ServeNode.start(directory.resolve("warehouse"), cluster().bootstrap(), prefix,
                    flags(secret, "warehouse")));
        }

        private static String[] flags(Path secret, String role) {
            List<String> flags = new ArrayList<>(List.of(REPLICATED));
            flags.addAll(List.of("--cluster-secret-file", secret.toString(), "--role", role));
            return flags.toArray(String[]::new);
        }

        List<URI> urls() {
            return ingest.stream().map(node -> node.uri).toList();
        }

        /** The ingest node sequencing orders, once one does. */
        ServeNode holder() {
            ServeNode asked = ingest.get(0);
            JsonNode stream = asked.await("/streams/orders", body -> body.path("sequencer").isTextual());
            String url = stream.path("sequencer").asText(null);
            return ingest.stream().filter(node -> node.uri.toString().equals(url)).findFirst()
                    .orElseThrow(() -> new AssertionError("no ingest node sequences orders: " + stream + "\n"
                            + asked.output()));
        }

        ServeNode other(ServeNode node) {
            return ingest.stream().filter(candidate -> candidate != node).findFirst().orElseThrow();
        }

        /**
         * Starts a dead node again (the same port and data directory), while the test goes on; the node replaces the
         * dead one once it listens.
         */
        CompletableFuture<Void> restartInBackground(ServeNode dead) {
            return CompletableFuture.runAsync(() -> {
                try {
                    ServeNode restarted = track(dead.restart());
                    if (dead == warehouse) {
                        warehouse = restarted;
                    } else {
                        ingest.set(ingest.indexOf(dead), restarted);
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }

        /** Every node: a re-publish is answered on any of them (forwarded to the sequencer). */
        List<ServeNode> republishOn() {
            List<ServeNode> all = new ArrayList<>(ingest);
            if (warehouse != null) {
                all.add(warehouse);
            }
            return all;
        }

        /** The warehouse node; null in the negative control. */
        ServeNode warehouse() {
            return warehouse;
        }

        /** What the nodes logged beyond the routine, for the record of what an operator sees. */
        void printWarnings() {
            for (ServeNode node : republishOn()) {
                node.output().lines().filter(line -> line.contains(" WARNING ") || line.contains(" SEVERE ")
                        || line.contains("sequences stream orders")).forEach(line -> System.out.println(node.uri
                        + " " + line));
            }
        }
    }

    /** {@link Load#awaitMore}; on failure prints the nodes' warnings first. */
    private static void awaitMore(Load load, long events, Duration timeout, Cluster nodes)
            throws InterruptedException {
        try {
            load.awaitMore(events, timeout);
        } catch (AssertionError notAcknowledged) {
            nodes.printWarnings();
            throw notAcknowledged;
        }
    }

    // ================================================================== oracle

    /** See {@link KafkaOracle#check}. */
    private KafkaOracle.Findings oracle(Ledger ledger, List<ServeNode> nodes, ServeNode warehouse) throws Exception {
        return oracle().check(ledger, nodes, warehouse);
    }

    // ================================================================== helpers

    /** Records the events of a verbose 200 for the orders keyed {@code keys} in the ledger. */
    private static void acknowledge(Ledger ledger, List<String> keys, ServeNode.Response response, ServeNode node) {
        assertThat(response.status()).as(node.output()).isEqualTo(200);
        String requestId = response.body().get("request_id").asText();
        JsonNode results = response.body().get("results");
        for (int i = 0; i < keys.size(); i++) {
            JsonNode result = results.get(i);
            ledger.acknowledge(keys.get(i), result.get("offset").asLong(),
                    result.get("status").asText().equals("accepted") ? requestId : null);
        }
    }
}
