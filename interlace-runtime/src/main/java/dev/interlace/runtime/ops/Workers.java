package dev.interlace.runtime.ops;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The threads that do request work which may block (a database read, parsing a body): virtual threads where the
 * JVM has them (Java 21+), else a bounded pool of platform threads. Work that only waits (a publish waiting for
 * its group commit, a long poll) holds none of them while it waits.
 */
public final class Workers implements AutoCloseable {

    /** Platform threads on Java 17: enough for blocking reads and queries, small enough to bound memory. */
    static final int PLATFORM_THREADS = 64;

    private final ExecutorService executor;
    private final String description;

    public Workers() {
        ExecutorService chosen;
        String described;
        try {
            // Java 21+: a virtual thread per task; the baseline stays Java 17, so it is looked up reflectively.
            chosen = (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
            described = "virtual threads";
        } catch (ReflectiveOperationException e) {
            ThreadPoolExecutor pool = new ThreadPoolExecutor(PLATFORM_THREADS, PLATFORM_THREADS, 60, TimeUnit.SECONDS,
                    new LinkedBlockingQueue<>(), DaemonThreads.numbered("interlace-worker-"));
            pool.allowCoreThreadTimeOut(true);
            chosen = pool;
            described = "a pool of " + PLATFORM_THREADS + " platform threads";
        }
        this.executor = chosen;
        this.description = described;
    }

    public ExecutorService executor() {
        return executor;
    }

    /** Which threads these are, e.g. {@code virtual threads}. */
    public String description() {
        return description;
    }

    /** Waits up to {@code seconds} for running work, then interrupts what is left. */
    public void shutdown(int seconds) {
        DaemonThreads.stop(executor, Duration.ofSeconds(seconds));
    }

    @Override
    public void close() {
        shutdown(5);
    }
}
