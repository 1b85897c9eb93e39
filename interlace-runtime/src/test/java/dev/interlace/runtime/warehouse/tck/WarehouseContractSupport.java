package dev.interlace.runtime.warehouse.tck;

import dev.interlace.annotations.SchemaDrift;
import dev.interlace.runtime.flush.FlushListener;
import dev.interlace.runtime.stream.Column;
import dev.interlace.runtime.stream.ColumnType;
import dev.interlace.runtime.stream.StreamDescriptor;
import dev.interlace.runtime.warehouse.FlushRecord;
import dev.interlace.runtime.warehouse.StreamTables.Row;
import dev.interlace.runtime.warehouse.StreamTables.Target;
import dev.interlace.runtime.warehouse.Warehouse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the warehouse conformance suites share: the streams they prepare, a fresh data directory per test, the
 * warehouses they opened (closed after each test) and helpers to append rows and read them back.
 *
 * <p>A backend does not extend this class directly: it extends {@link WarehouseContract}, which runs the suite of each
 * concern against the warehouses its {@link #openWarehouse} returns. The suites read what was written through
 * {@link Warehouse#query} (stream tables are {@code streams.<name>} with the bookkeeping columns {@code _offset},
 * {@code _ingested_at} and {@code _request_id}), so they see what a user of {@code POST /sql} sees.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
public abstract class WarehouseContractSupport {

    /** Two declared columns: {@code id} (string, not null) and {@code n} (bigint, nullable). */
    protected static final StreamDescriptor ORDERS = stream("orders", SchemaDrift.REJECT,
            Column.of("id", ColumnType.STRING, true), Column.of("n", ColumnType.BIGINT, false));
    /** One declared column, {@code url}. */
    protected static final StreamDescriptor CLICKS = stream("clicks", SchemaDrift.REJECT,
            Column.of("url", ColumnType.STRING, true));
    /** An evolving stream: undeclared fields become columns. */
    protected static final StreamDescriptor DEVICES = stream("devices", SchemaDrift.EVOLVE,
            Column.of("id", ColumnType.STRING, true));

    /** Arrival time of offset 0 in the rows the helpers build (2025-11-29T08:00:00Z), in epoch microseconds. */
    protected static final long EPOCH = 1_764_403_200_000_000L;
    protected static final Duration QUERY_TIMEOUT = Duration.ofSeconds(30);

    /** Opens (creating if needed) the warehouse kept under {@code dataDirectory}; see {@link WarehouseContract}. */
    protected abstract Warehouse openWarehouse(Path dataDirectory, FlushListener listener);

    @TempDir
    protected Path dataDirectory;

    private final List<Warehouse> opened = new CopyOnWriteArrayList<>();
    private final AtomicInteger flushIds = new AtomicInteger();

    @AfterEach
    void closeEveryOpenedWarehouse() {
        for (Warehouse warehouse : opened) {
            warehouse.close();
        }
        opened.clear();
    }

    // ================================================================== opening

    /** Opens the warehouse on {@link #dataDirectory} without a listener. */
    protected final Warehouse open() {
        return open(FlushListener.NONE);
    }

    /** Opens the warehouse on {@link #dataDirectory}, telling {@code listener} of each flush's steps. */
    protected final Warehouse open(FlushListener listener) {
        Warehouse warehouse = openWarehouse(dataDirectory, listener);
        opened.add(warehouse);
        return warehouse;
    }

    /** Closes {@code warehouse} and opens the same directory again (without a listener). */
    protected final Warehouse reopen(Warehouse warehouse) {
        opened.remove(warehouse);
        warehouse.close();
        return open();
    }

    // ================================================================== streams and rows

    protected static StreamDescriptor stream(String name, SchemaDrift drift, Column... columns) {
        StreamDescriptor.Builder builder = StreamDescriptor.builder(name)
                .schemaVersion("v1-" + name)
                .declaredBy("dev.interlace.runtime.warehouse.tck." + name)
                .onSchemaDrift(drift)
                .decoder(parser -> {
                    throw new UnsupportedOperationException("the warehouse gets typed rows, it never decodes");
                });
        for (Column column : columns) {
            builder.column(column);
        }
        return builder.build();
    }

    /** A row of {@code offset} with the given declared values, arriving {@code offset} microseconds after EPOCH. */
    protected static Row row(long offset, Object... values) {
        return new Row(offset, EPOCH + offset, "req-" + offset, Arrays.asList(values));
    }

    /** Rows of {@link #ORDERS} for offsets {@code from..to}: {@code id = "o<offset>"}, {@code n = offset}. */
    protected static List<Row> orders(long from, long to) {
        List<Row> rows = new ArrayList<>();
        for (long offset = from; offset <= to; offset++) {
            rows.add(row(offset, "o" + offset, offset));
        }
        return rows;
    }

    /** A quarantine row: the payload text and its errors as JSON text. */
    protected static Row quarantined(long seq, String payload) {
        return new Row(seq, EPOCH + seq, "req-q" + seq, List.of(payload,
                "[{\"field\":\"id\",\"error\":\"is not a string\"}]"));
    }

    /** A row of an evolving stream with undeclared fields (name to JSON text). */
    protected static Row evolving(long offset, String id, Map<String, String> undeclared) {
        return new Row(offset, EPOCH + offset, "req-" + offset, List.of(id), undeclared);
    }

    /** A fresh flush record of {@code target} for a batch {@code first..last} started at {@code startedAtMicros}. */
    protected final FlushRecord flushRecord(Target target, long first, long last, long startedAtMicros) {
        return new FlushRecord("flush-" + flushIds.incrementAndGet(), target, first, last, last - first + 1,
                startedAtMicros, 0, null);
    }

    /** Prepares {@code stream}, claims its events with token 1 and appends {@code rows} after watermark 0. */
    protected final void fill(Warehouse warehouse, StreamDescriptor stream, List<Row> rows) {
        warehouse.prepare(stream);
        Target target = Target.events(stream.name());
        long watermark = warehouse.claim(target, 1);
        long last = rows.get(rows.size() - 1).offset();
        warehouse.append(stream, target, 1, watermark, last, rows,
                flushRecord(target, rows.get(0).offset(), last, EPOCH));
    }

    // ================================================================== reading back

    /** The rows of a query, through the warehouse's read-only query path. */
    protected static List<List<Object>> select(Warehouse warehouse, String sql) {
        return warehouse.query(sql, 10_000, QUERY_TIMEOUT).rows();
    }

    /** The single number a {@code SELECT count(*) ...} (or any one-value query) answers. */
    protected static long number(Warehouse warehouse, String sql) {
        return ((Number) select(warehouse, sql).get(0).get(0)).longValue();
    }

    /** How many rows {@code streams.<table>} has. */
    protected static long count(Warehouse warehouse, String table) {
        return number(warehouse, "SELECT count(*) FROM streams." + table);
    }

    /** The flush records of {@code target} over every offset. */
    protected static FlushRecord.Page allFlushes(Warehouse warehouse, Target target) {
        return warehouse.flushes(new FlushRecord.Filter(target, 0, Long.MAX_VALUE, 1_000));
    }

    /** A listener that throws at the step named, while {@code armed}. */
    protected static final class FailingListener implements FlushListener {
        volatile boolean armed = true;
        private final boolean afterWatermarkUpdate;

        /** @param afterWatermarkUpdate fail right after the watermark compare-and-set; else just before the commit */
        FailingListener(boolean afterWatermarkUpdate) {
            this.afterWatermarkUpdate = afterWatermarkUpdate;
        }

        @Override
        public void afterWatermarkUpdate(Target target, long newWatermark) {
            if (armed && afterWatermarkUpdate) {
                throw new IllegalStateException("injected failure after the watermark update");
            }
        }

        @Override
        public void beforeCommit(Target target, long newWatermark, int rows) {
            if (armed && !afterWatermarkUpdate) {
                throw new IllegalStateException("injected failure before the commit");
            }
        }
    }
}
