package dev.interlace.runtime.ops;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The server's background threads: each named for what it does (a thread dump reads as a list of jobs) and a daemon
 * (none of them keeps the JVM up once shutdown has stopped what it must; they are stopped by their owners' close).
 * The waits of those closes are here too: an interrupt ends a wait and is kept for the caller, so that a close still
 * releases everything else it holds.
 */
public final class DaemonThreads {
    private DaemonThreads() {
    }

    /** A daemon thread called {@code name} that will run {@code task}; not started. */
    public static Thread thread(Runnable task, String name) {
        Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        return thread;
    }

    /** Threads all called {@code name}: for an executor of one thread. */
    public static ThreadFactory named(String name) {
        return named(name, Thread.NORM_PRIORITY);
    }

    /**
     * Threads all called {@code name}, at {@code priority}: below normal for work that must give way to publishes
     * where the JVM maps priorities to the operating system's.
     */
    public static ThreadFactory named(String name, int priority) {
        return task -> prioritised(thread(task, name), priority);
    }

    /** Threads called {@code prefix1}, {@code prefix2}, …: for a pool. */
    public static ThreadFactory numbered(String prefix) {
        return numbered(prefix, Thread.NORM_PRIORITY);
    }

    /** Threads called {@code prefix1}, {@code prefix2}, …, at {@code priority}. */
    public static ThreadFactory numbered(String prefix, int priority) {
        AtomicInteger count = new AtomicInteger();
        return task -> prioritised(thread(task, prefix + count.incrementAndGet()), priority);
    }

    private static Thread prioritised(Thread thread, int priority) {
        thread.setPriority(priority);
        return thread;
    }

    /** Waits up to {@code patience} for {@code thread} to end. */
    public static void join(Thread thread, Duration patience) {
        try {
            thread.join(patience.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Waits up to {@code patience} for the tasks of {@code executor}, shut down already; true if they all ended. */
    public static boolean awaitTermination(ExecutorService executor, Duration patience) {
        try {
            return executor.awaitTermination(patience.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * Shuts {@code executor} down and waits up to {@code patience} for its tasks; those still running then are
     * interrupted. True if they had all ended in time.
     */
    public static boolean stop(ExecutorService executor, Duration patience) {
        executor.shutdown();
        if (awaitTermination(executor, patience)) {
            return true;
        }
        executor.shutdownNow();
        return false;
    }
}
