package dev.interlace.integration.kafka;

import static dev.interlace.integration.kafka.NodeFixtures.orders;
import static dev.interlace.integration.kafka.NodeFixtures.rows;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.interlace.runtime.testing.Eventually;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.junit.jupiter.api.Test;

/**
 * Two nodes with a warehouse each on one broker, only one of which holds the flush lease of {@code orders}: the
 * other's DuckDB keeps the prefix it had, so its {@code GET /streams/orders} reports its own watermark, says the
 * stream is flushed elsewhere and by how much it lags, and its warehouse routes are answered by the flushing node —
 * or, when it cannot forward (no cluster secret), from its own tables with the lag in a header. A {@code --role
 * warehouse} node is a replica instead: it flushes every stream into its own DuckDB.
 */
class StandbyWarehouseTest extends KafkaNodeTest {

    private static final String COUNT = "SELECT count(*), count(DISTINCT order_id) FROM streams.orders";

    StandbyWarehouseTest() {
        super("standby");
    }

    @Test
    void aNodeThatLostTheFlushLeaseReportsItsOwnWatermarkAndNeverAnswersStaleRowsUnflagged() throws Exception {
        String[] cluster = clusterFlags();
        try (ServeNode first = flushed(3, cluster)) {

            try (ServeNode second = node("b", cluster)) {
                // Published through both nodes. The group may give orders to the second node, and its flush lease
                // with it: either node may end up flushing, the other keeping what it flushed before (3 or 0 rows).
                assertThat(second.publish("orders", orders(4, 6)).status()).as(second.output()).isEqualTo(200);
                assertThat(first.publish("orders", orders(7, 9)).status()).as(first.output()).isEqualTo(200);
                ServeNode flushing = settledFlusher(first, second, 9);
                ServeNode standby = flushing == first ? second : first;

                // The flushed watermark reaches the other nodes with the flusher's lease renewals (up to 5 s late):
                // until then a node cannot know its warehouse lags, which the docs say.
                JsonNode lagging = standby.await("/streams/orders",
                        body -> body.path("flushed_watermark").asLong() == 9);
                assertThat(lagging.get("watermark").asLong()).as("what this node's own warehouse holds: " + lagging)
                        .isIn(0L, 3L);
                // The standby answers /sql from the flushing node's warehouse, or — when it flushes other streams
                // itself (the leases split between the two) — from its own, naming what it lacks of orders.
                long own = lagging.get("watermark").asLong();
                ServeNode.Response answer = standby.sql(COUNT);
                assertThat(answer.status()).as(String.valueOf(answer.body())).isEqualTo(200);
                if (rows(answer).equals(List.of("[9,9]"))) {
                    assertThat(answer.header("Interlace-Warehouse-Lag")).as("a current answer").isNull();
                } else {
                    assertThat(rows(answer)).as("its own rows").containsExactly("[" + own + "," + own + "]");
                    assertThat(answer.header("Interlace-Warehouse-Lag")).as("stale rows are flagged: " + lagging)
                            .isNotNull().contains("orders=" + (9 - own));
                }
                assertThat(lagging.get("head").asLong()).as(lagging.toString()).isEqualTo(9);
                assertThat(lagging.get("warehouse").asText()).isEqualTo("standby");
                assertThat(lagging.get("flush_state").asText()).isEqualTo("standby");
                assertThat(lagging.get("flushed_by").asText()).isEqualTo(flushing.uri.toString());
                assertThat(lagging.get("flushed_watermark").asLong()).isEqualTo(9);
                assertThat(lagging.get("warehouse_lag").asLong()).isEqualTo(9 - lagging.get("watermark").asLong());
                assertThat(lagging.get("pending").asLong()).as("nothing waits for the cluster's flusher").isZero();

                JsonNode holder = flushing.get("/streams/orders").body();
                assertThat(holder.get("watermark").asLong()).as(holder.toString()).isEqualTo(9);
                assertThat(holder.get("warehouse").asText()).isEqualTo("local");
                assertThat(holder.get("flushed_by").asText()).isEqualTo(flushing.uri.toString());
                assertThat(holder.get("warehouse_lag").asLong()).isZero();
                assertThat(standby.get("/models").status()).as("the other warehouse routes go there too")
                        .isEqualTo(200);
                assertThat(rows(flushing.sql(COUNT))).containsExactly("[9,9]");
            }
        }
    }

