package dev.interlace.runtime.model;

import dev.interlace.runtime.warehouse.RunRecord;
import java.util.Collection;
import java.util.List;

/**
 * Observes model runs on the run thread. Listeners are a Guice multibinder set: the runtime adds its
 * {@link ModelMetrics}, crash tests add one that stops the process at a step.
 */
public interface ModelListener {

    ModelListener NONE = new ModelListener() {};

    /** An incremental model's output rows are written in its transaction; its watermarks are next. */
    default void afterOutput(String model, long rows) {}

    /** A model's output and watermarks are written; the commit is next. */
    default void beforeCommit(String model) {}

    /** A run is over and recorded, with each model's result. */
    default void runFinished(RunRecord run) {}

    /** Tells every listener of {@code listeners}, in their order, of every step. */
    static ModelListener all(Collection<? extends ModelListener> listeners) {
        List<ModelListener> each = List.copyOf(listeners);
        return new ModelListener() {
            @Override
            public void afterOutput(String model, long rows) {
                each.forEach(listener -> listener.afterOutput(model, rows));
            }

            @Override
            public void beforeCommit(String model) {
                each.forEach(listener -> listener.beforeCommit(model));
            }

            @Override
            public void runFinished(RunRecord run) {
                each.forEach(listener -> listener.runFinished(run));
            }
        };
    }
}
