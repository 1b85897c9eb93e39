package dev.interlace.integration.kafka;

import static dev.interlace.integration.kafka.NodeFixtures.with;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Two warehouse replicas beside an ingest node on one broker, under publish load: each materialises every event into
 * its own DuckDB; one SIGKILLed, queries through the ingest node are answered by the other and publishes are never
 * refused for its absence; restarted, it catches up; a replica whose data directory was emptied rebuilds from the log.
 * Each time both replicas' {@code streams.orders} and their {@code order_sizes} (a Java model) hash the same.
 */
class WarehouseReplicasTest extends KafkaNodeTest {

    private static final String ORDERS = "SELECT count(*), count(DISTINCT order_id), min(_offset), max(_offset),"
            + " md5(string_agg(concat_ws('|', _offset, order_id, total, _ingested_at, _request_id), ','"
            + " ORDER BY _offset)) FROM streams.orders";
    private static final String SIZES = "SELECT count(*), md5(string_agg(concat_ws('|', order_id, total, size), ','"
            + " ORDER BY order_id)) FROM order_sizes";

    WarehouseReplicasTest() {
        super("replicas");
    }

    @Test
    void replicasMaterialiseEveryEventOnceEachAndServeQueriesWhileOneIsDownOrRebuilt() throws Exception {
        String[] cluster = clusterFlags();
        String[] warehouse = with(cluster, "--role", "warehouse", "--replica-timeout-ms", "1000", "--max-pending",
                "1000");
        Path aData = directory.resolve("a");
        Path bData = directory.resolve("b");
        try (ServeNode ingest = node("ingest", with(cluster, "--role", "ingest", "--max-pending", "1000",
                "--replica-timeout-ms", "1000"));
                Publishers publishers = new Publishers(ingest)) {
            // Both replicas start at once (each start waits for its JVM to listen).
            CompletableFuture<ServeNode> starting = CompletableFuture.supplyAsync(() -> node(bData, warehouse));
            ServeNode a = node(aData, warehouse);
            ServeNode b = starting.join();
            try {
                JsonNode both = ingest.await("/cluster", body -> liveReplicas(body) == 2);
                assertThat(liveReplicas(both)).as(both.toPrettyString()).isEqualTo(2);
                assertThat(both.get("nodes").toString()).contains("\"role\":\"ingest\"", "\"role\":\"warehouse\"");
                publishers.start();
                publishers.awaitAccepted(200);

                a.kill();
                // The ingest node may still take A for live (until its leases expire): it then asks B.
                for (int i = 0; i < 5; i++) {
                    ServeNode.Response answer = ingest.sql("SELECT count(*) FROM streams.orders");
                    assertThat(answer.status()).as(String.valueOf(answer.body())).isEqualTo(200);
                }
                // Read-your-writes through the ingest node, answered by the live replica.
                ServeNode.Response published = ingest.publish("orders", "{\"order_id\": \"ryw\", \"total\": 1}");
                assertThat(published.status()).as(published.body() + "\n" + ingest.get("/cluster").body())
                        .isEqualTo(200);
                String position = published.body().get("position").asText();
                ServeNode.Response seen = ingest.post("/sql", "text/plain",
                        "SELECT count(*) FROM streams.orders WHERE order_id = 'ryw'", "Interlace-After", position);
                assertThat(seen.status()).as(String.valueOf(seen.body())).isEqualTo(200);
                assertThat(seen.body().get("rows").toString()).isEqualTo("[[1]]");
                int before = publishers.accepted();
                publishers.awaitAccepted(before + 1500); // more than --max-pending while A is dead
                System.out.println("accepted " + (publishers.accepted() - before) + " orders while replica A was dead");

                a = a.restart();
                publishers.awaitAccepted(publishers.accepted() + 100);
                publishers.stop();
                assertThat(publishers.refusals()).as("every publish accepted while a replica was down").isEmpty();
                long head = ingest.get("/streams/orders").body().get("head").asLong();
                assertSameTables(a, b, head);

                // B stops and its data directory is emptied: started again it is a new replica, which materialises
                // the log from its start, exactly once. The old one, silent past --replica-timeout-ms, is dropped.
                String oldB = replicaOf(ingest, b.uri.toString());
                b.stop();
                emptyDataDirectory(bData);
                b = b.restart();
                assertSameTables(a, b, head);
                JsonNode after = ingest.await("/cluster", body -> dropped(body, oldB));
                assertThat(dropped(after, oldB)).as(after.toPrettyString()).isTrue();
                assertThat(liveReplicas(after)).isEqualTo(2);
                JsonNode records = ingest.await("/logs/sys?event=replica_dropped",
                        body -> body.path("count").asInt() > 0);
                assertThat(records.toString()).as("a system record says so").contains(oldB);
            } finally {
                a.close();
                b.close();
            }
        }
    }

