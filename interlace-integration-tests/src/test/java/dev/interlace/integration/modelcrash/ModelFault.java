package dev.interlace.integration.modelcrash;

import dev.interlace.integration.crash.ChildFault;

/**
 * Where a model-crash child stops itself, counted over the runs of {@code clicks_enriched} that process at least
 * one row (the N-th such batch), or how it misbehaves.
 */
enum ModelFault implements ChildFault {
    /** Production behaviour, no halt (the recovering child). */
    NONE,
    /** {@code ModelListener.afterOutput}: the output rows are written in the model's open transaction. */
    AFTER_OUTPUT,
    /**
     * {@code ModelListener.beforeCommit}. Its javadoc says the watermarks are written by then; the code calls it
     * before writing them (the marker's {@code watermark_in_tx} shows which).
     */
    BEFORE_COMMIT,
    /**
     * {@code Connection.commit()} of the model's transaction, before it reaches DuckDB: output and the new model
     * watermark are both written and not committed — the last instant before the commit.
     */
    AT_COMMIT,
    /**
     * Negative control: the model's connection ignores {@code setAutoCommit(false)}, so every statement commits on its
     * own (the output before the watermark), and the child halts in {@code afterOutput} on the N-th batch: the output
     * is committed, the watermark is not.
     */
    OUTPUT_COMMITTED_ALONE;

    /** Whether the child halts itself at this point. */
    boolean halts() {
        return this == AFTER_OUTPUT || this == BEFORE_COMMIT || this == AT_COMMIT || this == OUTPUT_COMMITTED_ALONE;
    }
}
