package dev.interlace.runtime.warehouse.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.runtime.ops.TraceIds;
import dev.interlace.runtime.warehouse.FlushRecord;
import dev.interlace.runtime.warehouse.FlushRecords;
import dev.interlace.runtime.warehouse.StreamTables.Target;
import dev.interlace.runtime.warehouse.Warehouse;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The conformance suite of {@link FlushRecords}: the record of every flush batch written or failed.
 *
 * <p>It specifies that failed attempts are recorded with their error and no commit time; that a page lists the
 * records of one target covering part of an offset range (inclusive at both ends), oldest first, with how many match
 * in all; that a record keeps its trace ids and their count; that trimming removes exactly the records started before the cut; and that records are durable.
 *
 * <p>Run it through {@link WarehouseContract}, which a backend extends; it is abstract so that it runs only there.
 */
public abstract class FlushRecordsContract extends WarehouseContractSupport {

    private static final Target ORDER_EVENTS = Target.events("orders");

    @Test
    void aFailedAttemptIsRecordedWithItsErrorAndNoCommitTime() {
        Warehouse warehouse = open();
        warehouse.prepare(ORDERS);
        warehouse.recordFailedFlush(new FlushRecord("flush-failed", ORDER_EVENTS, 1, 4, 4, EPOCH, 0,
                "the disk is full"));
        FlushRecord.Page page = allFlushes(warehouse, ORDER_EVENTS);
        assertThat(page.total()).isEqualTo(1);
        FlushRecord stored = page.records().get(0);
        assertThat(stored).isEqualTo(new FlushRecord("flush-failed", ORDER_EVENTS, 1, 4, 4, EPOCH, 0,
                "the disk is full"));
        assertThat(stored.committed()).isFalse();
        assertThat(warehouse.watermark(ORDER_EVENTS)).as("a record is not a flush").isZero();
    }

    @Test
    void pagesAreOldestFirstWithTheTotalAndTheLimit() {
        Warehouse warehouse = open();
        warehouse.prepare(ORDERS);
        warehouse.claim(ORDER_EVENTS, 1);
        warehouse.recordFailedFlush(new FlushRecord("flush-a", ORDER_EVENTS, 1, 3, 3, EPOCH + 1_000, 0, "boom"));
        warehouse.append(ORDERS, ORDER_EVENTS, 1, 0, 3, orders(1, 3),
                new FlushRecord("flush-b", ORDER_EVENTS, 1, 3, 3, EPOCH + 2_000, 0, null));
        warehouse.append(ORDERS, ORDER_EVENTS, 1, 3, 5, orders(4, 5),
                new FlushRecord("flush-c", ORDER_EVENTS, 4, 5, 2, EPOCH + 3_000, 0, null));

        FlushRecord.Page all = allFlushes(warehouse, ORDER_EVENTS);
        assertThat(all.records()).extracting(FlushRecord::id).containsExactly("flush-a", "flush-b", "flush-c");
        assertThat(all.records()).extracting(FlushRecord::committed).containsExactly(false, true, true);
        assertThat(all.records().get(0).error()).isEqualTo("boom");
        assertThat(all.total()).isEqualTo(3);

        FlushRecord.Page limited = warehouse.flushes(new FlushRecord.Filter(ORDER_EVENTS, 0, Long.MAX_VALUE, 2));
        assertThat(limited.records()).extracting(FlushRecord::id).containsExactly("flush-a", "flush-b");
        assertThat(limited.total()).as("how many match in all").isEqualTo(3);
    }

    @Test
    void aRecordKeepsItsTraceIdsAndTheirCount() {
        Warehouse warehouse = open();
        warehouse.prepare(ORDERS);
        warehouse.claim(ORDER_EVENTS, 1);
        TraceIds traces = new TraceIds(List.of("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b700f067aa0ba902b7"),
                40);
        warehouse.append(ORDERS, ORDER_EVENTS, 1, 0, 3, orders(1, 3),
                new FlushRecord("flush-traced", ORDER_EVENTS, 1, 3, 3, EPOCH, 0, null, traces));
        warehouse.append(ORDERS, ORDER_EVENTS, 1, 3, 4, orders(4, 4),
                new FlushRecord("flush-untraced", ORDER_EVENTS, 4, 4, 1, EPOCH + 1, 0, null));

        FlushRecord.Page page = allFlushes(reopen(warehouse), ORDER_EVENTS);
        assertThat(page.records()).extracting(FlushRecord::traces).as("durable")
                .containsExactly(traces, TraceIds.NONE);
    }

