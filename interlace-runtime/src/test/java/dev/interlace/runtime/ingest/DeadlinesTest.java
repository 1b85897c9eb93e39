package dev.interlace.runtime.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

class DeadlinesTest {

    @Test
    void aFutureNothingCompletesFailsWithATimeoutOnceItsDeadlinePassedAndNotBefore() {
        CompletableFuture<String> future = new CompletableFuture<>();
        long armed = System.nanoTime();

        assertThat(Deadlines.within(future, 300, TimeUnit.MILLISECONDS)).isSameAs(future);

        assertThatThrownBy(() -> future.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(TimeoutException.class).hasMessage("not completed within 300 milliseconds");
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - armed)).isGreaterThanOrEqualTo(300);
    }

    @Test
    void aFutureCompletedInTimeKeepsItsResultAfterTheDeadline() throws Exception {
        CompletableFuture<String> future = new CompletableFuture<>();
        Deadlines.within(future, 200, TimeUnit.MILLISECONDS);
        future.complete("committed");

        // A witness armed later for longer fails three ticks past the deadline: one left armed would have fired.
        CompletableFuture<String> witness = Deadlines.within(new CompletableFuture<>(), 500, TimeUnit.MILLISECONDS);
        assertThatThrownBy(() -> witness.get(10, TimeUnit.SECONDS)).cause().isInstanceOf(TimeoutException.class);

        assertThat(future.isCompletedExceptionally()).isFalse();
        assertThat(future.get()).isEqualTo("committed");
    }

    @Test
    void manyDeadlinesEachFailOnlyTheirOwnFuture() throws Exception {
        List<CompletableFuture<Integer>> futures = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            futures.add(Deadlines.within(new CompletableFuture<>(), 200, TimeUnit.MILLISECONDS));
            if (i % 2 == 0) {
                futures.get(i).complete(i);
            }
        }
        CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).exceptionally(failure -> null)
                .get(10, TimeUnit.SECONDS);

        for (int i = 0; i < futures.size(); i++) {
            if (i % 2 == 0) {
                assertThat(futures.get(i).get()).isEqualTo(i);
            } else {
                assertThat(futures.get(i).isCompletedExceptionally()).as("future %d", i).isTrue();
            }
        }
    }
}
