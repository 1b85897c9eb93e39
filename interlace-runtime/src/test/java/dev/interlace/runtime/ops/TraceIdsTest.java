package dev.interlace.runtime.ops;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class TraceIdsTest {

    private static String trace(int n) {
        return String.format("%032x", n);
    }

    private static List<String> traces(int from, int to) {
        List<String> traces = new ArrayList<>();
        for (int i = from; i <= to; i++) {
            traces.add(trace(i));
        }
        return traces;
    }

    @Test
    void theFirstSixteenDistinctIdsAreKeptInOrderAndAllAreCounted() {
        List<String> requests = new ArrayList<>(traces(1, 20));
        requests.add(1, trace(1)); // a second request of the first trace
        requests.add(null); // a request outside any trace

        TraceIds kept = TraceIds.of(requests);

        assertThat(kept.ids()).containsExactlyElementsOf(traces(1, 16));
        assertThat(kept.count()).isEqualTo(20);
        assertThat(TraceIds.parse(kept.joined(), kept.count())).as("as stored").isEqualTo(kept);
        assertThat(TraceIds.of(Arrays.asList(null, null))).isEqualTo(TraceIds.NONE);
        assertThat(TraceIds.NONE.joined()).isNull();
    }

    @Test
    void aRunAddsTheIdsOfItsFlushesCountingSharedKnownIdsOnce() {
        TraceIds first = TraceIds.of(traces(1, 3));
        TraceIds second = TraceIds.of(traces(3, 5));
        assertThat(first.plus(second)).isEqualTo(TraceIds.of(traces(1, 5)));
        assertThat(first.plus(TraceIds.NONE)).isEqualTo(first);
        assertThat(TraceIds.NONE.plus(second)).isEqualTo(second);

        TraceIds large = TraceIds.of(traces(1, 30));
        TraceIds both = large.plus(TraceIds.of(traces(31, 40)));
        assertThat(both.ids()).containsExactlyElementsOf(traces(1, 16));
        assertThat(both.count()).isEqualTo(40);
    }
}