    /**
     * The node that flushes {@code orders}, once both agree on it, its watermark reached {@code head} and it committed
     * that to the log (the other node counts nothing pending): polled, with a deadline.
     */
    private static ServeNode settledFlusher(ServeNode first, ServeNode second, long head) throws Exception {
        try {
            return Eventually.get("a node settles as the flusher of orders", Duration.ofSeconds(60),
                    () -> settled(first, second, head), Objects::nonNull);
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "\n" + first.get("/streams/orders").body() + "\n"
                    + second.get("/streams/orders").body() + "\n" + first.output() + second.output(), e);
        }
    }

    /** The node that flushes {@code orders} if the two nodes' answers say so now (see {@link #settledFlusher}). */
    private static ServeNode settled(ServeNode first, ServeNode second, long head) {
        JsonNode one = first.get("/streams/orders").body();
        JsonNode other = second.get("/streams/orders").body();
        for (ServeNode candidate : List.of(first, second)) {
            JsonNode flushing = candidate == first ? one : other;
            JsonNode standing = candidate == first ? other : one;
            if (flushing.path("watermark").asLong() == head
                    && List.of("idle", "flushing").contains(flushing.path("flush_state").asText())
                    && "standby".equals(standing.path("flush_state").asText())
                    && standing.path("flush_error").asText().contains(candidate.uri.toString())
                    && standing.path("pending").asLong(-1) == 0) {
                return candidate;
            }
        }
        return null;
    }

    @Test
    void aWarehouseReplicaBesideTheSharedWarehouseFlushesEveryStreamIntoItsOwnAndAnswersFromIt() throws Exception {
        String[] cluster = clusterFlags();
        try (ServeNode flushing = flushed(3, cluster)) {

            // A --role warehouse node beside the first is a replica of its own: it leases its own flusher group, not
            // the first node's, and materialises every stream from the log into its DuckDB.
            String[] warehouseRole = {cluster[0], cluster[1], "--role", "warehouse"};
            try (ServeNode replica = node("b", warehouseRole)) {
                ServeNode.Response published = replica.post("/streams/orders?verbose=true", "application/json",
                        orders(4, 6), "X-Request-Id", "through-b");
                assertThat(published.status()).as(published.body() + replica.output()).isEqualTo(200);
                JsonNode own = replica.await("/streams/orders", body -> body.get("watermark").asLong() == 6);
                assertThat(own.get("watermark").asLong()).as("its own warehouse holds it all: " + own).isEqualTo(6);
                assertThat(own.get("warehouse").asText()).isEqualTo("local");
                assertThat(own.get("flushed_by").asText()).isEqualTo(replica.uri.toString());

                ServeNode.Response answer = replica.sql(COUNT);
                assertThat(answer.status()).as(String.valueOf(answer.body())).isEqualTo(200);
                assertThat(rows(answer)).as("answered from its own warehouse").containsExactly("[6,6]");
                assertThat(answer.header("Interlace-Warehouse-Lag")).isNull();
                ServeNode.Response correlated = replica.get("/correlate?request_id=through-b");
                assertThat(correlated.status()).as(String.valueOf(correlated.body())).isEqualTo(200);
                assertThat(correlated.body().get("events").get("materialised").asLong()).isEqualTo(3);
                assertThat(rows(flushing.sql(COUNT))).as("the first node's warehouse, flushed on its own")
                        .containsExactly("[6,6]");
            }
        }
    }

    @Test
    void aStandbyWarehouseThatCannotForwardAnswersFromItsOwnTablesAndSaysHowFarBehindTheyAre() throws Exception {
        // No cluster secret: the warehouse node can neither lease orders from its sequencer nor forward queries.
        try (ServeNode flushing = flushed(5, new String[0])) {

            try (ServeNode standby = node("b", "--role", "warehouse")) {
                // Once the flusher's commit to the log reached this node, nothing is pending here.
                JsonNode lagging = standby.await("/streams/orders", body -> body.get("pending").asLong() == 0);
                assertThat(lagging.get("pending").asLong()).as(lagging + standby.output()).isZero();
                assertThat(lagging.get("watermark").asLong()).as("what this node's own warehouse holds: " + lagging)
                        .isZero();
                ServeNode.Response answer = standby.sql(COUNT);
                assertThat(answer.status()).as(String.valueOf(answer.body())).isEqualTo(200);
                assertThat(rows(answer)).as("this node's own, stale, table").containsExactly("[0,0]");
                assertThat(answer.header("Interlace-Warehouse-Lag")).isEqualTo("orders=5");
                assertThat(lagging.get("warehouse").asText()).isEqualTo("standby");
                assertThat(lagging.get("flushed_by").asText()).isEqualTo(flushing.uri.toString());
                assertThat(lagging.get("flushed_watermark").asLong()).isEqualTo(5);
                assertThat(lagging.get("warehouse_lag").asLong()).isEqualTo(5);

                ServeNode.Response current = flushing.sql(COUNT);
                assertThat(rows(current)).containsExactly("[5,5]");
                assertThat(current.header("Interlace-Warehouse-Lag")).as("the flushing node lags nobody").isNull();
            }
        }
    }

    /** Node "a", started with {@code flags}, once orders 1 to {@code count} are in its warehouse. */
    @Test
    void aStandbysQueryProcessFollowsTheLogAndAnswersWithWhatTheFlushingNodeHas() throws Exception {
        // As above, but /sql runs in the query process (the default of `interlace serve`): it follows the log for
        // itself, so the answer holds what the flushing node's warehouse holds and lags nothing, while the node's own
        // warehouse still stands by.
        try (ServeNode flushing = flushed(5, new String[0])) {

            try (ServeNode standby = node("b", "--role", "warehouse", "--sql-isolation", "process")) {
                JsonNode lagging = standby.await("/streams/orders",
                        body -> body.get("flushed_watermark").asLong() == 5);
                assertThat(lagging.get("watermark").asLong()).as(lagging + standby.output()).isZero();
                ServeNode.Response answer = standby.sql(COUNT);
                assertThat(answer.status()).as(String.valueOf(answer.body())).isEqualTo(200);
                assertThat(rows(answer)).as("the query process's replica, brought up to the flushed watermark")
                        .containsExactly("[5,5]");
                assertThat(answer.header("Interlace-Warehouse-Lag")).as("it lags no warehouse").isNull();
                JsonNode after = standby.get("/streams/orders").body();
                assertThat(after.get("warehouse_lag").asLong()).as("the node's own warehouse: " + after).isEqualTo(5);
            }
        }
    }

    /**
     * A node whose {@code /sql} runs in its own warehouse ({@code --sql-isolation inline}) unless the test names the
     * isolation: what most of this test checks is that warehouse's standing. A query process follows the whole log
     * for itself, so its rows may be ahead of the node's own standby warehouse.
     */
    @Override
    ServeNode node(String name, String... flags) {
        if (java.util.Arrays.asList(flags).contains("--sql-isolation")) {
            return super.node(name, flags);
        }
        String[] inline = java.util.Arrays.copyOf(flags, flags.length + 2);
        inline[flags.length] = "--sql-isolation";
        inline[flags.length + 1] = "inline";
        return super.node(name, inline);
    }

    private ServeNode flushed(int count, String[] flags) {
        ServeNode node = node("a", flags);
        try {
            assertThat(node.publish("orders", orders(1, count)).status()).as(node.output()).isEqualTo(200);
            JsonNode flushed = node.await("/streams/orders", body -> body.get("watermark").asLong() == count);
            assertThat(flushed.get("watermark").asLong()).as(flushed + node.output()).isEqualTo(count);
            return node;
        } catch (RuntimeException | AssertionError e) {
            node.close();
            throw e;
        }
    }
}
