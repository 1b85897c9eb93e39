package dev.interlace.runtime.warehouse.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.interlace.annotations.Materialise;
import dev.interlace.runtime.warehouse.ModelStore;
import dev.interlace.runtime.warehouse.ModelStore.Delta;
import dev.interlace.runtime.warehouse.ModelStore.ModelOutput;
import dev.interlace.runtime.warehouse.StreamTables.Target;
import dev.interlace.runtime.warehouse.Warehouse;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The conformance suite of {@link ModelStore}: how a model's output and its watermarks are written.
 *
 * <p>It specifies view, table and incremental materialisation (an incremental run reads only the rows its streams
 * gained since its watermarks and replaces rows of the same unique key); that the watermarks are recorded in the same
 * transaction as the output, so {@code isBehindStreams} is true exactly when a stream committed rows past them; that
 * a Java model's body gets its deltas; the steps told inside the transaction; and that a model that fails anywhere
 * before its commit leaves neither output nor watermarks.
 *
 * <p>Run it through {@link WarehouseContract}, which a backend extends; it is abstract so that it runs only there.
 */
public abstract class ModelStoreContract extends WarehouseContractSupport {

    private static final String SCHEMA = "analytics";

    /** Opens the warehouse and prepares the model store and {@link #ORDERS}. */
    private Warehouse prepared() {
        Warehouse warehouse = open();
        warehouse.prepareModels();
        warehouse.prepareModels();
        warehouse.prepare(ORDERS);
        warehouse.claim(Target.events("orders"), 1);
        return warehouse;
    }

    /** Appends {@link #ORDERS} rows {@code from..to} after watermark {@code from - 1}. */
    private static void flush(Warehouse warehouse, long from, long to) {
        flush(warehouse, from - 1, orders(from, to));
    }

    private static void flush(Warehouse warehouse, long after, List<Warehouse.Row> rows) {
        warehouse.append(ORDERS, Target.events("orders"), 1, after, rows.get(rows.size() - 1).offset(), rows, null);
    }

    private static ModelOutput sql(String name, Materialise materialise, String sql, String uniqueKey) {
        return new ModelOutput(SCHEMA, name, materialise, sql, uniqueKey, List.of("orders"), null);
    }

    @Test
    void aViewModelReadsTheStreamAsItGrows() throws SQLException {
        Warehouse warehouse = prepared();
        flush(warehouse, 1, 2);
        assertThat(warehouse.modelExists(SCHEMA, "all_orders")).isFalse();
        Recorded steps = new Recorded();
        assertThat(warehouse.materialise(sql("all_orders", Materialise.VIEW, "SELECT id, n FROM streams.orders",
                null), steps)).as("a view writes no rows").isZero();
        assertThat(warehouse.modelExists(SCHEMA, "all_orders")).isTrue();
        assertThat(warehouse.modelWatermark("all_orders", "orders")).isEqualTo(2);
        assertThat(steps.events).containsExactly("beforeCommit");

        flush(warehouse, 3, 4);
        assertThat(number(warehouse, "SELECT count(*) FROM analytics.all_orders")).as("a view is live")
                .isEqualTo(4);
    }

    @Test
    void aTableModelIsRebuiltWholeAndRecordsItsWatermarkWithIt() throws SQLException {
        Warehouse warehouse = prepared();
        flush(warehouse, 1, 3);
        ModelOutput totals = sql("totals", Materialise.TABLE, "SELECT count(*) AS orders,"
                + " CAST(sum(n) AS BIGINT) AS total FROM streams.orders", null);
        assertThat(warehouse.isBehindStreams("totals", List.of("orders"))).as("never run").isTrue();
        assertThat(warehouse.materialise(totals, new Recorded())).as("the table's size").isEqualTo(1);
        assertThat(select(warehouse, "SELECT orders, total FROM analytics.totals")).containsExactly(List.of(3L, 6L));
        assertThat(warehouse.modelWatermark("totals", "orders")).isEqualTo(3);
        assertThat(warehouse.isBehindStreams("totals", List.of("orders"))).isFalse();

        flush(warehouse, 4, 4);
        assertThat(select(warehouse, "SELECT orders FROM analytics.totals")).as("a table is a snapshot")
                .containsExactly(List.of(3L));
        assertThat(warehouse.isBehindStreams("totals", List.of("orders"))).isTrue();
        warehouse.materialise(totals, new Recorded());
        assertThat(select(warehouse, "SELECT orders, total FROM analytics.totals")).containsExactly(List.of(4L, 10L));
        assertThat(warehouse.isBehindStreams("totals", List.of("orders"))).isFalse();
        assertThat(reopen(warehouse).modelWatermark("totals", "orders")).as("durable").isEqualTo(4);
    }

