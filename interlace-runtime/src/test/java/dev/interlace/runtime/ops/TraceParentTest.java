package dev.interlace.runtime.ops;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class TraceParentTest {

    @Test
    void newTraceIdsAreValidUniqueAndAscendFromOneMillisecondToTheNext() throws Exception {
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < 10_000; i++) {
            String id = TraceParent.newTraceId();
            assertThat(TraceParent.isTraceId(id)).as(id).isTrue();
            assertThat(TraceParent.parse("00-" + id + "-00f067aa0ba902b7-01")).isPresent();
            ids.add(id);
        }
        assertThat(ids).hasSize(10_000);

        String earlier = TraceParent.newTraceId();
        long millis = System.currentTimeMillis();
        while (System.currentTimeMillis() <= millis) {
            Thread.onSpinWait();
        }
        assertThat(TraceParent.newTraceId()).isGreaterThan(earlier);
    }
}
