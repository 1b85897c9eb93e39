package dev.interlace.log.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The groups a sequencer takes from its queue: what is queued, up to the limit, whether or not the group lingers. */
class SequencerQueueTest {

    @Test
    void aGroupTakesWhatIsQueuedUpToItsLimitInOrder() throws Exception {
        SequencerQueue queue = new SequencerQueue();
        List<SequencerQueue.Task> tasks = List.of(task(), task(), task(), task(), task());
        tasks.forEach(queue::add);

        assertThat(queue.take(3, false)).containsExactlyElementsOf(tasks.subList(0, 3));
        queue.done();
        assertThat(queue.take(3, true)).as("a lingering group ends when nothing more comes")
                .containsExactlyElementsOf(tasks.subList(3, 5));
        queue.done();
        assertThat(queue.take(3, true)).as("nothing queued: an empty group after the wait").isEmpty();
    }

    @Test
    void aLingeringGroupStopsAtItsLimitAndLeavesTheRestQueued() throws Exception {
        SequencerQueue queue = new SequencerQueue();
        SequencerQueue.Task first = task();
        queue.add(first);
        List<SequencerQueue.Task> more = List.of(task(), task(), task());
        more.forEach(queue::add);

        List<SequencerQueue.Task> group = queue.take(3, true);
        assertThat(group).containsExactly(first, more.get(0), more.get(1));
        queue.done();
        assertThat(queue.take(10, false)).containsExactly(more.get(2));
    }

    @Test
    void failingTheGroupInHandAnswersItsTasksAndNotTheQueuedOnes() throws Exception {
        SequencerQueue queue = new SequencerQueue();
        SequencerQueue.Task inHand = task();
        SequencerQueue.Task queued = task();
        queue.add(inHand);
        queue.take(1, true);
        queue.add(queued);

        queue.failInHand(new IllegalStateException("the cluster does not answer"));
        assertThat(inHand.future()).isCompletedExceptionally();
        assertThat(queued.future()).isNotDone();
    }

    private static SequencerQueue.Task task() {
        return new SequencerQueue.ControlTask<>(now -> ControlDecision.answerOnly("done"),
                new CompletableFuture<String>(), true);
    }
}
