package dev.interlace.runtime.warehouse;

import dev.interlace.runtime.ops.TraceIds;
import java.util.List;

/**
 * A model run as recorded in {@code interlace.runs}.
 *
 * @param id {@code run-…}
 * @param trigger what started it
 * @param triggers every trigger coalesced into it, first one first
 * @param queuedAtMicros when it was queued
 * @param startedAtMicros when it started, 0 while queued
 * @param finishedAtMicros when it finished, 0 until then
 * @param models what happened to each model, in execution order (empty until finished)
 * @param traces the W3C trace ids of the requests materialised by the flushes that triggered the run (bounded)
 */
public record RunRecord(String id, Trigger trigger, List<Trigger> triggers, RunStatus status, long queuedAtMicros,
        long startedAtMicros, long finishedAtMicros, List<ModelResult> models, TraceIds traces) {

    public RunRecord {
        traces = traces == null ? TraceIds.NONE : traces;
    }

    /** A run that no traced request triggered. */
    public RunRecord(String id, Trigger trigger, List<Trigger> triggers, RunStatus status, long queuedAtMicros,
            long startedAtMicros, long finishedAtMicros, List<ModelResult> models) {
        this(id, trigger, triggers, status, queuedAtMicros, startedAtMicros, finishedAtMicros, models, TraceIds.NONE);
    }

    /**
     * One model's part of a run.
     *
     * @param rows rows the run wrote (the table's size for table models, new rows for incremental ones, 0 for views)
     * @param error why it failed or was skipped, else null
     */
    public record ModelResult(String name, ModelOutcome status, long rows, long durationMillis, String error) {}

    /** Filters of {@code GET /runs}; null means any. */
    public record Filter(String model, RunStatus status, Trigger trigger, Long sinceMicros, Long untilMicros,
            int limit) {}

    /** A page of runs and the total matching the filters. */
    public record Page(List<RunRecord> runs, long total) {}
}
