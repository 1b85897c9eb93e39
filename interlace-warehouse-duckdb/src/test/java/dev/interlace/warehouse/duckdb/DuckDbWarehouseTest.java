package dev.interlace.warehouse.duckdb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.interlace.annotations.SchemaDrift;
import dev.interlace.runtime.flush.FlushListener;
import dev.interlace.runtime.sql.QueryResult;
import dev.interlace.runtime.stream.Column;
import dev.interlace.runtime.stream.ColumnType;
import dev.interlace.runtime.stream.StreamDescriptor;
import dev.interlace.runtime.warehouse.FlushRecord;
import dev.interlace.runtime.warehouse.StreamTables.Target;
import dev.interlace.runtime.warehouse.Warehouse;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What is particular to the DuckDB warehouse, on a real file: the DuckDB type of each column type, the migration
 * messages naming DuckDB types, the one file in the data directory. What every warehouse must do is in
 * {@link DuckDbWarehouseContractTest}.
 */
class DuckDbWarehouseTest {

    @TempDir
    Path dataDirectory;

    private static StreamDescriptor.Builder stream(String name) {
        return StreamDescriptor.builder(name)
                .schemaVersion("v1")
                .declaredBy("test." + name)
                .decoder(parser -> {
                    throw new UnsupportedOperationException("the warehouse gets typed rows, it never decodes");
                });
    }

    private static final StreamDescriptor EVERYTHING = stream("everything")
            .column(Column.of("id", ColumnType.STRING, true))
            .column(Column.of("n", ColumnType.BIGINT, false))
            .column(Column.of("x", ColumnType.DOUBLE, false))
            .column(Column.decimal("price", 12, 2, false))
            .column(Column.of("paid", ColumnType.BOOLEAN, false))
            .column(Column.of("at", ColumnType.TIMESTAMP, false))
            .column(Column.of("day", ColumnType.DATE, false))
            .column(Column.of("meta", ColumnType.JSON, false))
            .build();

    private static Warehouse.Row row(long offset, Object... values) {
        return new Warehouse.Row(offset, 1_764_403_200_000_000L + offset, "req-" + offset, Arrays.asList(values));
    }

    private static List<Warehouse.Row> rows(long from, long to) {
        List<Warehouse.Row> rows = new ArrayList<>();
        for (long offset = from; offset <= to; offset++) {
            rows.add(row(offset, "id-" + offset, offset, null, null, null, null, null, null));
        }
        return rows;
    }

    /** A flush record for appends whose record is not under test. */
    private static FlushRecord flushRecord() {
        return new FlushRecord("flush-test", Target.events("everything"), 1, 1, 1, 0, 0, null);
    }

    private static List<List<Object>> query(Warehouse warehouse, String sql) {
        return warehouse.query(sql, 1000, Duration.ofSeconds(30)).rows();
    }

    @Test
    void rowsLandWithTheirExactTypesAndTheWatermarkMovesWithThem() {
        try (Warehouse warehouse = new DuckDbWarehouseFactory().open(dataDirectory, FlushListener.NONE)) {
            assertThat(warehouse.prepare(EVERYTHING)).isEqualTo(new Warehouse.Positions(0, 0));
            long token = 1;
            warehouse.claim(Target.events("everything"), token);
            warehouse.append(EVERYTHING, Target.events("everything"), token, 0, 2, List.of(
                    row(1, "a", Long.MAX_VALUE, 0.5, new BigDecimal("1234567890.12"), true,
                            Instant.parse("2026-11-29T07:00:00.123456Z"), LocalDate.parse("2024-02-29"),
                            "{\"a\":[1,2.50]}"),
                    row(2, "b", null, null, null, null, null, null, null)), flushRecord());
            assertThat(warehouse.watermark(Target.events("everything"))).isEqualTo(2);
            QueryResult result = warehouse.query("SELECT * FROM streams.everything ORDER BY _offset", 10,
                    Duration.ofSeconds(30));
            assertThat(result.columns()).extracting(QueryResult.ResultColumn::type).containsExactly("VARCHAR",
                    "BIGINT", "DOUBLE", "DECIMAL(12,2)", "BOOLEAN", "TIMESTAMP", "DATE", "JSON", "BIGINT",
                    "TIMESTAMP", "VARCHAR");
            List<Object> first = result.rows().get(0);
            assertThat(first.subList(0, 7)).containsExactly("a", Long.MAX_VALUE, 0.5, new BigDecimal("1234567890.12"),
                    true, Instant.parse("2026-11-29T07:00:00.123456Z"), LocalDate.parse("2024-02-29"));
            assertThat(first.get(7).toString()).isEqualTo("{\"a\":[1,2.50]}");
            assertThat(first.get(8)).isEqualTo(1L);
            assertThat(first.get(10)).isEqualTo("req-1");
            assertThat(result.rows().get(1).subList(1, 8)).containsOnlyNulls();
        }
    }

    @Test
    void aBatchThatFailsOnAnErrorIsRolledBackWithItsWatermark() {
        FlushListener failing = new FlushListener() {
            @Override
            public void afterWatermarkUpdate(Target target, long newWatermark) {
                throw new AssertionError("an error, not an exception, half way through the batch");
            }
        };
        try (Warehouse warehouse = new DuckDbWarehouseFactory().open(dataDirectory, failing)) {
            warehouse.prepare(EVERYTHING);
            warehouse.claim(Target.events("everything"), 1);
            assertThatThrownBy(() -> warehouse.append(EVERYTHING, Target.events("everything"), 1, 0, 2, rows(1, 2),
                    flushRecord())).isInstanceOf(AssertionError.class);

            assertThat(warehouse.watermark(Target.events("everything"))).isZero();
            assertThat(query(warehouse, "SELECT count(*) FROM streams.everything")).containsExactly(List.of(0L));
        }
    }

