package dev.interlace.runtime.log;

/**
 * Observes the log's group commits, on the writer thread. The runtime binds {@link #NONE} and adds its
 * {@link CommitMetrics}; tests bind their own (crash tests use it to stop the process at an exact point of the commit
 * protocol).
 */
public interface CommitListener {

    CommitListener NONE = new CommitListener() {};

    /** The group's rows are written; the commit (and its fsync) is next. */
    default void beforeCommit(int requests, int entries) {}

    /** The group is durable; the requests have not been answered yet. */
    default void afterCommit(int requests, int entries) {}

    /** Tells {@code first}, then {@code second}, of every step. */
    static CommitListener both(CommitListener first, CommitListener second) {
        return new CommitListener() {
            @Override
            public void beforeCommit(int requests, int entries) {
                first.beforeCommit(requests, entries);
                second.beforeCommit(requests, entries);
            }

            @Override
            public void afterCommit(int requests, int entries) {
                first.afterCommit(requests, entries);
                second.afterCommit(requests, entries);
            }
        };
    }
}
