package dev.interlace.runtime.model;

import dev.interlace.runtime.warehouse.RunRecord;

/**
 * Observes model runs on the run thread; the runtime binds {@link #NONE} and adds its {@link ModelMetrics}, crash
 * tests stop the process at a step.
 */
public interface ModelListener {

    ModelListener NONE = new ModelListener() {};

    /** An incremental model's output rows are written in its transaction; its watermarks are next. */
    default void afterOutput(String model, long rows) {}

    /** A model's output and watermarks are written; the commit is next. */
    default void beforeCommit(String model) {}

    /** A run is over and recorded, with each model's result. */
    default void runFinished(RunRecord run) {}

    /** Tells {@code first}, then {@code second}, of every step. */
    static ModelListener both(ModelListener first, ModelListener second) {
        return new ModelListener() {
            @Override
            public void afterOutput(String model, long rows) {
                first.afterOutput(model, rows);
                second.afterOutput(model, rows);
            }

            @Override
            public void beforeCommit(String model) {
                first.beforeCommit(model);
                second.beforeCommit(model);
            }

            @Override
            public void runFinished(RunRecord run) {
                first.runFinished(run);
                second.runFinished(run);
            }
        };
    }
}
