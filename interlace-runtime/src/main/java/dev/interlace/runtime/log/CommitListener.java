package dev.interlace.runtime.log;

import java.util.Collection;
import java.util.List;

/**
 * Observes the log's group commits, on the writer thread. Listeners are a Guice multibinder set: the runtime adds its
 * {@link CommitMetrics}, a test adds its own to the set (crash tests use one to stop the process at an exact point of
 * the commit protocol).
 */
public interface CommitListener {

    CommitListener NONE = new CommitListener() {};

    /** The group's rows are written; the commit (and its fsync) is next. */
    default void beforeCommit(int requests, int entries) {}

    /** The group is durable; the requests have not been answered yet. */
    default void afterCommit(int requests, int entries) {}

    /** Tells every listener of {@code listeners}, in their order, of every step. */
    static CommitListener all(Collection<? extends CommitListener> listeners) {
        List<CommitListener> each = List.copyOf(listeners);
        return new CommitListener() {
            @Override
            public void beforeCommit(int requests, int entries) {
                for (CommitListener listener : each) {
                    listener.beforeCommit(requests, entries);
                }
            }

            @Override
            public void afterCommit(int requests, int entries) {
                for (CommitListener listener : each) {
                    listener.afterCommit(requests, entries);
                }
            }
        };
    }
}
