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
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The DuckDB warehouse on a real file: tables, exact types, atomic rows plus watermark, fencing, migration. */
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
    void anAppendWithAStaleWatermarkOrTokenWritesNothing() {
        try (Warehouse warehouse = new DuckDbWarehouseFactory().open(dataDirectory, FlushListener.NONE)) {
            warehouse.prepare(EVERYTHING);
            Target target = Target.events("everything");
            long first = 1;
            assertThat(warehouse.claim(target, first)).as("the committed watermark").isZero();
            warehouse.append(EVERYTHING, target, first, 0, 3, rows(1, 3), flushRecord());
            assertThatThrownBy(() -> warehouse.append(EVERYTHING, target, first, 0, 3, rows(1, 3), flushRecord()))
                    .isInstanceOf(Warehouse.FencedException.class);
            long second = 2;
            assertThat(warehouse.claim(target, second)).as("the committed watermark").isEqualTo(3);
            assertThatThrownBy(() -> warehouse.append(EVERYTHING, target, first, 3, 4, rows(4, 4), flushRecord()))
                    .isInstanceOf(Warehouse.FencedException.class);
            assertThatThrownBy(() -> warehouse.claim(target, first)).as("an older token cannot claim back")
                    .isInstanceOf(Warehouse.FencedException.class).hasMessageContaining("fencing token 2");
            assertThat(warehouse.claim(target, second)).as("the holder may claim again").isEqualTo(3);
            warehouse.append(EVERYTHING, target, second, 3, 4, rows(4, 4), flushRecord());
            assertThat(query(warehouse, "SELECT count(*), count(DISTINCT _offset), max(_offset)"
                    + " FROM streams.everything").get(0)).containsExactly(4L, 4L, 4L);
        }
    }

    @Test
    void aFailureAfterTheAppenderWroteRowsRollsBackRowsAndWatermarkTogether() {
        AtomicBoolean fail = new AtomicBoolean(true);
        FlushListener failing = new FlushListener() {
            @Override
            public void beforeCommit(Target target, long newWatermark, int rows) {
                if (fail.get()) {
                    throw new IllegalStateException("crash between the Appender and the commit");
                }
            }
        };
        try (Warehouse warehouse = new DuckDbWarehouseFactory().open(dataDirectory, failing)) {
            warehouse.prepare(EVERYTHING);
            Target target = Target.events("everything");
            long token = 1;
            warehouse.claim(target, token);
            assertThatThrownBy(() -> warehouse.append(EVERYTHING, target, token, 0, 5, rows(1, 5), flushRecord()))
                    .isInstanceOf(Warehouse.WarehouseException.class);
            assertThat(warehouse.watermark(target)).isZero();
            assertThat(query(warehouse, "SELECT count(*) FROM streams.everything").get(0)).containsExactly(0L);
            fail.set(false);
            warehouse.append(EVERYTHING, target, token, 0, 5, rows(1, 5), flushRecord());
            assertThat(query(warehouse, "SELECT count(*) FROM streams.everything").get(0)).containsExactly(5L);
        }
    }

    @Test
    void aFlushRecordCommitsWithItsBatchOrNotAtAll() {
        AtomicBoolean fail = new AtomicBoolean(true);
        FlushListener failing = new FlushListener() {
            @Override
            public void beforeCommit(Target target, long newWatermark, int rows) {
                if (fail.get()) {
                    throw new IllegalStateException("crash before the commit");
                }
            }
        };
        try (Warehouse warehouse = new DuckDbWarehouseFactory().open(dataDirectory, failing)) {
            warehouse.prepare(EVERYTHING);
            Target target = Target.events("everything");
            warehouse.claim(target, 1);
            FlushRecord failed = new FlushRecord("flush-a", Target.events("everything"), 1, 3, 3, 1_000_000, 0, null);
            assertThatThrownBy(() -> warehouse.append(EVERYTHING, target, 1, 0, 3, rows(1, 3), failed))
                    .isInstanceOf(Warehouse.WarehouseException.class);
            FlushRecord.Filter all = new FlushRecord.Filter(Target.events("everything"), 1, 100, 10);
            assertThat(warehouse.flushes(all).total()).as("no record of a rolled-back batch").isZero();
            warehouse.recordFailedFlush(new FlushRecord("flush-a", Target.events("everything"), 1, 3, 3, 1_000_000, 0,
                    "crash before the commit"));
            fail.set(false);
            warehouse.append(EVERYTHING, target, 1, 0, 3, rows(1, 3),
                    new FlushRecord("flush-b", Target.events("everything"), 1, 3, 3, 2_000_000, 0, null));
            warehouse.append(EVERYTHING, target, 1, 3, 5, rows(4, 5),
                    new FlushRecord("flush-c", Target.events("everything"), 4, 5, 2, 3_000_000, 0, null));

            FlushRecord.Page page = warehouse.flushes(all);
            assertThat(page.records()).extracting(FlushRecord::id).containsExactly("flush-a", "flush-b", "flush-c");
            assertThat(page.records().get(0).error()).isEqualTo("crash before the commit");
            assertThat(page.records().get(0).committedAtMicros()).isZero();
            assertThat(page.records().get(1).committedAtMicros()).isPositive();
            assertThat(page.records().get(2).rows()).isEqualTo(2);
            assertThat(warehouse.flushes(new FlushRecord.Filter(Target.events("everything"), 5, 5, 10)).records())
                    .extracting(FlushRecord::id).as("flushes covering offset 5").containsExactly("flush-c");
            assertThat(warehouse.trimFlushes(2_500_000)).as("records started before the cut").isEqualTo(2);
            assertThat(warehouse.flushes(all).records()).extracting(FlushRecord::id).containsExactly("flush-c");
        }
    }

    @Test
    void watermarksAndRowsSurviveReopening() {
        try (Warehouse warehouse = new DuckDbWarehouseFactory().open(dataDirectory, FlushListener.NONE)) {
            warehouse.prepare(EVERYTHING);
            long token = 1;
            warehouse.claim(Target.events("everything"), token);
            warehouse.append(EVERYTHING, Target.events("everything"), token, 0, 3, rows(1, 3), flushRecord());
        }
        try (Warehouse warehouse = new DuckDbWarehouseFactory().open(dataDirectory, FlushListener.NONE)) {
            assertThat(warehouse.prepare(EVERYTHING)).isEqualTo(new Warehouse.Positions(3, 0));
            assertThat(query(warehouse, "SELECT count(*) FROM streams.everything").get(0)).containsExactly(3L);
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
    void evolvingStreamsMayHaveColumnsTheCodeDoesNotDeclare() {
        StreamDescriptor before = stream("devices").onSchemaDrift(SchemaDrift.EVOLVE)
                .column(Column.of("id", ColumnType.STRING, true)).column(Column.of("extra", ColumnType.BIGINT, false))
                .build();
        StreamDescriptor after = stream("devices").onSchemaDrift(SchemaDrift.EVOLVE)
                .column(Column.of("id", ColumnType.STRING, true)).build();
        try (Warehouse warehouse = new DuckDbWarehouseFactory().open(dataDirectory, FlushListener.NONE)) {
            warehouse.prepare(before);
            warehouse.prepare(after); // the code no longer declares "extra": start-up must accept that, not fail
            List<List<Object>> columns = warehouse.query("SELECT column_name, data_type FROM information_schema.columns"
                    + " WHERE table_schema = 'streams' AND table_name = 'devices' ORDER BY ordinal_position", 100,
                    Duration.ofSeconds(30)).rows();
            assertThat(columns.stream().map(row -> row.get(0)).toList()).as("the undeclared column and its data stay")
                    .contains("id", "extra");
            assertThat(columns.stream().filter(row -> row.get(0).equals("extra")).findFirst().orElseThrow().get(1))
                    .isEqualTo("BIGINT");
            assertThat(warehouse.evolvedColumns("devices")).containsKey("extra");
        }
    }
}
