package dev.interlace.runtime.log;

import dev.interlace.runtime.health.ComponentHealth;
import dev.interlace.runtime.ops.DaemonThreads;
import dev.interlace.runtime.ops.FatalErrors;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Completes the futures of the {@link LogWriter}'s groups after their commit: a lone request's on the writer thread
 * itself, larger groups' on the {@code interlace-log-ack} thread, always in commit order.
 */
final class Acknowledger {

    /** Log lines keep the name of the log they come from. */
    private static final Logger LOG = Logger.getLogger(SqliteStreamLog.class.getName());

    /**
     * Groups of up to this many requests are completed on the writer when no earlier group is still being
     * acknowledged: handing one request over costs the writer a system call (waking the ack thread) just as completing
     * it does (waking the caller's event loop), and it saves the caller a thread wake-up on the way back.
     */
    static final int COMPLETED_ON_WRITER = 1;

    private final ComponentHealth components;
    private final ExecutorService thread = Executors.newSingleThreadExecutor(DaemonThreads.named("interlace-log-ack"));
    /**
     * Groups handed to the ack thread and not yet completed; only the writer adds to it, so when it reads 0 every
     * earlier group has been answered and completing on the writer keeps commit order.
     */
    private final AtomicInteger handedOver = new AtomicInteger();

    Acknowledger(ComponentHealth components) {
        this.components = components;
    }

    /**
     * Completes the group's futures in commit order: a group of {@value #COMPLETED_ON_WRITER} on the calling (writer)
     * thread when nothing is left to acknowledge before it, else on the {@code interlace-log-ack} thread, because
     * waking each caller's continuation costs a system call or two per request, which the writer would otherwise pay
     * before it can start the next group.
     */
    void acknowledge(List<WriterTask.Append> group, List<AppendResult> results) {
        if (group.size() <= COMPLETED_ON_WRITER && handedOver.get() == 0) {
            try {
                complete(group, results);
            } catch (Error e) {
                // Every future of the group is complete already (a dependent stage failed): nobody waits.
                FatalErrors.exitIfFatal(e);
                LOG.log(Level.SEVERE, "a caller's stage failed while its append was acknowledged on the writer", e);
            }
            return;
        }
        handedOver.incrementAndGet();
        Runnable complete = () -> {
            try {
                complete(group, results);
            } catch (Error e) {
                // The rest of the group would wait for ever: the acknowledging thread is as good as dead.
                FatalErrors.exitIfFatal(e);
                components.failed(ComponentHealth.Component.LOG_ACK, null, e, ComponentHealth.Fate.DEAD);
                throw e;
            } finally {
                handedOver.decrementAndGet();
            }
        };
        try {
            thread.execute(complete);
        } catch (RejectedExecutionException e) {
            complete.run(); // closing
        }
    }

    private static void complete(List<WriterTask.Append> group, List<AppendResult> results) {
        for (int i = 0; i < group.size(); i++) {
            group.get(i).result().complete(results.get(i));
        }
    }

    /**
     * Fails the tasks on the {@code interlace-log-ack} thread, like {@link #acknowledge}: the callers' dependent stages
     * (building a 503 for each request) never run on the writer; a later group is not answered before them.
     */
    void failLater(List<? extends WriterTask> tasks, RuntimeException error) {
        List<WriterTask> failed = List.copyOf(tasks); // the writer reuses its group list
        handedOver.incrementAndGet();
        Runnable fail = () -> {
            try {
                failed.forEach(task -> task.fail(error));
            } finally {
                handedOver.decrementAndGet();
            }
        };
        try {
            thread.execute(fail);
        } catch (RejectedExecutionException e) {
            fail.run(); // closing
        }
    }

    /** Lets the acknowledgements already handed over run, waiting up to 30 s; later ones run on the caller. */
    void close() {
        thread.shutdown();
        DaemonThreads.awaitTermination(thread, Duration.ofSeconds(30));
    }
}
