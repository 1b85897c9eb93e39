package dev.interlace.runtime.ops;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The server's background threads: each named for what it does (a thread dump reads as a list of jobs) and a daemon
 * (none of them keeps the JVM up once shutdown has stopped what it must; they are stopped by their owners' close).
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
}
