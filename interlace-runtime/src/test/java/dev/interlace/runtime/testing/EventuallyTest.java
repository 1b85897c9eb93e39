package dev.interlace.runtime.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class EventuallyTest {

    @Test
    void returnsTheFirstAcceptedValueOnceAnotherThreadProducesIt() {
        AtomicInteger counter = new AtomicInteger();
        Thread producer = new Thread(() -> {
            for (int i = 0; i < 5; i++) {
                counter.incrementAndGet();
            }
        });
        producer.start();
        assertThat(Eventually.get("the counter reaches 5", Duration.ofSeconds(10), counter::get, n -> n == 5))
                .isEqualTo(5);
    }

    @Test
    void failsAfterTheTimeoutNamingWhatWasAwaitedAndTheLastValue() {
        assertThatThrownBy(() -> Eventually.get("the answer is 42", Duration.ofMillis(50), () -> 41, n -> n == 42))
                .isInstanceOf(AssertionError.class).hasMessageContaining("until the answer is 42")
                .hasMessageContaining("timeout 50 ms").hasMessageContaining("last seen: 41");
    }

    @Test
    void retryingReadsAgainAfterTheGivenExceptionAndFailsWithTheLastOneAsTheCause() {
        AtomicInteger attempts = new AtomicInteger();
        assertThat(Eventually.retrying("the third attempt", Duration.ofSeconds(10), IOException.class, () -> {
            if (attempts.incrementAndGet() < 3) {
                throw new IOException("refused " + attempts.get());
            }
            return attempts.get();
        })).isEqualTo(3);
        assertThatThrownBy(() -> Eventually.retrying("never", Duration.ofMillis(30), IOException.class, () -> {
            throw new IOException("still refused");
        })).isInstanceOf(AssertionError.class).hasMessageContaining("until never")
                .hasCauseInstanceOf(IOException.class).hasMessageContaining("still refused");
    }

    @Test
    void aConditionThatThrowsEndsTheWaitAtOnce() {
        long start = System.nanoTime();
        assertThatThrownBy(() -> Eventually.until("the server answers", Duration.ofSeconds(30), () -> {
            throw new IOException("connection refused");
        })).isInstanceOf(AssertionError.class).hasMessageContaining("connection refused")
                .hasCauseInstanceOf(IOException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(30));
    }
}
