package dev.interlace.runtime.warehouse.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.runtime.ops.TraceIds;
import dev.interlace.runtime.warehouse.ModelOutcome;
import dev.interlace.runtime.warehouse.RunHistory;
import dev.interlace.runtime.warehouse.RunRecord;
import dev.interlace.runtime.warehouse.RunRecord.ModelResult;
import dev.interlace.runtime.warehouse.RunStatus;
import dev.interlace.runtime.warehouse.Trigger;
import dev.interlace.runtime.warehouse.Warehouse;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The conformance suite of {@link RunHistory}: the record of model runs.
 *
 * <p>It specifies that a started run is recorded as running with its triggers and times, and a finished one with its
 * status, end time and each model's result in execution order, and its trace ids with their count; that the list is newest first, without models, and
 * filtered by model, status, trigger (any coalesced one), a half-open window on the queue time and a limit, with how
 * many match in all; and that {@code prepareRuns} marks the runs a crash interrupted as failed.
 *
 * <p>Run it through {@link WarehouseContract}, which a backend extends; it is abstract so that it runs only there.
 */
public abstract class RunHistoryContract extends WarehouseContractSupport {

    private static final long SECOND = 1_000_000L;

    private Warehouse prepared() {
        Warehouse warehouse = open();
        warehouse.prepareRuns(EPOCH);
        return warehouse;
    }

    /** A run queued at {@code EPOCH + queuedSecond} seconds and started a second later. */
    private static RunRecord started(String id, long queuedSecond, Trigger... triggers) {
        long queued = EPOCH + queuedSecond * SECOND;
        return new RunRecord(id, triggers[0], List.of(triggers), RunStatus.RUNNING, queued, queued + SECOND, 0,
                List.of());
    }

    @Test
    void aRunIsRecordedWhenItStartsAndCompletedWhenItFinishes() {
        Warehouse warehouse = prepared();
        Trigger first = Trigger.flushed("orders", 12);
        RunRecord run = started("run-1", 0, first, Trigger.flushed("orders", 15), Trigger.MANUAL);
        warehouse.runStarted(run);

        RunRecord running = warehouse.run("run-1").orElseThrow();
        assertThat(running).isEqualTo(new RunRecord("run-1", first, run.triggers(), RunStatus.RUNNING,
                run.queuedAtMicros(), run.startedAtMicros(), 0, List.of()));

        List<ModelResult> results = List.of(
                new ModelResult("daily", ModelOutcome.SUCCEEDED, 10, 25, null),
                new ModelResult("broken", ModelOutcome.FAILED, 0, 3, "no such column: x"),
                new ModelResult("top", ModelOutcome.SKIPPED, 0, 0, "depends on broken, which failed"));
        long finished = run.startedAtMicros() + 2 * SECOND;
        warehouse.runFinished("run-1", RunStatus.FAILED, finished, results);

        Warehouse reopened = reopen(warehouse);
        RunRecord done = reopened.run("run-1").orElseThrow();
        assertThat(done).as("durable, with the models in execution order").isEqualTo(new RunRecord("run-1", first,
                run.triggers(), RunStatus.FAILED, run.queuedAtMicros(), run.startedAtMicros(), finished, results));
        assertThat(reopened.run("run-unknown")).isEmpty();
    }

    @Test
    void aRunKeepsTheTraceIdsOfItsFlushesInTheListAndAlone() {
        Warehouse warehouse = prepared();
        TraceIds traces = new TraceIds(List.of("4bf92f3577b34da6a3ce929d0e0e4736"), 3);
        RunRecord started = started("run-traced", 0, Trigger.flushed("orders", 3));
        warehouse.runStarted(new RunRecord(started.id(), started.trigger(), started.triggers(), started.status(),
                started.queuedAtMicros(), started.startedAtMicros(), 0, List.of(), traces));
        warehouse.runFinished("run-traced", RunStatus.SUCCEEDED, started.startedAtMicros() + SECOND, List.of());
        warehouse.runStarted(started("run-untraced", 5, Trigger.MANUAL));

        Warehouse reopened = reopen(warehouse);
        assertThat(reopened.run("run-traced").orElseThrow().traces()).isEqualTo(traces);
        assertThat(reopened.runs(new RunRecord.Filter(null, null, null, null, null, 10)).runs())
                .extracting(RunRecord::traces).containsExactly(TraceIds.NONE, traces);
    }

