package dev.interlace.log.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * What a node knows of a stream stays right across trims, and where its events sit in the topic takes memory that
 * does not grow with the stream: exact positions for the newest offsets, bounds that a forward read narrows for the
 * older ones.
 */
class StreamViewTest {

    /** Kafka offset of Interlace offset {@code offset} in these tests: gaps as transaction markers leave. */
    private static long kafkaOf(long offset) {
        return 2 * offset + 7;
    }

    @Test
    void everyKeptOffsetIsReachedByReadingForwardFromWhereTheViewSaysAndTrimsForgetTheRest() {
        StreamView view = new StreamView("orders", 0);
        for (long offset = 1; offset <= 30_000; offset++) {
            view.applyEvent(offset, kafkaOf(offset), 1_000 + offset, offset);
            if (offset % 1_500 == 0 && offset <= 10_000) {
                view.applyTrim(offset - 1_000);
            }
        }
        view.applyTrim(9_000);

        assertThat(view.earliest()).isEqualTo(9_001);
        assertThat(view.headOffset()).isEqualTo(30_000);
        for (long offset = 9_001; offset <= 30_000; offset++) {
            assertThat(view.readFrom(offset)).as("read start of %d", offset).isLessThanOrEqualTo(kafkaOf(offset))
                    .isGreaterThanOrEqualTo(kafkaOf(offset - EventPositions.SPARSE));
            assertThat(view.readEnd(offset)).as("read end of %d", offset).isGreaterThan(kafkaOf(offset))
                    .isLessThanOrEqualTo(kafkaOf(offset + EventPositions.SPARSE));
        }
        for (long offset = 30_000 - EventPositions.DENSE + 1; offset <= 30_000; offset++) {
            assertThat(view.readFrom(offset)).isEqualTo(kafkaOf(offset));
            assertThat(view.readEnd(offset)).isEqualTo(kafkaOf(offset) + 1);
        }
        assertThat(view.firstOffsetSince(1_000 + 29_500)).isEqualTo(29_500);
        assertThat(view.firstOffsetSince(0)).isEqualTo(9_001);
        // Older than the exact window: an answer at most a checkpoint early, never late.
        assertThat(view.firstOffsetSince(1_000 + 12_000)).isBetween(12_000L - EventPositions.SPARSE, 12_000L);
    }

    /** A position search ({@link PositionSearch}) starts from the events known on both sides, numbers and places. */
    @Test
    void theKnownPositionsAroundAnOldOffsetNameTheirEvents() {
        EventPositions positions = new EventPositions();
        assertThat(positions.before(5)).as("nothing known: the topic's start").isEqualTo(
                new EventPositions.Known(-1, 0));
        for (long offset = 1; offset <= 30_000; offset++) {
            positions.record(offset, kafkaOf(offset), offset);
        }
        EventPositions.Known before = positions.before(5_001);
        EventPositions.Known after = positions.after(5_001);
        assertThat(before.offset()).isBetween(5_001L - EventPositions.SPARSE, 5_001L);
        assertThat(before.kafka()).isEqualTo(kafkaOf(before.offset())).isEqualTo(positions.readFrom(5_001));
        assertThat(after.offset()).isBetween(5_002L, 5_001L + EventPositions.SPARSE);
        assertThat(after.kafka()).isEqualTo(kafkaOf(after.offset())).isEqualTo(positions.readEnd(5_001));

        positions.learn(5_000, kafkaOf(5_000));
        positions.learn(5_003, kafkaOf(5_003));
        assertThat(positions.before(5_001)).isEqualTo(new EventPositions.Known(5_000, kafkaOf(5_000)));
        assertThat(positions.after(5_001)).isEqualTo(new EventPositions.Known(5_003, kafkaOf(5_003)));
        assertThat(positions.before(30_000)).isEqualTo(new EventPositions.Known(30_000, kafkaOf(30_000)));
    }

    @Test
    void whileTheExactWindowGrowsEveryOffsetInItKeepsItsPositionTheFirstIncluded() {
        StreamView view = new StreamView("orders", 0);
        for (long offset = 1; offset <= EventPositions.DENSE; offset++) {
            view.applyEvent(offset, kafkaOf(offset), offset, offset);
        }
        for (long offset = 1; offset <= EventPositions.DENSE; offset++) {
            assertThat(view.readFrom(offset)).as("read start of %d", offset).isEqualTo(kafkaOf(offset));
            assertThat(view.readEnd(offset)).as("read end of %d", offset).isEqualTo(kafkaOf(offset) + 1);
        }
    }

    @Test
    void aReadThatEndedSomewhereOldStartsTheNextReadThere() {
        StreamView view = new StreamView("orders", 0);
        for (long offset = 1; offset <= 100_000; offset++) {
            view.applyEvent(offset, kafkaOf(offset), offset, offset);
        }
        assertThat(view.readFrom(5_001)).isLessThan(kafkaOf(5_001));

        view.learn(5_000, kafkaOf(5_000));

        assertThat(view.readFrom(5_001)).isEqualTo(kafkaOf(5_000));
        assertThat(view.readEnd(4_999)).isEqualTo(kafkaOf(5_000));
    }

    @Test
    void positionsOfTenMillionEventsTakeWellUnderAByteAnEvent() {
        StreamView view = new StreamView("orders", 0);
        for (long offset = 1; offset <= 10_000_000; offset++) {
            view.applyEvent(offset, kafkaOf(offset), offset, offset);
        }
        // The dense window (128 KiB) and a checkpoint every 1 024 events (24 bytes each, arrays grown by doubling).
        assertThat(view.positionBytes()).isLessThan(1_000_000);
    }

    @Test
    void positionsOfTenMillionQuarantinedEntriesTakeWellUnderAByteAnEntryAndOldOnesAreStillReached() {
        StreamView view = new StreamView("orders", 0);
        for (long seq = 1; seq <= 10_000_000; seq++) {
            view.applyQuarantine(seq, kafkaOf(seq));
        }
        // Was an array of 8 bytes an entry, for ever (80 MB here).
        assertThat(view.positionBytes()).isLessThan(1_000_000);
        for (long seq : new long[] {1, 2, 1_023, 1_025, 5_000_000, 10_000_000 - EventPositions.DENSE, 10_000_000}) {
            assertThat(view.quarantined().readFrom(seq)).as("read start of %d", seq).isLessThanOrEqualTo(kafkaOf(seq))
                    .isGreaterThanOrEqualTo(kafkaOf(Math.max(1, seq - EventPositions.SPARSE)));
            assertThat(view.quarantined().readEnd(seq)).as("read end of %d", seq).isGreaterThan(kafkaOf(seq));
        }
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
        assertThat(view.readFrom(101)).isEqualTo(1_010);
        assertThat(view.readFrom(102)).isEqualTo(1_020);
        assertThat(view.readEnd(102)).isEqualTo(1_021);
    }
}
