package dev.interlace.runtime.ops;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.util.HashSet;
import java.util.List;
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

    @Test
    void aRequestOutsideAnyTraceWhoseIdTheServerMintedHasThatIdsOwnTraceIdAndTheIdComesBack() {
        RequestIds requestIds = new RequestIds(Clock.systemUTC());
        Set<String> traces = new HashSet<>();
        for (int i = 0; i < 1_000; i++) {
            String requestId = requestIds.mint();
            String traceId = TraceParent.traceIdOf(null, requestId);
            assertThat(TraceParent.isTraceId(traceId)).as(traceId).isTrue();
            assertThat(traceId).isEqualTo(TraceParent.ofRequestId(requestId));
            assertThat(TraceParent.requestIdOf(traceId)).isEqualTo(requestId);
            traces.add(traceId);
        }
        assertThat(traces).hasSize(1_000);
        // Any trace id names one such request id, and back.
        for (String traceId : List.of("4bf92f3577b34da6a3ce929d0e0e4736", "f".repeat(32), "0".repeat(31) + "1",
                TraceParent.newTraceId())) {
            assertThat(TraceParent.ofRequestId(TraceParent.requestIdOf(traceId))).isEqualTo(traceId);
        }
    }

    @Test
    void theSendersTraceWinsAndAnIdNotShapedAsMintedOnesGetsANewTrace() {
        String requestId = new RequestIds(Clock.systemUTC()).mint();
        assertThat(TraceParent.traceIdOf("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", requestId))
                .isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
        for (String clientId : List.of("order-42", requestId.toLowerCase(), "8" + requestId.substring(1),
                requestId.substring(1), requestId.replace(requestId.charAt(20), 'U'))) {
            assertThat(TraceParent.ofRequestId(clientId)).as(clientId).isNull();
            String traceId = TraceParent.traceIdOf(null, clientId);
            assertThat(TraceParent.isTraceId(traceId)).as(traceId).isTrue();
        }
        assertThat(TraceParent.ofRequestId("0".repeat(26))).as("all zeros is no trace id").isNull();
    }
}
