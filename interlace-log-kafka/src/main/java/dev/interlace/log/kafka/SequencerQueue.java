package dev.interlace.log.kafka;

import dev.interlace.runtime.log.AppendRequest;
import dev.interlace.runtime.log.AppendResult;
import dev.interlace.runtime.log.ReplayRequest;
import dev.interlace.runtime.log.ReplayResult;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.LongFunction;
import java.util.function.Supplier;

/**
 * The tasks waiting for a {@link Sequencer}'s thread, and the group of them in hand: any thread queues and fails
 * them; only the sequencer's thread takes them.
 */
final class SequencerQueue {

    /** A task for the sequencer's thread, answered through its future. */
    sealed interface Task permits AppendTask, ReplayTask, ControlTask {
        CompletableFuture<?> future();
    }

    record AppendTask(AppendRequest request, CompletableFuture<AppendResult> future) implements Task {}

    record ReplayTask(ReplayRequest request, CompletableFuture<ReplayResult> future) implements Task {}

    record ControlTask<T>(LongFunction<Sequencer.Decision<T>> decide, CompletableFuture<T> future)
            implements Task {}

    private final BlockingQueue<Task> queue = new LinkedBlockingQueue<>();
    /** The tasks of the group in hand, answered by {@link #failInHand} when the cluster does not answer. */
    private volatile List<Task> inHand = List.of();

    void add(Task task) {
        queue.add(task);
    }

    /**
     * Waits up to 200 ms for a task, then takes it with those queued behind it, {@code max} at most, as the group in
     * hand until {@link #done}; empty when none came.
     */
    List<Task> take(int max) throws InterruptedException {
        Task first = queue.poll(200, TimeUnit.MILLISECONDS);
        if (first == null) {
            return List.of();
        }
        List<Task> batch = new ArrayList<>();
        batch.add(first);
        queue.drainTo(batch, max - 1);
        inHand = batch;
        return batch;
    }

    /** The group in hand is answered. */
    void done() {
        inHand = List.of();
    }

    /** Fails every task queued now with a failure made by {@code failure}. */
    void failQueued(Supplier<RuntimeException> failure) {
        Task task;
        while ((task = queue.poll()) != null) {
            task.future().completeExceptionally(failure.get());
        }
    }

    /** Fails the group in hand (those of its tasks already answered keep their answer). */
    void failInHand(RuntimeException failure) {
        fail(inHand, failure);
    }

    static void fail(List<? extends Task> tasks, RuntimeException failure) {
        for (Task task : tasks) {
            task.future().completeExceptionally(failure);
        }
    }
}
