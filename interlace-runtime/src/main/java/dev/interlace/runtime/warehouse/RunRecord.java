package dev.interlace.runtime.warehouse;

import java.util.List;

/**
 * A model run as recorded in {@code interlace.runs}.
 *
 * @param id {@code run-…}
 * @param trigger what started it: {@code stream:<name>:<watermark>}, {@code manual} or {@code startup}
 * @param triggers every trigger coalesced into it, first one first
 * @param status {@code queued}, {@code running}, {@code succeeded} or {@code failed}
 * @param queuedAtMicros when it was queued
 * @param startedAtMicros when it started, 0 while queued
 * @param finishedAtMicros when it finished, 0 until then
 * @param models what happened to each model, in execution order (empty until finished)
 */
public record RunRecord(String id, String trigger, List<String> triggers, String status, long queuedAtMicros,
        long startedAtMicros, long finishedAtMicros, List<ModelResult> models) {

    /**
     * One model's part of a run.
     *
     * @param status {@code succeeded}, {@code failed} or {@code skipped}
     * @param rows rows the run wrote (the table's size for table models, new rows for incremental ones, 0 for views)
     * @param error why it failed or was skipped, else null
     */
    public record ModelResult(String name, String status, long rows, long durationMillis, String error) {}

    /** Filters of {@code GET /runs}; null means any. */
    public record Filter(String model, String status, String trigger, Long sinceMicros, Long untilMicros,
            int limit) {}

    /** A page of runs and the total matching the filters. */
    public record Page(List<RunRecord> runs, long total) {}
}
