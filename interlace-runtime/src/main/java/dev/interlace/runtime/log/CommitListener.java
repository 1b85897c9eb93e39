package dev.interlace.runtime.log;

/**
 * Observes the log's group commits, on the writer thread. The runtime binds {@link #NONE}; metrics and tests bind
 * their own (crash tests use it to stop the process at an exact point of the commit protocol).
 */
public interface CommitListener {

    CommitListener NONE = new CommitListener() {};

    /** The group's rows are written; the commit (and its fsync) is next. */
    default void beforeCommit(int requests, int entries) {}

    /** The group is durable; the requests have not been answered yet. */
    default void afterCommit(int requests, int entries) {}
}
