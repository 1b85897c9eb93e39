package dev.interlace.runtime.model;

/** Observes model runs on the run thread; the runtime binds {@link #NONE}, crash tests stop the process at a step. */
public interface ModelListener {

    ModelListener NONE = new ModelListener() {};

    /** An incremental model's output rows are written in its transaction; its watermarks are next. */
    default void afterOutput(String model, long rows) {}

    /** A model's output and watermarks are written; the commit is next. */
    default void beforeCommit(String model) {}
}
