package dev.interlace.runtime.warehouse.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.interlace.annotations.SchemaDrift;
import dev.interlace.runtime.flush.FlushListener;
import dev.interlace.runtime.stream.Column;
import dev.interlace.runtime.stream.ColumnType;
import dev.interlace.runtime.stream.StreamDescriptor;
import dev.interlace.runtime.warehouse.FlushRecord;
import dev.interlace.runtime.warehouse.StreamTables;
import dev.interlace.runtime.warehouse.StreamTables.FencedException;
import dev.interlace.runtime.warehouse.StreamTables.MigrationException;
import dev.interlace.runtime.warehouse.StreamTables.Positions;
import dev.interlace.runtime.warehouse.StreamTables.Target;
import dev.interlace.runtime.warehouse.StreamTables.WarehouseException;
import dev.interlace.runtime.warehouse.Warehouse;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The conformance suite of {@link StreamTables}: the stream side of the warehouse, which the flusher fills.
 *
 * <p>It specifies that {@code prepare} creates the tables with zero watermarks and migrates them by adding nullable
 * columns only (anything else is a {@link MigrationException} that changes nothing); that an append writes its rows,
 * the watermark and the flush record in one transaction, all or nothing; that a stale expected watermark or an older
 * fencing token is a {@link FencedException} with nothing written, and that {@code claim} fences older tokens (waiting
 * for an append in progress, so the watermark it returns is final); that a
 * stream's quarantine is a separate target; that an evolving stream's undeclared fields become columns, reported in
 * the order they were added with widened types; that all of it survives reopening; and that a snapshot (an online
 * backup's copy) waits for an append in progress and opens as the warehouse it copied, nothing later.
 *
 * <p>Run it through {@link WarehouseContract}, which a backend extends; it is abstract so that it runs only there.
 */
public abstract class StreamTablesContract extends WarehouseContractSupport {

    // ================================================================== prepare and migrate

    @Test
    void prepareCreatesEmptyTablesWithZeroWatermarksAndIsIdempotent() {
        Warehouse warehouse = open();
        assertThat(warehouse.prepare(ORDERS)).isEqualTo(new Positions(0, 0));
        assertThat(warehouse.prepare(ORDERS)).as("a second prepare changes nothing").isEqualTo(new Positions(0, 0));
        assertThat(warehouse.watermark(Target.events("orders"))).isZero();
        assertThat(warehouse.watermark(Target.quarantine("orders"))).isZero();
        assertThat(count(warehouse, "orders")).isZero();
        assertThat(count(warehouse, "orders__quarantine")).isZero();
        assertThat(select(warehouse, "SELECT id, n, _offset, _ingested_at, _request_id FROM streams.orders"))
                .as("the declared and bookkeeping columns exist").isEmpty();
        assertThat(warehouse.migrationsApplied()).as("creating is not migrating").isEmpty();
    }

    @Test
    void aNewNullableColumnIsAddedKeepingTheRowsAndReported() {
        Warehouse warehouse = open();
        fill(warehouse, ORDERS, orders(1, 2));
        StreamDescriptor widened = stream("orders", SchemaDrift.REJECT, Column.of("id", ColumnType.STRING, true),
                Column.of("n", ColumnType.BIGINT, false), Column.of("note", ColumnType.STRING, false));
        warehouse = reopen(warehouse);
        assertThat(warehouse.prepare(widened)).as("the watermarks are kept").isEqualTo(new Positions(2, 0));
        assertThat(warehouse.migrationsApplied()).hasSize(1).first().asString().contains("note");
        assertThat(select(warehouse, "SELECT id, n, note FROM streams.orders ORDER BY _offset"))
                .containsExactly(Arrays.asList("o1", 1L, null), Arrays.asList("o2", 2L, null));

        warehouse.claim(Target.events("orders"), 1);
        warehouse.append(widened, Target.events("orders"), 1, 2, 3, List.of(row(3, "o3", 3L, "new")), null);
        assertThat(select(warehouse, "SELECT note FROM streams.orders WHERE _offset = 3"))
                .containsExactly(List.of("new"));
    }

    @Test
    void aChangeThatCannotBeMigratedIsAMigrationExceptionNamingTheColumnAndChangesNothing() {
        Warehouse warehouse = open();
        fill(warehouse, ORDERS, orders(1, 2));
        StreamDescriptor retyped = stream("orders", SchemaDrift.REJECT, Column.of("id", ColumnType.STRING, true),
                Column.of("n", ColumnType.STRING, false));
        StreamDescriptor removed = stream("orders", SchemaDrift.REJECT, Column.of("id", ColumnType.STRING, true));
        StreamDescriptor requiredAdded = stream("orders", SchemaDrift.REJECT,
                Column.of("id", ColumnType.STRING, true), Column.of("n", ColumnType.BIGINT, false),
                Column.of("m", ColumnType.BIGINT, true));
        StreamDescriptor nowRequired = stream("orders", SchemaDrift.REJECT, Column.of("id", ColumnType.STRING, true),
                Column.of("n", ColumnType.BIGINT, true));
        warehouse = reopen(warehouse);
        Warehouse reopened = warehouse;
        assertThatThrownBy(() -> reopened.prepare(retyped)).isInstanceOf(MigrationException.class)
                .hasMessageContaining("n");
        assertThatThrownBy(() -> reopened.prepare(removed)).isInstanceOf(MigrationException.class)
                .hasMessageContaining("n");
        assertThatThrownBy(() -> reopened.prepare(requiredAdded)).isInstanceOf(MigrationException.class)
                .hasMessageContaining("m");
        assertThatThrownBy(() -> reopened.prepare(nowRequired)).isInstanceOf(MigrationException.class)
                .hasMessageContaining("n");
        assertThat(reopened.migrationsApplied()).isEmpty();

        assertThat(reopened.prepare(ORDERS)).as("the declared schema still fits").isEqualTo(new Positions(2, 0));
        assertThat(select(reopened, "SELECT id, n FROM streams.orders ORDER BY _offset"))
                .containsExactly(List.of("o1", 1L), List.of("o2", 2L));
    }

    // ================================================================== append

    @Test
    void anAppendWritesRowsWatermarkAndFlushRecordTogether() {
        Warehouse warehouse = open();
        warehouse.prepare(ORDERS);
        Target target = Target.events("orders");
        assertThat(warehouse.claim(target, 7)).as("the committed watermark").isZero();
        FlushRecord record = flushRecord(target, 1, 3, EPOCH);
        warehouse.append(ORDERS, target, 7, 0, 3, List.of(row(1, "a", 10L), row(2, "b", null), row(3, "c", 30L)),
                record);

        assertThat(warehouse.watermark(target)).isEqualTo(3);
        assertThat(select(warehouse, "SELECT id, n, _offset, _request_id FROM streams.orders ORDER BY _offset"))
                .containsExactly(List.of("a", 10L, 1L, "req-1"), Arrays.asList("b", null, 2L, "req-2"),
                        List.of("c", 30L, 3L, "req-3"));
        FlushRecord.Page flushes = allFlushes(warehouse, target);
        assertThat(flushes.total()).isEqualTo(1);
        FlushRecord stored = flushes.records().get(0);
        assertThat(stored.id()).isEqualTo(record.id());
        assertThat(stored.target()).isEqualTo(target);
        assertThat(List.of(stored.firstOffset(), stored.lastOffset(), stored.rows(), stored.startedAtMicros()))
                .containsExactly(1L, 3L, 3L, EPOCH);
        assertThat(stored.committed()).as("a committed batch's record has its commit time").isTrue();
        assertThat(stored.error()).isNull();

        warehouse.append(ORDERS, target, 7, 3, 4, orders(4, 4), null);
        assertThat(allFlushes(warehouse, target).total()).as("no record when none is given").isEqualTo(1);
        assertThat(count(warehouse, "orders")).isEqualTo(4);
    }

    @Test
    void aFailureAfterTheWatermarkUpdateLeavesNeitherRowsNorWatermarkNorRecord() {
        failInsideTheAppend(true);
    }

    @Test
    void aFailureJustBeforeTheCommitLeavesNeitherRowsNorWatermarkNorRecord() {
        failInsideTheAppend(false);
    }

    private void failInsideTheAppend(boolean afterWatermarkUpdate) {
        FailingListener failing = new FailingListener(afterWatermarkUpdate);
        Warehouse warehouse = claimedOrders(failing);
        Target target = Target.events("orders");
        assertThatThrownBy(() -> warehouse.append(ORDERS, target, 1, 0, 5, orders(1, 5),
                flushRecord(target, 1, 5, EPOCH))).isInstanceOf(WarehouseException.class);
        assertThat(warehouse.watermark(target)).isZero();
        assertThat(count(warehouse, "orders")).isZero();
        assertThat(allFlushes(warehouse, target).total()).as("no record of a rolled-back batch").isZero();

        failing.armed = false;
        warehouse.append(ORDERS, target, 1, 0, 5, orders(1, 5), flushRecord(target, 1, 5, EPOCH));
        assertThat(warehouse.watermark(target)).isEqualTo(5);
        assertThat(count(warehouse, "orders")).as("the same batch again, once").isEqualTo(5);
        assertThat(allFlushes(warehouse, target).total()).isEqualTo(1);
    }

    @Test
    void aStaleExpectedWatermarkIsFencedAndWritesNothing() {
        Warehouse warehouse = open();
        fill(warehouse, ORDERS, orders(1, 3));
        Target target = Target.events("orders");
        assertThatThrownBy(() -> warehouse.append(ORDERS, target, 1, 0, 3, orders(1, 3),
                flushRecord(target, 1, 3, EPOCH))).as("the same batch again").isInstanceOf(FencedException.class);
        assertThatThrownBy(() -> warehouse.append(ORDERS, target, 1, 2, 4, orders(3, 4),
                flushRecord(target, 3, 4, EPOCH))).as("an overlapping batch").isInstanceOf(FencedException.class);
        assertThat(warehouse.watermark(target)).isEqualTo(3);
        assertThat(number(warehouse, "SELECT count(DISTINCT _offset) FROM streams.orders")).isEqualTo(3);
        assertThat(count(warehouse, "orders")).isEqualTo(3);
        assertThat(allFlushes(warehouse, target).total()).as("only the batch that committed").isEqualTo(1);
    }

    @Test
    void aNewerClaimFencesOlderTokens() {
        Warehouse warehouse = open();
        fill(warehouse, ORDERS, orders(1, 3));
        Target target = Target.events("orders");
        assertThat(warehouse.claim(target, 2)).as("the committed watermark, read after the claim").isEqualTo(3);
        assertThatThrownBy(() -> warehouse.append(ORDERS, target, 1, 3, 4, orders(4, 4),
                flushRecord(target, 4, 4, EPOCH))).as("the old flusher").isInstanceOf(FencedException.class);
        assertThatThrownBy(() -> warehouse.claim(target, 1)).as("an older token cannot claim back")
                .isInstanceOf(FencedException.class);
        assertThat(warehouse.claim(target, 2)).as("the holder may claim again").isEqualTo(3);
        assertThat(count(warehouse, "orders")).isEqualTo(3);

        warehouse.append(ORDERS, target, 2, 3, 4, orders(4, 4), null);
        assertThat(warehouse.watermark(target)).isEqualTo(4);
    }

    @Test
    void aSnapshotWaitsForAnAppendInProgressAndOpensWithItsRowsAndWatermarksAndNothingLater() throws Exception {
        Holding holding = new Holding(watermark -> watermark == 3);
        Warehouse warehouse = claimedOrders(holding);
        Target target = Target.events("orders");
        java.nio.file.Path copy = java.nio.file.Files.createDirectories(dataDirectory.resolve("snapshot"));
        ExecutorService threads = Executors.newFixedThreadPool(2);
        Warehouse.Snapshot snapshot;
        try {
            Future<?> append = threads.submit(() -> warehouse.append(ORDERS, target, 1, 0, 3, orders(1, 3), null));
            assertThat(holding.inside.await(30, TimeUnit.SECONDS)).as("the append is inside its transaction").isTrue();
            Future<Warehouse.Snapshot> taking = threads.submit(() -> warehouse.snapshotInto(copy));
            holding.release.countDown();
            append.get(30, TimeUnit.SECONDS);
            snapshot = taking.get(30, TimeUnit.SECONDS);
        } finally {
            holding.release.countDown();
            threads.shutdownNow();
        }
        warehouse.append(ORDERS, target, 1, 3, 5, orders(4, 5), null);

        assertThat(snapshot.files()).isNotEmpty().allSatisfy(name -> assertThat(copy.resolve(name)).exists());
        assertThat(snapshot.watermarks()).containsEntry("orders", 3L);
        Warehouse copied = openWarehouse(copy, FlushListener.NONE);
        try {
            assertThat(copied.prepare(ORDERS)).as("the append in progress, whole").isEqualTo(new Positions(3, 0));
            assertThat(count(copied, "orders")).as("nothing appended after the snapshot").isEqualTo(3);
        } finally {
            copied.close();
        }
    }

    @Test
    void aClaimWaitsForAnAppendInProgressSoItsWatermarkIsFinal() throws Exception {
        Holding holding = new Holding(watermark -> true);
        Warehouse warehouse = claimedOrders(holding);
        Target target = Target.events("orders");
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            Future<?> append = threads.submit(() -> warehouse.append(ORDERS, target, 1, 0, 3, orders(1, 3), null));
            assertThat(holding.inside.await(30, TimeUnit.SECONDS)).as("the append is inside its transaction").isTrue();
            Future<Long> claim = threads.submit(() -> warehouse.claim(target, 2));
            holding.release.countDown();
            long claimed = claim.get(30, TimeUnit.SECONDS);
            boolean appended;
            try {
                append.get(30, TimeUnit.SECONDS);
                appended = true;
            } catch (ExecutionException e) {
                assertThat(e.getCause()).as("an append in progress may only lose to the claim by being fenced")
                        .isInstanceOf(FencedException.class);
                appended = false;
            }
            assertThat(claimed).as("the watermark the claim returned is the committed one")
                    .isEqualTo(warehouse.watermark(target)).isEqualTo(appended ? 3 : 0);
            assertThat(count(warehouse, "orders")).isEqualTo(appended ? 3 : 0);
            assertThatThrownBy(() -> warehouse.append(ORDERS, target, 1, claimed, claimed + 1,
                    orders(claimed + 1, claimed + 1), null)).isInstanceOf(FencedException.class);
        } finally {
            holding.release.countDown();
            threads.shutdownNow();
        }
    }

    @Test
    void fencingTokensAreDurable() {
        Warehouse warehouse = open();
        fill(warehouse, ORDERS, orders(1, 1));
        warehouse.claim(Target.events("orders"), 5);
        Warehouse reopened = reopen(warehouse);
        reopened.prepare(ORDERS);
        assertThatThrownBy(() -> reopened.claim(Target.events("orders"), 4)).isInstanceOf(FencedException.class);
        assertThatThrownBy(() -> reopened.append(ORDERS, Target.events("orders"), 4, 1, 2, orders(2, 2), null))
                .isInstanceOf(FencedException.class);
        assertThat(reopened.claim(Target.events("orders"), 6)).isEqualTo(1);
    }

    @Test
    void theQuarantineIsASeparateTargetWithItsOwnTableWatermarkAndToken() {
        Warehouse warehouse = open();
        fill(warehouse, ORDERS, orders(1, 2));
        Target quarantine = Target.quarantine("orders");
        warehouse.claim(Target.events("orders"), 9);
        assertThat(warehouse.claim(quarantine, 1)).as("the events' token does not fence the quarantine").isZero();
        warehouse.append(ORDERS, quarantine, 1, 0, 2, List.of(quarantined(1, "{\"id\":1}"),
                quarantined(2, "{\"id\":2}")), flushRecord(quarantine, 1, 2, EPOCH));

        assertThat(warehouse.watermark(quarantine)).isEqualTo(2);
        assertThat(warehouse.watermark(Target.events("orders"))).isEqualTo(2);
        Warehouse reopened = reopen(warehouse);
        assertThat(reopened.prepare(ORDERS)).isEqualTo(new Positions(2, 2));
        assertThat(select(reopened, "SELECT _seq, _request_id, CAST(payload AS VARCHAR)"
                + " FROM streams.orders__quarantine ORDER BY _seq"))
                .containsExactly(List.of(1L, "req-q1", "{\"id\":1}"), List.of(2L, "req-q2", "{\"id\":2}"));
        assertThat(count(reopened, "orders")).as("the events are untouched").isEqualTo(2);
        assertThat(allFlushes(reopened, quarantine).records()).extracting(FlushRecord::target)
                .containsExactly(quarantine);
        assertThat(allFlushes(reopened, Target.events("orders")).total()).isEqualTo(1);
    }

    @Test
    void rowsWatermarksAndFlushRecordsSurviveReopening() {
        Warehouse warehouse = open();
        fill(warehouse, ORDERS, orders(1, 3));
        Warehouse reopened = reopen(warehouse);
        assertThat(reopened.prepare(ORDERS)).isEqualTo(new Positions(3, 0));
        assertThat(count(reopened, "orders")).isEqualTo(3);
        assertThat(allFlushes(reopened, Target.events("orders")).total()).isEqualTo(1);
    }

    // ================================================================== evolving streams

    @Test
    void undeclaredFieldsOfAnEvolvingStreamBecomeColumnsReportedInOrderWithWidenedTypes() {
        Warehouse warehouse = open();
        warehouse.prepare(DEVICES);
        Target target = Target.events("devices");
        warehouse.claim(target, 1);
        warehouse.append(DEVICES, target, 1, 0, 2, List.of(
                evolving(1, "d1", Map.of("level", "3")),
                evolving(2, "d2", Map.of("on", "true"))), null);
        assertThat(warehouse.evolvedColumns("devices")).containsExactly(Map.entry("level", "bigint"),
                Map.entry("on", "boolean"));

        warehouse.append(DEVICES, target, 1, 2, 4, List.of(
                evolving(3, "d3", Map.of("level", "2.5")),
                evolving(4, "d4", Map.of("tags", "[\"a\"]", "on", "null"))), null);
        assertThat(warehouse.evolvedColumns("devices")).as("widened, in the order they were added")
                .containsExactly(Map.entry("level", "double"), Map.entry("on", "boolean"),
                        Map.entry("tags", "json"));
        assertThat(select(warehouse, "SELECT id, level FROM streams.devices ORDER BY _offset"))
                .containsExactly(List.of("d1", 3.0), Arrays.asList("d2", null), List.of("d3", 2.5),
                        Arrays.asList("d4", null));

        Warehouse reopened = reopen(warehouse);
        reopened.prepare(DEVICES);
        assertThat(reopened.evolvedColumns("devices")).as("after reopening").containsExactly(
                Map.entry("level", "double"), Map.entry("on", "boolean"), Map.entry("tags", "json"));
        assertThat(reopened.evolvedColumns("orders")).as("a stream without any").isEmpty();
    }

    @Test
    void anEvolvingStreamKeepsColumnsItsCodeNoLongerDeclaresWithTheirData() {
        StreamDescriptor before = stream("devices", SchemaDrift.EVOLVE, Column.of("id", ColumnType.STRING, true),
                Column.of("extra", ColumnType.BIGINT, false));
        Warehouse warehouse = open();
        fill(warehouse, before, List.of(row(1, "d1", 41L)));

        Warehouse reopened = reopen(warehouse);
        assertThat(reopened.prepare(DEVICES)).as("no longer declaring a column is not an error for an evolving"
                + " stream").isEqualTo(new Positions(1, 0));
        assertThat(select(reopened, "SELECT id, extra FROM streams.devices")).as("the column and its data stay")
                .containsExactly(List.of("d1", 41L));
        assertThat(reopened.evolvedColumns("devices")).as("now an undeclared column")
                .containsExactly(Map.entry("extra", "bigint"));

        reopened.claim(Target.events("devices"), 1);
        reopened.append(DEVICES, Target.events("devices"), 1, 1, 3, List.of(
                evolving(2, "d2", Map.of("extra", "42")), evolving(3, "d3", Map.of())), null);
        assertThat(select(reopened, "SELECT id, extra FROM streams.devices ORDER BY _offset"))
                .containsExactly(List.of("d1", 41L), List.of("d2", 42L), Arrays.asList("d3", null));
    }

    /** A warehouse opened with {@code listener}, {@code orders} prepared and its events claimed with token 1. */
    private Warehouse claimedOrders(FlushListener listener) {
        Warehouse warehouse = open(listener);
        warehouse.prepare(ORDERS);
        warehouse.claim(Target.events("orders"), 1);
        return warehouse;
    }

    /**
     * Holds an append inside its transaction, right after its watermark update to a watermark {@code holds}, until
     * {@link #release} (at most 30 s); {@link #inside} tells that one is held.
     */
    private static final class Holding implements FlushListener {
        final CountDownLatch inside = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        private final java.util.function.LongPredicate holds;

        Holding(java.util.function.LongPredicate holds) {
            this.holds = holds;
        }

        @Override
        public void afterWatermarkUpdate(Target target, long newWatermark) {
            if (holds.test(newWatermark)) {
                inside.countDown();
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }
}