    @Test
    void anIncrementalModelReadsOnlyNewRowsAndReplacesRowsOfTheSameUniqueKey() throws SQLException {
        Warehouse warehouse = prepared();
        flush(warehouse, 0, List.of(row(1, "a", 1L), row(2, "b", 2L)));
        ModelOutput latest = sql("latest", Materialise.INCREMENTAL, "SELECT id, n, _offset FROM streams.orders",
                "id");
        Recorded steps = new Recorded();
        assertThat(warehouse.materialise(latest, steps)).isEqualTo(2);
        assertThat(steps.events).containsExactly("afterOutput 2", "beforeCommit");
        assertThat(warehouse.modelWatermark("latest", "orders")).isEqualTo(2);

        flush(warehouse, 2, List.of(row(3, "a", 30L), row(4, "c", 4L)));
        assertThat(warehouse.isBehindStreams("latest", List.of("orders"))).isTrue();
        assertThat(warehouse.materialise(latest, new Recorded())).as("only the rows after the watermark")
                .isEqualTo(2);
        assertThat(select(warehouse, "SELECT id, n FROM analytics.latest ORDER BY id"))
                .containsExactly(List.of("a", 30L), List.of("b", 2L), List.of("c", 4L));
        assertThat(warehouse.materialise(latest, new Recorded())).as("nothing new").isZero();
        assertThat(number(warehouse, "SELECT count(*) FROM analytics.latest")).isEqualTo(3);
        assertThat(warehouse.modelWatermark("latest", "orders")).isEqualTo(4);
    }

    @Test
    void anIncrementalModelWithoutAUniqueKeyAppends() throws SQLException {
        Warehouse warehouse = prepared();
        flush(warehouse, 1, 2);
        ModelOutput copy = sql("copy", Materialise.INCREMENTAL, "SELECT id FROM streams.orders", null);
        warehouse.materialise(copy, new Recorded());
        flush(warehouse, 3, 3);
        warehouse.materialise(copy, new Recorded());
        assertThat(select(warehouse, "SELECT id FROM analytics.copy ORDER BY id"))
                .containsExactly(List.of("o1"), List.of("o2"), List.of("o3"));
    }

    @Test
    void aJavaModelWritesInTheModelsTransactionWithItsDeltas() throws SQLException {
        Warehouse warehouse = prepared();
        flush(warehouse, 1, 3);
        List<Map<String, Delta>> seen = new ArrayList<>();
        ModelStore.JavaBody body = (connection, deltas) -> {
            seen.add(new LinkedHashMap<>(deltas));
            try (Statement statement = connection.createStatement()) {
                statement.execute("CREATE TABLE IF NOT EXISTS analytics.batches (through BIGINT)");
            }
            try (PreparedStatement insert = connection.prepareStatement("INSERT INTO analytics.batches VALUES (?)")) {
                insert.setLong(1, deltas.get("orders").throughOffset());
                insert.executeUpdate();
            }
            return 1;
        };
        ModelOutput batches = new ModelOutput(SCHEMA, "batches", Materialise.INCREMENTAL, null, null,
                List.of("orders"), body);
        assertThat(warehouse.materialise(batches, new Recorded())).isEqualTo(1);
        flush(warehouse, 4, 5);
        warehouse.materialise(batches, new Recorded());
        assertThat(seen).containsExactly(Map.of("orders", new Delta("orders", 0, 3)),
                Map.of("orders", new Delta("orders", 3, 5)));
        assertThat(select(warehouse, "SELECT through FROM analytics.batches ORDER BY through"))
                .containsExactly(List.of(3L), List.of(5L));
        assertThat(warehouse.modelWatermark("batches", "orders")).isEqualTo(5);

        ModelOutput table = new ModelOutput(SCHEMA, "whole", Materialise.TABLE, null, null, List.of("orders"),
                (connection, deltas) -> {
                    assertThat(deltas).as("only incremental models get deltas").isEmpty();
                    return 0;
                });
        warehouse.materialise(table, new Recorded());
        assertThat(warehouse.modelWatermark("whole", "orders")).isEqualTo(5);
    }

