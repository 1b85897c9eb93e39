package dev.interlace.runtime.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class InflightBytesTest {

    @Test
    void aHoldReleasedBeforeItsRouteReservesMoreTakesNothingFromTheBudget() {
        InflightBytes budget = new InflightBytes(1_000);
        InflightBytes.Hold hold = budget.hold();
        assertThat(hold.reserve(300)).isTrue();

        hold.release(); // the connection is gone while the route is still reading for it
        boolean reservedAfterRelease = hold.reserve(400);

        assertThat(reservedAfterRelease).isFalse();
        assertThat(budget.held()).isZero();
        assertThat(budget.hold().reserve(1_000)).as("the whole budget is free for the next request").isTrue();
    }

    @Test
    void aPartGivenBackIsFreeForOthersAtOnceAndTheReleaseGivesBackOnlyTheRest() {
        InflightBytes budget = new InflightBytes(1_000);
        InflightBytes.Hold streaming = budget.hold();
        InflightBytes.Hold other = budget.hold();
        assertThat(streaming.reserve(700)).isTrue();
        assertThat(other.reserve(500)).isFalse();

        streaming.giveBack(400); // a part of a streamed answer is written
        assertThat(other.reserve(500)).isTrue();
        assertThat(budget.held()).isEqualTo(800);

        streaming.release();
        streaming.giveBack(100); // after the release there is nothing left to give back
        assertThat(budget.held()).isEqualTo(500);
    }

    @Test
    void aReservationThatDoesNotFitIsRefusedAndTakesNothing() {
        InflightBytes budget = new InflightBytes(1_000);
        InflightBytes.Hold first = budget.hold();
        InflightBytes.Hold second = budget.hold();

        assertThat(first.reserve(800)).isTrue();
        assertThat(second.reserve(300)).isFalse();
        assertThat(budget.held()).isEqualTo(800);
        first.release();
        first.release();
        assertThat(budget.held()).isZero();
        assertThat(second.reserve(300)).isTrue();
    }

    @Test
    void aRequestHoldingAllThatIsHeldGrowsPastTheBudgetStepByStepWhileOthersAreRefused() {
        InflightBytes budget = new InflightBytes(1_000);
        InflightBytes.Hold alone = budget.hold();
        for (int step = 0; step < 5; step++) {
            assertThat(alone.reserve(400)).as("step " + step).isTrue();
        }
        InflightBytes.Hold other = budget.hold();
        assertThat(other.reserve(1)).isFalse();
        assertThat(budget.held()).isEqualTo(2_000);

        alone.release();
        assertThat(other.reserve(1)).isTrue();
        assertThat(alone.reserve(1)).isFalse();
    }
}
