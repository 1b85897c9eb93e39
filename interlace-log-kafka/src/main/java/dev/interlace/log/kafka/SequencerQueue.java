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
 * them; only the sequencer's thread takes them. While the sequencer's deduplication index opens, it takes only the
 * tasks that read no keys ({@link #takeReadingNoKeys}); the others it comes to are held, and taken first once the
 * index is open.
 */
final class SequencerQueue {

    /** A task for the sequencer's thread, answered through its future. */
    sealed interface Task permits AppendTask, ReplayTask, ControlTask {
        CompletableFuture<?> future();
    }

    record AppendTask(AppendRequest request, CompletableFuture<AppendResult> future) implements Task {}

    record ReplayTask(ReplayRequest request, CompletableFuture<ReplayResult> future) implements Task {}

    /**
     * A decision on {@code _state}; {@code readsKeys} unless it decides on the stream's view alone (a consumer group's
     * lease, commit or release), which a sequencer serves while its index opens.
     */
    record ControlTask<T>(LongFunction<ControlDecision<T>> decide, CompletableFuture<T> future, boolean readsKeys)
            implements Task {}

    private final BlockingQueue<Task> queue = new LinkedBlockingQueue<>();
    /** Tasks taken while the index opened that need it, in their order, all older than those queued. */
    private final java.util.Deque<Task> held = new java.util.concurrent.ConcurrentLinkedDeque<>();
    /** The tasks of the group in hand, answered by {@link #failInHand} when the cluster does not answer. */
    private volatile List<Task> inHand = List.of();

    void add(Task task) {
        queue.add(task);
    }

    /**
     * How long a group may wait for more tasks after its last arrival ({@link #take}): a client answered by the
     * previous commit sends its next request within this on a busy node.
     */
    static final long LINGER_GAP_NANOS = TimeUnit.MICROSECONDS.toNanos(300);
    /** The longest a group waits for more tasks in all, whatever keeps arriving. */
    static final long LINGER_MAX_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

    /**
     * Takes the tasks held while the index opened, else waits up to 200 ms for a task, then takes those queued
     * behind it, {@code max} at most, as the group in hand until {@link #done}; empty when none came. With
     * {@code linger} (the previous group held more than one request: clients are waiting on each commit), the group
     * then waits for more while they keep arriving, each within {@link #LINGER_GAP_NANOS} of the one before and for
     * {@link #LINGER_MAX_NANOS} at most: a Kafka transaction costs the node and the broker about the same whatever it
     * holds, so under load its groups are filled by the clients the previous commit answered, rather than split in
     * halves that each pay for a commit. A lone client's group of one never lingers.
     */
    List<Task> take(int max, boolean linger) throws InterruptedException {
        List<Task> batch = new ArrayList<>();
        Task task;
        while (batch.size() < max && (task = held.poll()) != null) {
            batch.add(task);
        }
        if (batch.isEmpty()) {
            Task first = queue.poll(200, TimeUnit.MILLISECONDS);
            if (first == null) {
                return List.of();
            }
            batch.add(first);
        }
        queue.drainTo(batch, max - batch.size());
        if (linger) {
            long deadline = System.nanoTime() + LINGER_MAX_NANOS;
            while (batch.size() < max) {
                long wait = Math.min(LINGER_GAP_NANOS, deadline - System.nanoTime());
                Task next = wait > 0 ? queue.poll(wait, TimeUnit.NANOSECONDS) : null;
                if (next == null) {
                    break;
                }
                batch.add(next);
                queue.drainTo(batch, max - batch.size());
            }
        }
        inHand = batch;
        return batch;
    }

    /**
     * Waits up to {@code waitMillis} for a task, then takes the control tasks that read no keys among it and those
     * queued behind it, {@code max} at most, as the group in hand until {@link #done}; holds the others (for
     * {@link #take}). Empty when none came, or none of those that came reads no keys.
     */
    List<Task> takeReadingNoKeys(int max, long waitMillis) throws InterruptedException {
        Task first = queue.poll(waitMillis, TimeUnit.MILLISECONDS);
        if (first == null) {
            return List.of();
        }
        List<Task> taken = new ArrayList<>();
        taken.add(first);
        queue.drainTo(taken, max - 1);
        List<Task> batch = new ArrayList<>();
        for (Task task : taken) {
            if (task instanceof ControlTask<?> control && !control.readsKeys()) {
                batch.add(task);
            } else {
                held.add(task);
            }
        }
        inHand = batch;
        return batch;
    }

    /** The group in hand is answered. */
    void done() {
        inHand = List.of();
    }

    /** Fails every task queued or held now with a failure made by {@code failure}. */
    void failQueued(Supplier<RuntimeException> failure) {
        Task task;
        while ((task = held.poll()) != null) {
            task.future().completeExceptionally(failure.get());
        }
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