    /** Both replicas hold every offset up to {@code head} once, and the same rows in the stream and the model. */
    private static void assertSameTables(ServeNode a, ServeNode b, long head) {
        for (ServeNode node : List.of(a, b)) {
            JsonNode stream = node.await("/streams/orders", body -> body.get("watermark").asLong() == head);
            assertThat(stream.get("watermark").asLong()).as(node.output()).isEqualTo(head);
            assertThat(row(node, ORDERS)).startsWith("[" + head + "," + head + ",1," + head + ",");
        }
        assertThat(row(b, ORDERS)).isEqualTo(row(a, ORDERS));
        // The model runs after each flush: wait until each replica's run has taken every order in.
        for (ServeNode node : List.of(a, b)) {
            node.await("/runs?limit=1", body -> row(node, SIZES).startsWith("[" + head + ","));
            assertThat(row(node, SIZES)).startsWith("[" + head + ",");
        }
        assertThat(row(b, SIZES)).isEqualTo(row(a, SIZES));
    }

    private static String row(ServeNode node, String query) {
        ServeNode.Response answer = node.sql(query);
        assertThat(answer.status()).as(String.valueOf(answer.body())).isEqualTo(200);
        return answer.body().get("rows").get(0).toString();
    }

    private static int liveReplicas(JsonNode cluster) {
        int live = 0;
        for (JsonNode replica : cluster.path("replicas")) {
            live += replica.path("live").asBoolean() ? 1 : 0;
        }
        return live;
    }

    private static boolean dropped(JsonNode cluster, String replica) {
        for (JsonNode each : cluster.path("replicas")) {
            if (each.path("replica").asText().equals(replica)) {
                return each.path("dropped").asBoolean();
            }
        }
        return false;
    }

    private static String replicaOf(ServeNode ingest, String node) {
        for (JsonNode each : ingest.get("/cluster").body().path("replicas")) {
            if (each.path("node").asText().equals(node) && each.path("live").asBoolean()) {
                return each.path("replica").asText();
            }
        }
        throw new AssertionError("no live replica on " + node);
    }

    /** Deletes everything in a stopped node's data directory but its output and temporary files. */
    private static void emptyDataDirectory(Path data) throws IOException {
        try (Stream<Path> files = Files.walk(data)) {
            for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                Path relative = data.relativize(file);
                if (!file.equals(data) && !relative.toString().startsWith("tmp")
                        && !relative.getFileName().toString().startsWith("serve-")) {
                    Files.delete(file);
                }
            }
        }
        assertThat(data.resolve("warehouse.duckdb")).doesNotExist();
    }

    /** Two clients publishing small batches of new orders through the ingest node, counting every answer. */
    private static final class Publishers implements AutoCloseable {

        private final ServeNode node;
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final AtomicInteger accepted = new AtomicInteger();
        private final Map<Integer, Integer> refusals = new ConcurrentHashMap<>();
        private final List<Thread> threads = new ArrayList<>();

        Publishers(ServeNode node) {
            this.node = node;
        }

        void start() {
            for (int client = 0; client < 1; client++) {
                int id = client;
                Thread thread = new Thread(() -> {
                    for (int batch = 0; running.get(); batch++) {
                        List<String> orders = new ArrayList<>();
                        for (int i = 0; i < 10; i++) {
                            orders.add("{\"order_id\": \"c" + id + "-" + batch + "-" + i + "\", \"total\": "
                                    + (batch % 150) + "}");
                        }
                        ServeNode.Response answer = node.publish("orders", "[" + String.join(",", orders) + "]");
                        if (answer.status() == 200) {
                            accepted.addAndGet(10);
                        } else {
                            refusals.merge(answer.status(), 1, Integer::sum);
                        }
                    }
                }, "publisher-" + client);
                thread.start();
                threads.add(thread);
            }
        }

        int accepted() {
            return accepted.get();
        }

        /** Waits until {@code count} orders are accepted, which the publishers' answers show. */
        void awaitAccepted(int count) {
            node.await("/streams/orders", body -> accepted.get() >= count || !refusals.isEmpty());
            assertThat(accepted.get()).as("refusals: " + refusals).isGreaterThanOrEqualTo(count);
        }

        Map<Integer, Integer> refusals() {
            return new TreeMap<>(refusals);
        }

        void stop() throws InterruptedException {
            running.set(false);
            for (Thread thread : threads) {
                thread.join(30_000);
            }
        }

        @Override
        public void close() throws InterruptedException {
            stop();
        }
    }
}
