package dev.interlace.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.runtime.status.Readiness;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/**
 * How a readiness report reads under {@code /actuator/health/interlace}: the log that cannot write and the flush that
 * keeps failing are each DOWN with the reason {@code GET /health/ready} gives, and make {@code ready} DOWN.
 * (A running server below its disk floor is {@code SpringApplicationTest}'s.)
 */
class InterlaceHealthContributorTest {

    private static final long FLOOR = 1_000;

    @Test
    void aLogThatCannotWriteIsDownAsLogUnavailable() {
        Readiness.Report report = new Readiness.Report("the disk holding the log is full", 5_000, FLOOR, List.of(),
                List.of());
        Health log = InterlaceHealthContributor.log(report);
        assertThat(log.getStatus()).isEqualTo(Status.DOWN);
        assertThat(log.getDetails()).containsEntry("reason", "log_unavailable")
                .containsEntry("problem", "the disk holding the log is full");
        assertThat(InterlaceHealthContributor.ready(report).getStatus()).isEqualTo(Status.DOWN);
        assertThat(InterlaceHealthContributor.flush(report).getStatus()).isEqualTo(Status.UP);
    }

    @Test
    void aFlushFailingBeyondTheThresholdIsDownNamingTheStreamAndItsError() {
        Readiness.Report report = new Readiness.Report(null, 5_000, FLOOR,
                List.of(new Readiness.FailingFlush("orders", 1_700_000_000_000_000L, "warehouse locked")),
                List.of("clicks"));
        Health flush = InterlaceHealthContributor.flush(report);
        assertThat(flush.getStatus()).isEqualTo(Status.DOWN);
        assertThat(flush.getDetails()).containsEntry("reason", "flush_failing")
                .containsEntry("failing", List.of(Map.of("stream", "orders", "since", "2023-11-14T22:13:20Z",
                        "error", "warehouse locked")))
                .containsEntry("failing_below_threshold", List.of("clicks"));
        assertThat(InterlaceHealthContributor.ready(report).getStatus()).isEqualTo(Status.DOWN);
        assertThat(InterlaceHealthContributor.log(report).getStatus()).isEqualTo(Status.UP);
    }

    @Test
    void aFlushFailingBrieflyIsShownButNotDown() {
        Readiness.Report report = new Readiness.Report(null, 5_000, FLOOR, List.of(), List.of("clicks"));
        assertThat(InterlaceHealthContributor.flush(report).getStatus()).isEqualTo(Status.UP);
        assertThat(InterlaceHealthContributor.ready(report).getStatus()).isEqualTo(Status.UP);
    }
}
