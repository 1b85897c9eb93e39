package dev.interlace.warehouse.duckdb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.interlace.annotations.Materialise;
import dev.interlace.runtime.flush.FlushListener;
import dev.interlace.runtime.model.ModelDefinition;
import dev.interlace.runtime.model.ModelException;
import dev.interlace.runtime.model.ModelGraph;
import dev.interlace.runtime.warehouse.Warehouse;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Model dependencies come from DuckDB's parser; the graph is checked for unknown tables and cycles. */
class ModelGraphTest {

    private static final Set<String> STREAMS = Set.of("orders", "clicks");

    @TempDir
    Path dataDirectory;

    private Warehouse warehouse;

    @BeforeEach
    void open() {
        warehouse = new DuckDbWarehouseFactory().open(dataDirectory, FlushListener.NONE);
    }

    @AfterEach
    void close() {
        warehouse.close();
    }

    private static ModelDefinition model(String name, String sql) {
        return ModelDefinition.sql(name, "main", Materialise.TABLE, null, sql, "models/" + name + ".sql");
    }

    @Test
    void dependenciesComeFromJoinsCtesSubqueriesAndQualifiedOrBareNames() {
        ModelGraph graph = ModelGraph.build(List.of(
                model("daily", "SELECT * FROM streams.orders"),
                model("joined", "WITH recent AS (SELECT * FROM streams.clicks WHERE \"at\" > now() - INTERVAL 1 DAY)"
                        + " SELECT * FROM recent r JOIN main.daily d ON true"
                        + " WHERE r.url IN (SELECT url FROM streams.clicks)"),
                model("top", "SELECT * FROM (SELECT * FROM joined) j, daily")), STREAMS, warehouse);
        assertThat(graph.streamsReadBy("daily")).containsExactly("orders");
        assertThat(graph.streamsReadBy("joined")).containsExactly("clicks");
        assertThat(graph.modelsReadBy("joined")).containsExactly("daily");
        assertThat(graph.modelsReadBy("top")).containsExactly("daily", "joined");
        assertThat(graph.inOrder()).extracting(ModelDefinition::name).containsExactly("daily", "joined", "top");
        assertThat(graph.affectedByStream("orders")).containsExactlyInAnyOrder("daily", "joined", "top");
        assertThat(graph.affectedByStream("clicks")).containsExactlyInAnyOrder("joined", "top");
        assertThat(graph.withDependants("joined")).containsExactlyInAnyOrder("joined", "top");
    }

    @Test
    void anUnknownTableStopsStartUpNamingWhatCanBeRead() {
        assertThatThrownBy(() -> ModelGraph.build(List.of(model("bad", "SELECT * FROM streams.payments")), STREAMS,
                warehouse)).isInstanceOf(ModelException.class)
                .hasMessageContaining("models/bad.sql: model bad reads unknown table streams.payments")
                .hasMessageContaining("it can read streams.clicks, streams.orders, main.bad");
        assertThatThrownBy(() -> ModelGraph.build(List.of(model("bad", "SELECT * FROM nowhere")), STREAMS,
                warehouse)).hasMessageContaining("reads unknown table nowhere");
    }

    @Test
    void aCycleStopsStartUpNamingTheModelsOnIt() {
        assertThatThrownBy(() -> ModelGraph.build(List.of(
                model("a", "SELECT * FROM b"),
                model("b", "SELECT * FROM c"),
                model("c", "SELECT * FROM a JOIN streams.orders ON true"),
                model("d", "SELECT * FROM streams.orders")), STREAMS, warehouse))
                .isInstanceOf(ModelException.class)
                .hasMessage("models form a cycle: a -> b -> c -> a");
    }

    @Test
    void sqlThatDoesNotParseOrIsNotASelectIsRefused() {
        assertThatThrownBy(() -> ModelGraph.build(List.of(model("bad", "SELEC 1")), STREAMS, warehouse))
                .hasMessageContaining("the SQL of model bad does not parse");
        assertThatThrownBy(() -> ModelGraph.build(List.of(model("bad", "DELETE FROM streams.orders")), STREAMS,
                warehouse)).hasMessageContaining("does not parse");
    }

    @Test
    void javaModelsDeclareWhatTheyReadAndJoinTheSameGraph() {
        ModelDefinition java = ModelDefinition.java("scored", Materialise.TABLE, null,
                List.of("streams.orders", "daily"), context -> 0, "test.Scored");
        ModelGraph graph = ModelGraph.build(List.of(model("daily", "SELECT * FROM streams.orders"), java,
                model("top", "SELECT * FROM scored")), STREAMS, warehouse);
        assertThat(graph.inOrder()).extracting(ModelDefinition::name).containsExactly("daily", "scored", "top");
        assertThat(graph.streamsReadBy("scored")).containsExactly("orders");
        assertThatThrownBy(() -> ModelGraph.build(List.of(ModelDefinition.java("bad", Materialise.TABLE, null,
                List.of("streams.payments"), context -> 0, "test.Bad")), STREAMS, warehouse))
                .hasMessageContaining("test.Bad: model bad reads unknown table streams.payments");
    }

    @Test
    void anIncrementalModelMustReadAStream() {
        ModelDefinition incremental = ModelDefinition.sql("inc", "main", Materialise.INCREMENTAL, null,
                "SELECT 1 AS x", "models/inc.sql");
        assertThatThrownBy(() -> ModelGraph.build(List.of(incremental), STREAMS, warehouse))
                .hasMessageContaining("incremental model inc reads no stream");
    }

    @Test
    void streamReferencesCanBeRewrittenToOtherRelationsByTheParser() {
        String rewritten = warehouse.replaceTables("SELECT o.total, orders.order_id FROM streams.orders o,"
                + " streams.orders WHERE o._offset > 0", Map.of("streams.orders", "delta_orders"));
        assertThat(rewritten).contains("delta_orders AS o").contains("delta_orders AS orders")
                .doesNotContain("streams.orders");
    }
}
