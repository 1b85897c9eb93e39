package dev.interlace.runtime.log;

import dev.interlace.runtime.health.ComponentHealth;
import dev.interlace.runtime.ops.FatalErrors;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * The {@code interlace-log-ack} thread: completes the futures of the {@link LogWriter}'s groups after their commit, off
 * the writer thread.
 */
final class Acknowledger {

    private final ComponentHealth components;
    private final ExecutorService thread = Executors.newSingleThreadExecutor(runnable -> {
        Thread thread = new Thread(runnable, "interlace-log-ack");
        thread.setDaemon(true);
        return thread;
    });

    Acknowledger(ComponentHealth components) {
        this.components = components;
    }

    /**
     * Completes the group's futures on the {@code interlace-log-ack} thread, in commit order: waking each caller's
     * continuation costs a system call or two per request, which the writer would otherwise pay before it can start
     * the next group.
     */
    void acknowledge(List<WriterTask.Append> group, List<AppendResult> results) {
        Runnable complete = () -> {
            try {
                for (int i = 0; i < group.size(); i++) {
                    group.get(i).result().complete(results.get(i));
                }
            } catch (Error e) {
                // The rest of the group would wait for ever: the acknowledging thread is as good as dead.
                FatalErrors.exitIfFatal(e);
                components.failed(ComponentHealth.Component.LOG_ACK, null, e, ComponentHealth.Fate.DEAD);
                throw e;
            }
        };
        try {
            thread.execute(complete);
        } catch (RejectedExecutionException e) {
            complete.run(); // closing
        }
    }

    /**
     * Fails the tasks on the {@code interlace-log-ack} thread, like {@link #acknowledge}: the callers' dependent stages
     * (building a 503 for each request) never run on the writer.
     */
    void failLater(List<? extends WriterTask> tasks, RuntimeException error) {
        List<WriterTask> failed = List.copyOf(tasks); // the writer reuses its group list
        Runnable fail = () -> failed.forEach(task -> task.fail(error));
        try {
            thread.execute(fail);
        } catch (RejectedExecutionException e) {
            fail.run(); // closing
        }
    }

    /** Lets the acknowledgements already handed over run, waiting up to 30 s; later ones run on the caller. */
    void close() {
        thread.shutdown();
        try {
            thread.awaitTermination(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