    @Test
    void theListIsNewestFirstWithoutModelsAndFiltered() {
        Warehouse warehouse = prepared();
        warehouse.runStarted(started("run-a", 0, Trigger.STARTUP));
        warehouse.runFinished("run-a", RunStatus.SUCCEEDED, EPOCH + 5 * SECOND, List.of(
                new ModelResult("daily", ModelOutcome.SUCCEEDED, 1, 1, null)));
        warehouse.runStarted(started("run-b", 10, Trigger.flushed("orders", 7), Trigger.flushed("clicks", 3)));
        warehouse.runFinished("run-b", RunStatus.FAILED, EPOCH + 15 * SECOND, List.of(
                new ModelResult("daily", ModelOutcome.FAILED, 0, 1, "boom"),
                new ModelResult("top", ModelOutcome.SKIPPED, 0, 0, "daily failed")));
        warehouse.runStarted(started("run-c", 20, Trigger.MANUAL));
        warehouse.runFinished("run-c", RunStatus.SUCCEEDED, EPOCH + 25 * SECOND, List.of(
                new ModelResult("top", ModelOutcome.SUCCEEDED, 2, 1, null)));
        warehouse.runStarted(started("run-d", 30, Trigger.flushed("orders", 9)));

        RunRecord.Page all = runs(warehouse, null, null, null, null, null, 10);
        assertThat(all.runs()).extracting(RunRecord::id).containsExactly("run-d", "run-c", "run-b", "run-a");
        assertThat(all.total()).isEqualTo(4);
        assertThat(all.runs()).allSatisfy(run -> assertThat(run.models()).as("listed without models").isEmpty());
        assertThat(all.runs()).extracting(RunRecord::status).containsExactly(RunStatus.RUNNING, RunStatus.SUCCEEDED,
                RunStatus.FAILED, RunStatus.SUCCEEDED);

        assertThat(ids(runs(warehouse, "daily", null, null, null, null, 10))).containsExactly("run-b", "run-a");
        assertThat(ids(runs(warehouse, "top", null, null, null, null, 10))).as("skipped models count")
                .containsExactly("run-c", "run-b");
        assertThat(ids(runs(warehouse, null, RunStatus.SUCCEEDED, null, null, null, 10)))
                .containsExactly("run-c", "run-a");
        assertThat(ids(runs(warehouse, null, RunStatus.RUNNING, null, null, null, 10))).containsExactly("run-d");
        assertThat(ids(runs(warehouse, null, null, Trigger.flushed("clicks", 3), null, null, 10)))
                .as("any coalesced trigger").containsExactly("run-b");
        assertThat(ids(runs(warehouse, null, null, Trigger.flushed("orders", 7), null, null, 10)))
                .containsExactly("run-b");
        assertThat(ids(runs(warehouse, null, null, Trigger.flushed("orders", 8), null, null, 10))).isEmpty();
        assertThat(ids(runs(warehouse, null, null, Trigger.MANUAL, null, null, 10))).containsExactly("run-c");
        assertThat(ids(runs(warehouse, null, null, null, EPOCH + 10 * SECOND, EPOCH + 30 * SECOND, 10)))
                .as("since inclusive, until exclusive, on the queue time").containsExactly("run-c", "run-b");
        assertThat(ids(runs(warehouse, "daily", RunStatus.FAILED, null, EPOCH, null, 10))).containsExactly("run-b");

        RunRecord.Page limited = runs(warehouse, null, null, null, null, null, 2);
        assertThat(ids(limited)).containsExactly("run-d", "run-c");
        assertThat(limited.total()).as("how many match in all").isEqualTo(4);
        assertThat(runs(warehouse, "nobody", null, null, null, null, 10).total()).isZero();
    }

    @Test
    void prepareRunsMarksRunsACrashInterruptedAsFailed() {
        Warehouse warehouse = prepared();
        warehouse.runStarted(started("run-done", 0, Trigger.MANUAL));
        warehouse.runFinished("run-done", RunStatus.SUCCEEDED, EPOCH + 2 * SECOND, List.of());
        warehouse.runStarted(started("run-cut", 10, Trigger.flushed("orders", 4)));

        Warehouse restarted = reopen(warehouse);
        long now = EPOCH + 100 * SECOND;
        restarted.prepareRuns(now);
        RunRecord cut = restarted.run("run-cut").orElseThrow();
        assertThat(cut.status()).isEqualTo(RunStatus.FAILED);
        assertThat(cut.finishedAtMicros()).isEqualTo(now);
        RunRecord done = restarted.run("run-done").orElseThrow();
        assertThat(done.status()).as("finished runs are left alone").isEqualTo(RunStatus.SUCCEEDED);
        assertThat(done.finishedAtMicros()).isEqualTo(EPOCH + 2 * SECOND);
        restarted.prepareRuns(now + SECOND);
        assertThat(restarted.run("run-cut").orElseThrow().finishedAtMicros()).as("idempotent").isEqualTo(now);
    }

    private static RunRecord.Page runs(Warehouse warehouse, String model, RunStatus status, Trigger trigger,
            Long since, Long until, int limit) {
        return warehouse.runs(new RunRecord.Filter(model, status, trigger, since, until, limit));
    }

    private static List<String> ids(RunRecord.Page page) {
        return page.runs().stream().map(RunRecord::id).toList();
    }
}
