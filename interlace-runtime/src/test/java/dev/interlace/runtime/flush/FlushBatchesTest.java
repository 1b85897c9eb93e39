package dev.interlace.runtime.flush;

import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.runtime.log.CommitListener;
import dev.interlace.runtime.log.LogSettings;
import dev.interlace.runtime.log.OrdersFixture;
import dev.interlace.runtime.log.SqliteStreamLog;
import dev.interlace.runtime.warehouse.Warehouse;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A flush batch on a real SQLite log holding {@code {"id": "k1"}} to {@code {"id": "k10"}} at offsets 1 to 10: the events kept in memory are taken as they are, and only those memory does not
 * hold are read from the log and decoded again.
 */
class FlushBatchesTest {

    @TempDir
    Path dataDirectory;

    private SqliteStreamLog log;
    private final RecentEvents recent = new RecentEvents(1_000, 1 << 20);

    @BeforeEach
    void appendTenEvents() throws Exception {
        log = new SqliteStreamLog(dataDirectory, LogSettings.defaults(1_000_000), OrdersFixture.NOTHING_MATERIALISED,
                CommitListener.NONE, Clock.systemUTC());
        log.register(OrdersFixture.ORDERS);
        for (int i = 1; i <= 10; i++) {
            log.append(OrdersFixture.request(1_000L * i, "k" + i)).get();
        }
    }

    @AfterEach
    void close() {
        log.close();
    }

    /** Rows for offsets {@code first..last} as a publisher hands them over: their id says they came from memory. */
    private static List<Warehouse.Row> kept(long first, long last) {
        return LongStream.rangeClosed(first, last)
                .mapToObj(offset -> new Warehouse.Row(offset, 1_000L * offset, "req-" + offset,
                        List.of("kept-" + offset)))
                .toList();
    }

    private static List<Object> ids(FlushBatches.Batch batch) {
        return batch.rows().stream().map(row -> row.values().get(0)).toList();
    }

    @Test
    void readsFromTheLogOnlyTheEventsMissingBetweenThoseKept() {
        recent.add("orders", kept(1, 3), 0);
        recent.add("orders", kept(6, 10), 0); // offsets 4 and 5: their publishers have not handed them over yet

        try (FlushBatches batches = new FlushBatches(log, recent, 100, 1 << 20)) {
            FlushBatches.Batch batch = batches.events(OrdersFixture.ORDERS, 0, false);

            assertThat(ids(batch)).containsExactly("kept-1", "kept-2", "kept-3", "k4", "k5", "kept-6", "kept-7",
                    "kept-8", "kept-9", "kept-10");
            assertThat(batch.rowsFromLog()).isEqualTo(2);
            assertThat(batch.newWatermark()).isEqualTo(10);
            assertThat(batch.full()).isFalse();
        }
    }

    @Test
    void readsToTheHeadWhenMemoryHoldsNothingAfterTheGap() {
        recent.add("orders", kept(1, 3), 0);

        try (FlushBatches batches = new FlushBatches(log, recent, 100, 1 << 20)) {
            FlushBatches.Batch batch = batches.events(OrdersFixture.ORDERS, 0, false);

            assertThat(ids(batch)).containsExactly("kept-1", "kept-2", "kept-3", "k4", "k5", "k6", "k7", "k8", "k9",
                    "k10");
            assertThat(batch.rowsFromLog()).isEqualTo(7);
        }
    }

    @Test
    void aBatchEndsAtItsRowsWhereverTheyComeFrom() {
        recent.add("orders", kept(2, 3), 0);
        recent.add("orders", kept(5, 10), 0);

        try (FlushBatches batches = new FlushBatches(log, recent, 6, 1 << 20)) {
            FlushBatches.Batch first = batches.events(OrdersFixture.ORDERS, 0, false);
            assertThat(ids(first)).containsExactly("k1", "kept-2", "kept-3", "k4", "kept-5", "kept-6");
            assertThat(first.rowsFromLog()).isEqualTo(2);
            assertThat(first.full()).isTrue();

            FlushBatches.Batch second = batches.events(OrdersFixture.ORDERS, first.newWatermark(), true);
            assertThat(ids(second)).containsExactly("kept-7", "kept-8", "kept-9", "kept-10");
            assertThat(second.rowsFromLog()).isZero();
        }
    }
}
