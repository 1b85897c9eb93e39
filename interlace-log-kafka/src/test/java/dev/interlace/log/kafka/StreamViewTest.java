package dev.interlace.log.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** What a node knows of a stream stays right across trims, which drop the trimmed offsets from memory. */
class StreamViewTest {

    @Test
    void positionsAndArrivalsOfKeptOffsetsSurviveRepeatedTrims() {
        StreamView view = new StreamView("orders", 0);
        for (long offset = 1; offset <= 10_000; offset++) {
            view.applyEvent(offset, 2 * offset + 7, 1_000 + offset, offset);
            if (offset % 1_500 == 0) {
                view.applyTrim(offset - 1_000);
            }
        }
        view.applyTrim(9_000);

        assertThat(view.earliest()).isEqualTo(9_001);
        assertThat(view.headOffset()).isEqualTo(10_000);
        for (long offset = 9_001; offset <= 10_000; offset++) {
            assertThat(view.kafkaOffset(offset)).isEqualTo(2 * offset + 7);
        }
        assertThat(view.firstOffsetSince(1_000 + 9_500)).isEqualTo(9_500);
        assertThat(view.firstOffsetSince(0)).isEqualTo(9_001);
    }

    @Test
    void aTrimPastEverythingAppliedLeavesTheNextEventsInPlace() {
        StreamView view = new StreamView("orders", 0);
        view.applyEvent(1, 10, 1, 1);
        view.applyTrim(100); // a trim point read before the events it covers

        view.applyEvent(50, 500, 2, 50); // below the trim point: ignored
        view.applyEvent(101, 1_010, 3, 101);
        view.applyEvent(102, 1_020, 4, 102);

        assertThat(view.earliest()).isEqualTo(101);
        assertThat(view.headOffset()).isEqualTo(102);
        assertThat(view.kafkaOffset(101)).isEqualTo(1_010);
        assertThat(view.kafkaOffset(102)).isEqualTo(1_020);
    }
}
