package dev.interlace.runtime.ops;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class EpochMicrosTest {

    @Test
    void everyTimeIsWrittenWithExactlySixFractionDigits() {
        assertThat(EpochMicros.rfc3339(0)).isEqualTo("1970-01-01T00:00:00.000000Z");
        assertThat(EpochMicros.rfc3339(1_764_405_000_120_000L)).isEqualTo("2025-11-29T08:30:00.120000Z");
        assertThat(EpochMicros.rfc3339(1_764_405_000_123_456L)).isEqualTo("2025-11-29T08:30:00.123456Z");
        assertThat(EpochMicros.rfc3339(-1)).isEqualTo("1969-12-31T23:59:59.999999Z");
        assertThat(EpochMicros.rfc3339(Instant.parse("2026-11-29T08:00:00.123456789Z")))
                .as("digits below the microsecond are dropped").isEqualTo("2026-11-29T08:00:00.123456Z");
    }

    @Test
    void writtenTimesReadBackToTheSameMicrosecond() {
        long micros = 1_764_405_000_000_001L;
        assertThat(EpochMicros.of(Instant.parse(EpochMicros.rfc3339(micros)))).isEqualTo(micros);
    }
}
