package dev.interlace.annotations;

/** How a model's result is kept in the warehouse. */
public enum Materialise {

    /** A view: computed when queried, never stale, nothing to run. */
    VIEW,

    /** A table rebuilt from scratch on each run and swapped in atomically, so readers never see a half table. */
    TABLE,

    /**
     * A table that only processes new stream rows: in its SQL, {@code streams.X} means the rows of X flushed since
     * the model's last run; output and the model's watermark commit in one transaction (exactly once).
     */
    INCREMENTAL
}