    @Test
    void aNewNullableColumnIsAddedAtStartUp() {
        StreamDescriptor before = stream("orders").column(Column.of("id", ColumnType.STRING, true)).build();
        StreamDescriptor after = stream("orders").column(Column.of("id", ColumnType.STRING, true))
                .column(Column.decimal("total", 10, 2, false)).build();
        try (Warehouse warehouse = new DuckDbWarehouseFactory().open(dataDirectory, FlushListener.NONE)) {
            warehouse.prepare(before);
        }
        try (Warehouse warehouse = new DuckDbWarehouseFactory().open(dataDirectory, FlushListener.NONE)) {
            warehouse.prepare(after);
            assertThat(query(warehouse, "SELECT column_name, data_type FROM information_schema.columns"
                    + " WHERE table_schema = 'streams' AND table_name = 'orders' ORDER BY ordinal_position"))
                    .extracting(r -> r.get(0) + " " + r.get(1))
                    .containsExactly("id VARCHAR", "_offset BIGINT", "_ingested_at TIMESTAMP",
                            "_request_id VARCHAR", "total DECIMAL(10,2)");
        }
    }

    @Test
    void anyOtherSchemaChangeStopsStartUpSayingWhatChangedAndWhatToDo() {
        StreamDescriptor before = stream("orders").column(Column.of("id", ColumnType.STRING, true))
                .column(Column.of("n", ColumnType.BIGINT, false)).build();
        try (Warehouse warehouse = new DuckDbWarehouseFactory().open(dataDirectory, FlushListener.NONE)) {
            warehouse.prepare(before);
        }
        StreamDescriptor retyped = stream("orders").column(Column.of("id", ColumnType.STRING, true))
                .column(Column.of("n", ColumnType.STRING, false)).build();
        StreamDescriptor removed = stream("orders").column(Column.of("id", ColumnType.STRING, true)).build();
        StreamDescriptor requiredAdded = stream("orders").column(Column.of("id", ColumnType.STRING, true))
                .column(Column.of("n", ColumnType.BIGINT, false)).column(Column.of("m", ColumnType.BIGINT, true))
                .build();
        try (Warehouse warehouse = new DuckDbWarehouseFactory().open(dataDirectory, FlushListener.NONE)) {
            assertThatThrownBy(() -> warehouse.prepare(retyped)).isInstanceOf(Warehouse.MigrationException.class)
                    .hasMessageContaining("column n changed type from BIGINT to VARCHAR");
            assertThatThrownBy(() -> warehouse.prepare(removed)).isInstanceOf(Warehouse.MigrationException.class)
                    .hasMessageContaining("column n is in streams.orders but no longer declared");
            assertThatThrownBy(() -> warehouse.prepare(requiredAdded))
                    .isInstanceOf(Warehouse.MigrationException.class)
                    .hasMessageContaining("column m is new and declared not null")
                    .hasMessageContaining("declare it nullable");
        }
    }

    @Test
    void theWarehouseIsOneDuckDbFileInTheDataDirectoryThatPlainDuckDbReads() throws Exception {
        try (Warehouse warehouse = new DuckDbWarehouseFactory().open(dataDirectory, FlushListener.NONE)) {
            warehouse.prepare(EVERYTHING);
            warehouse.claim(Target.events("everything"), 1);
            warehouse.append(EVERYTHING, Target.events("everything"), 1, 0, 2, rows(1, 2), flushRecord());
        }
        Path file = dataDirectory.resolve("warehouse.duckdb");
        assertThat(file).isRegularFile();
        try (Connection connection = DriverManager.getConnection("jdbc:duckdb:" + file);
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT count(*), max(_offset) FROM streams.everything")) {
            assertThat(rows.next()).isTrue();
            assertThat(List.of(rows.getLong(1), rows.getLong(2))).containsExactly(2L, 2L);
        }
    }

    @Test
    void evolvedColumnsHaveTheirDuckDbTypes() {
        StreamDescriptor devices = stream("devices").onSchemaDrift(SchemaDrift.EVOLVE)
                .column(Column.of("id", ColumnType.STRING, true)).build();
        try (Warehouse warehouse = new DuckDbWarehouseFactory().open(dataDirectory, FlushListener.NONE)) {
            warehouse.prepare(devices);
            warehouse.claim(Target.events("devices"), 1);
            warehouse.append(devices, Target.events("devices"), 1, 0, 2, List.of(
                    new Warehouse.Row(1, 1, "req-1", List.of("a"), Map.of("level", "1", "tags", "[1]", "on", "true")),
                    new Warehouse.Row(2, 2, "req-2", List.of("b"), Map.of("level", "\"high\""))), null);
            assertThat(query(warehouse, "SELECT column_name, data_type FROM information_schema.columns"
                    + " WHERE table_schema = 'streams' AND table_name = 'devices' AND column_name IN"
                    + " ('level', 'tags', 'on') ORDER BY column_name")).extracting(r -> r.get(0) + " " + r.get(1))
                    .containsExactly("level VARCHAR", "on BOOLEAN", "tags JSON");
        }
    }
}
