package dev.interlace.runtime.flush;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.interlace.runtime.warehouse.Warehouse;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/** What the flusher may take from the events kept in memory: only the unbroken run right after its watermark. */
class RecentEventsTest {

    private static List<Warehouse.Row> rows(long first, long last) {
        return LongStream.rangeClosed(first, last)
                .mapToObj(offset -> new Warehouse.Row(offset, 1_000 + offset, "req-" + first, List.of("v" + offset)))
                .toList();
    }

    private static List<Long> offsets(List<Warehouse.Row> rows) {
        return rows.stream().map(Warehouse.Row::offset).toList();
    }

    @Test
    void takesTheRunRightAfterTheWatermarkAcrossRequestsAddedOutOfOrder() {
        RecentEvents recent = new RecentEvents(100, 1 << 20);
        recent.add("orders", rows(4, 6), 0);
        recent.add("orders", rows(1, 3), 0);
        recent.add("orders", rows(7, 7), 0);

        List<Warehouse.Row> taken = recent.take("orders", 0, 10);

        assertThat(offsets(taken)).containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L);
        assertThat(taken.get(4).values()).containsExactly("v5");
        assertThat(recent.size("orders")).isZero();
    }

    @Test
    void stopsAtAGapAndGivesNothingWhenTheNextOffsetIsMissing() {
        RecentEvents recent = new RecentEvents(100, 1 << 20);
        recent.add("orders", rows(1, 2), 0);
        recent.add("orders", rows(5, 6), 0);

        assertThat(offsets(recent.take("orders", 0, 10))).containsExactly(1L, 2L);
        assertThat(recent.take("orders", 2, 10)).as("offsets 3 and 4 were never kept").isEmpty();
        assertThat(offsets(recent.take("orders", 4, 10))).containsExactly(5L, 6L);
    }

    @Test
    void dropsWhatIsAtOrBelowTheWatermarkAndStartsInsideARun() {
        RecentEvents recent = new RecentEvents(100, 1 << 20);
        recent.add("orders", rows(1, 3), 0);
        recent.add("orders", rows(4, 8), 0);

        assertThat(offsets(recent.take("orders", 5, 10))).containsExactly(6L, 7L, 8L);
        assertThat(recent.size("orders")).isZero();
    }

    @Test
    void takesAtMostTheLimitAndKeepsTheRestForTheNextBatch() {
        RecentEvents recent = new RecentEvents(100, 1 << 20);
        recent.add("orders", rows(1, 10), 0);

        assertThat(offsets(recent.take("orders", 0, 4))).containsExactly(1L, 2L, 3L, 4L);
        assertThat(recent.size("orders")).isEqualTo(6);
        assertThat(offsets(recent.take("orders", 4, 100))).containsExactly(5L, 6L, 7L, 8L, 9L, 10L);
    }

    @Test
    void keepsTheNewestRowsWithinItsCapacity() {
        RecentEvents recent = new RecentEvents(5, 1 << 20);
        recent.add("orders", rows(1, 3), 0);
        recent.add("orders", rows(4, 6), 0);

        assertThat(recent.size("orders")).isEqualTo(3);
        assertThat(recent.take("orders", 0, 10)).as("the oldest run was evicted: the log has it").isEmpty();
        assertThat(offsets(recent.take("orders", 3, 10))).containsExactly(4L, 5L, 6L);

        recent.add("orders", rows(7, 13), 0);
        assertThat(recent.size("orders")).as("a request larger than the capacity is not kept").isZero();
    }

    @Test
    void allStreamsTogetherKeepNoMoreBytesThanAllowed() {
        long row = RecentEvents.ROW_OVERHEAD_BYTES;
        RecentEvents recent = new RecentEvents(100, 9 * row + 1_000);
        recent.add("orders", rows(1, 4), 400);
        recent.add("clicks", rows(1, 4), 400);
        assertThat(recent.bytes()).isEqualTo(8 * row + 800);

        recent.add("orders", rows(5, 6), 200);
        assertThat(recent.size("orders")).as("the stream's own oldest rows made room").isEqualTo(2);
        assertThat(recent.size("clicks")).isEqualTo(4);
        assertThat(recent.bytes()).isEqualTo(6 * row + 600);

        recent.add("views", rows(1, 8), 100);
        assertThat(recent.size("views")).as("another stream's rows are never evicted for it").isZero();
        assertThat(recent.size("clicks")).isEqualTo(4);

        assertThat(offsets(recent.take("clicks", 0, 3))).containsExactly(1L, 2L, 3L);
        assertThat(recent.bytes()).as("what is taken frees its bytes").isEqualTo(3 * row + 300);
        recent.take("orders", 6, 10);
        recent.take("clicks", 4, 10);
        assertThat(recent.bytes()).isZero();
    }

    @Test
    void refusesRowsWhoseOffsetsDoNotFollowEachOther() {
        RecentEvents recent = new RecentEvents(100, 1 << 20);
        List<Warehouse.Row> broken = new ArrayList<>(rows(1, 2));
        broken.addAll(rows(4, 4));

        recent.add("orders", broken, 0);

        assertThat(recent.size("orders")).isZero();
        assertThat(recent.take("orders", 0, 10)).isEmpty();
    }

    @Test
    void streamsAreKeptApart() {
        RecentEvents recent = new RecentEvents(100, 1 << 20);
        recent.add("orders", rows(1, 2), 0);
        recent.add("clicks", rows(1, 3), 0);

        assertThat(offsets(recent.take("clicks", 0, 10))).containsExactly(1L, 2L, 3L);
        assertThat(recent.size("orders")).isEqualTo(2);
        assertThat(recent.take("unknown", 0, 10)).isEmpty();
    }

    @Test
    void keepsNothingWithoutCapacity() {
        RecentEvents.NONE.add("orders", rows(1, 2), 0);

        assertThat(RecentEvents.NONE.keeps()).isFalse();
        assertThat(RecentEvents.NONE.take("orders", 0, 10)).isEmpty();
        assertThatThrownBy(() -> new RecentEvents(-1, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RecentEvents(0, -1)).isInstanceOf(IllegalArgumentException.class);
    }
}
