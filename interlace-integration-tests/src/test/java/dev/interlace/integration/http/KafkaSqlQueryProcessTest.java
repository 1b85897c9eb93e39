package dev.interlace.integration.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.interlace.log.kafka.testing.KafkaCluster;
import dev.interlace.runtime.Interlace;
import dev.interlace.runtime.log.Leases;
import dev.interlace.runtime.log.StreamLog;
import dev.interlace.runtime.queryprocess.QueryProcess;
import dev.interlace.runtime.testing.Eventually;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupListing;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code --sql-isolation process} on a Kafka node: every test of {@link SqlQueryProcessTest} on a node of the Kafka log
 * (its query process follows the topics read-only), that the query process is no part of the cluster, and the
 * negative control: inline, a query outlives the bound.
 */
class KafkaSqlQueryProcessTest extends SqlQueryProcessTest {

    /** One node: nothing is forwarded to it. */
    private static final String ADVERTISED = "http://127.0.0.1:9";

    private final String bootstrap = KafkaCluster.shared().bootstrap();
    private final String prefix = "sqlprocess-" + UUID.randomUUID().toString().substring(0, 8) + ".";

    @RegisterExtension
    final ChildServer inline = new ChildServer();

    @Override
    List<String> logFlags() {
        return List.of("--log", "kafka", "--kafka-bootstrap", bootstrap, "--kafka-topic-prefix", prefix,
                "--kafka-replication-factor", "1", "--kafka-min-insync-replicas", "1",
                "--advertise-url", ADVERTISED);
    }

    @Test
    void theQueryProcessIsNoMemberOfTheClusterAndNeedsNoClusterSecret() throws Exception {
        Path secret = dataDirectory.resolveSibling(dataDirectory.getFileName() + ".secret");
        Files.writeString(secret, "a cluster secret of at least thirty-two bytes\n");
        Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("rw-------"));
        try (Interlace server = start("--cluster-secret-file", secret.toString())) {
            awaitQueries(server);
            for (int i = 0; i < 20; i++) {
                java.net.http.HttpResponse<String> published = publish(server, "o" + i);
                assertThat(published.statusCode()).as(published.body()).isEqualTo(200);
            }
            String count = Eventually.get("the query process materialised the orders", WAIT,
                    () -> rows(sql(server, "SELECT count(*) FROM streams.orders")), "[[20]]"::equals);
            assertThat(count).isEqualTo("[[20]]");

            // It reads the topics without a consumer group: the cluster's only group is the nodes' sequencer group.
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
                List<String> groups = admin.listConsumerGroups().all().get().stream()
                        .map(ConsumerGroupListing::groupId).filter(id -> id.startsWith(prefix)).toList();
                assertThat(groups).containsExactly(prefix + "sequencers");
            }
            // No flush lease of it on the log: the stream's only flusher group is the node's, the one replica the
            // trims wait for (FlushLeaseHolders reads the flusher groups).
            List<String> flushers = server.instance(StreamLog.class).groups("orders").stream()
                    .map(Leases.Group::group).toList();
            assertThat(flushers).containsExactly("__flusher");
            // Not a node or replica of the cluster's listing.
            JsonNode cluster = TestServer.JSON.readTree(UncancellableQueries.send(HttpRequest.newBuilder(
                    server.uri().resolve("/cluster")).GET()).body());
            // (The node is listed under its advertised URL and, on its ephemeral port, the URL asked.)
            List<String> others = new java.util.ArrayList<>();
            cluster.get("nodes").forEach(node -> others.add(node.get("url").asText()));
            others.removeAll(List.of(ADVERTISED, "http://127.0.0.1:" + server.port()));
            assertThat(others).as(cluster.toPrettyString()).isEmpty();
            assertThat(cluster.get("replicas")).as(cluster.toPrettyString()).hasSize(1);
            assertThat(cluster.get("replicas").get(0).get("replica").asText()).isEqualTo("shared");

            // Its command line names the brokers and the topic prefix; no secret, role or advertised URL.
            List<String> arguments = ProcessHandle.current().descendants().map(KafkaSqlQueryProcessTest::commandLine)
                    .filter(args -> args.contains(QueryProcess.MAIN)).findFirst().orElseThrow();
            assertThat(arguments).contains("--kafka-bootstrap", bootstrap, "--kafka-topic-prefix", prefix)
                    .doesNotContain("--cluster-secret-file", secret.toString(), "--role", "--advertise-url", "--log");
        }
    }

    /**
     * The negative control: with {@code --sql-isolation inline} on a Kafka node (in a JVM of its own, which is killed
     * at the end: its DuckDB computes on for minutes), the queries are answered {@code 408} but go on computing more
     * than two seconds past their deadline, every query slot held: another query is refused {@code 503 busy}.
     */
    @Test
    void inlineTheQueriesOutliveTheirDeadlineOnAKafkaNode() throws Exception {
        String[] flags = java.util.stream.Stream.concat(logFlags().stream(), java.util.stream.Stream.of(
                "--sql-isolation", "inline", "--sql-timeout-ms", Long.toString(DEADLINE_MILLIS)))
                .toArray(String[]::new);
        URI node = inline.start(Files.createDirectories(dataDirectory.resolve("inline")), "-Xmx512m", flags);
        UncancellableQueries.Run run = UncancellableQueries.duringPublishes(node);
        long bound = DEADLINE_MILLIS + 2_000;
        Eventually.until("the deadline and two seconds passed", WAIT, () -> run.millisSinceStart() > bound);
        java.net.http.HttpResponse<String> next = UncancellableQueries.sql(node, "SELECT 1");
        assertThat(next.statusCode()).as("%s after %d ms; %s", next.body(), run.millisSinceStart(), run.answers())
                .isEqualTo(503);
        assertThat(next.body()).contains("\"busy\"");
    }

    /** A process's command line as Linux shows it ({@code /proc/<pid>/cmdline}); empty once it ended. */
    private static List<String> commandLine(ProcessHandle process) {
        try {
            String line = Files.readString(Path.of("/proc", Long.toString(process.pid()), "cmdline"));
            return List.of(line.split("\u0000"));
        } catch (java.io.IOException e) {
            return List.of();
        }
    }
}
