package dev.interlace.runtime.warehouse;

import java.util.List;
import java.util.Optional;

/** The record of model runs ({@code GET /runs}): one entry per run, with each model's result once it finished. */
public interface RunHistory {

    /**
     * Creates what the history needs, and marks runs a crash interrupted (still queued or running) as failed at
     * {@code nowMicros}.
     */
    void prepareRuns(long nowMicros);

    /** Records that {@code run} started (its id, triggers and times; status {@code running}). */
    void runStarted(RunRecord run);

    /** Records the end of a run, with each model's result in execution order, in one transaction. */
    void runFinished(String id, RunStatus status, long finishedAtMicros, List<RunRecord.ModelResult> results);

    /** Recorded runs matching the filter, newest first (without their models), and how many match in all. */
    RunRecord.Page runs(RunRecord.Filter filter);

    /** One recorded run with its models. */
    Optional<RunRecord> run(String id);
}