    @Test
    void aModelThatFailsBeforeItsCommitLeavesNeitherOutputNorWatermarks() throws SQLException {
        Warehouse warehouse = prepared();
        flush(warehouse, 1, 2);
        ModelOutput latest = sql("latest", Materialise.INCREMENTAL, "SELECT id, n FROM streams.orders", "id");
        Recorded failing = new Recorded();
        failing.failBeforeCommit = true;
        assertThatThrownBy(() -> warehouse.materialise(latest, failing)).isInstanceOf(IllegalStateException.class);
        assertThat(warehouse.modelExists(SCHEMA, "latest")).isFalse();
        assertThat(warehouse.modelWatermark("latest", "orders")).isZero();

        warehouse.materialise(latest, new Recorded());
        flush(warehouse, 3, 4);
        assertThatThrownBy(() -> warehouse.materialise(latest, failing)).isInstanceOf(IllegalStateException.class);
        assertThat(number(warehouse, "SELECT count(*) FROM analytics.latest")).as("the rows of the failed run are"
                + " not there").isEqualTo(2);
        assertThat(warehouse.modelWatermark("latest", "orders")).isEqualTo(2);
        assertThat(warehouse.materialise(latest, new Recorded())).as("the next run reads them again").isEqualTo(2);

        assertThatThrownBy(() -> warehouse.materialise(sql("broken", Materialise.TABLE,
                "SELECT no_such_column FROM streams.orders", null), new Recorded()))
                .as("a statement the database refuses").isInstanceOf(SQLException.class);
        assertThat(warehouse.modelExists(SCHEMA, "broken")).isFalse();
        assertThat(warehouse.modelWatermark("broken", "orders")).isZero();

        ModelOutput throwing = new ModelOutput(SCHEMA, "half", Materialise.TABLE, null, null, List.of("orders"),
                (connection, deltas) -> {
                    try (Statement statement = connection.createStatement()) {
                        statement.execute("CREATE TABLE analytics.half (n BIGINT)");
                    }
                    throw new SQLException("the model gave up half way");
                });
        assertThatThrownBy(() -> warehouse.materialise(throwing, new Recorded())).isInstanceOf(SQLException.class);
        assertThat(warehouse.modelExists(SCHEMA, "half")).isFalse();
        assertThat(warehouse.modelWatermark("half", "orders")).isZero();
    }

    @Test
    void isBehindStreamsComparesEachStreamItReads() throws SQLException {
        Warehouse warehouse = prepared();
        warehouse.prepare(CLICKS);
        flush(warehouse, 1, 1);
        ModelOutput both = new ModelOutput(SCHEMA, "both", Materialise.VIEW,
                "SELECT o.id FROM streams.orders o, streams.clicks c", null, List.of("orders", "clicks"), null);
        warehouse.materialise(both, new Recorded());
        assertThat(warehouse.modelWatermark("both", "clicks")).isZero();
        assertThat(warehouse.isBehindStreams("both", List.of("orders", "clicks"))).isFalse();
        warehouse.claim(Target.events("clicks"), 1);
        warehouse.append(CLICKS, Target.events("clicks"), 1, 0, 1, List.of(row(1, "/")), null);
        assertThat(warehouse.isBehindStreams("both", List.of("orders"))).isFalse();
        assertThat(warehouse.isBehindStreams("both", List.of("orders", "clicks"))).isTrue();
        assertThat(warehouse.isBehindStreams("both", List.of())).isFalse();
    }

    /** Records the steps a materialisation reports, and can fail at the last one. */
    private static final class Recorded implements ModelStore.Steps {
        final List<String> events = new ArrayList<>();
        boolean failBeforeCommit;

        @Override
        public void afterOutput(long rows) {
            events.add("afterOutput " + rows);
        }

        @Override
        public void beforeCommit() {
            if (failBeforeCommit) {
                throw new IllegalStateException("injected failure before the model's commit");
            }
            events.add("beforeCommit");
        }
    }
}