    @Test
    void aRangeMatchesTheRecordsThatOverlapItInclusive() {
        Warehouse warehouse = open();
        warehouse.prepare(ORDERS);
        recordFailedFlush(warehouse, "flush-1-3", ORDER_EVENTS, 1, 3, 3, EPOCH + 1);
        recordFailedFlush(warehouse, "flush-4-5", ORDER_EVENTS, 4, 5, 2, EPOCH + 2);
        recordFailedFlush(warehouse, "flush-6-9", ORDER_EVENTS, 6, 9, 4, EPOCH + 3);

        assertThat(ids(warehouse, ORDER_EVENTS, 3, 4)).containsExactly("flush-1-3", "flush-4-5");
        assertThat(ids(warehouse, ORDER_EVENTS, 5, 5)).containsExactly("flush-4-5");
        assertThat(ids(warehouse, ORDER_EVENTS, 9, 100)).containsExactly("flush-6-9");
        assertThat(ids(warehouse, ORDER_EVENTS, 2, 7)).containsExactly("flush-1-3", "flush-4-5", "flush-6-9");
        assertThat(ids(warehouse, ORDER_EVENTS, 10, 20)).isEmpty();
        assertThat(warehouse.flushes(new FlushRecord.Filter(ORDER_EVENTS, 10, 20, 10)).total()).isZero();
    }

    @Test
    void recordsOfOtherTargetsAreNotListed() {
        Warehouse warehouse = open();
        warehouse.prepare(ORDERS);
        warehouse.prepare(CLICKS);
        recordFailedFlush(warehouse, "flush-events", ORDER_EVENTS, 1, 3, 3, EPOCH);
        recordFailedFlush(warehouse, "flush-quarantine", Target.quarantine("orders"), 1, 3, 3, EPOCH);
        recordFailedFlush(warehouse, "flush-clicks", Target.events("clicks"), 1, 3, 3, EPOCH);

        assertThat(ids(warehouse, ORDER_EVENTS, 1, 3)).containsExactly("flush-events");
        assertThat(ids(warehouse, Target.quarantine("orders"), 1, 3)).containsExactly("flush-quarantine");
        assertThat(allFlushes(warehouse, Target.quarantine("orders")).records().get(0).target())
                .isEqualTo(Target.quarantine("orders"));
        assertThat(ids(warehouse, Target.events("clicks"), 1, 3)).containsExactly("flush-clicks");
    }

    @Test
    void trimmingRemovesExactlyTheRecordsStartedBeforeTheCut() {
        Warehouse warehouse = open();
        warehouse.prepare(ORDERS);
        recordFailedFlush(warehouse, "flush-old", ORDER_EVENTS, 1, 1, 1, EPOCH + 1_000);
        recordFailedFlush(warehouse, "flush-at-cut", ORDER_EVENTS, 2, 2, 1, EPOCH + 2_000);
        recordFailedFlush(warehouse, "flush-new", ORDER_EVENTS, 3, 3, 1, EPOCH + 3_000);

        assertThat(warehouse.trimFlushes(EPOCH + 2_000)).isEqualTo(1);
        assertThat(ids(warehouse, ORDER_EVENTS, 0, 100)).containsExactly("flush-at-cut", "flush-new");
        assertThat(warehouse.trimFlushes(EPOCH + 2_000)).as("nothing left to trim").isZero();
        Warehouse reopened = reopen(warehouse);
        assertThat(ids(reopened, ORDER_EVENTS, 0, 100)).as("durable").containsExactly("flush-at-cut", "flush-new");
    }

    private static java.util.List<String> ids(Warehouse warehouse, Target target, long from, long to) {
        return warehouse.flushes(new FlushRecord.Filter(target, from, to, 100)).records().stream()
                .map(FlushRecord::id).toList();
    }

    /** Records a flush of {@code target}'s offsets {@code first} to {@code last} that failed ({@code "x"}). */
    private static void recordFailedFlush(Warehouse warehouse, String id, Target target, long first, long last,
            long rows, long startedAtMicros) {
        warehouse.recordFailedFlush(new FlushRecord(id, target, first, last, rows, startedAtMicros, 0, "x"));
    }
}
