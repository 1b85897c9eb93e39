package dev.interlace.runtime.ops;

import java.time.Clock;
import java.time.Instant;

/** Times as the project stores them: microseconds since the epoch, UTC. */
public final class EpochMicros {

    private EpochMicros() {}

    /** {@code instant} in epoch microseconds (sub-microsecond digits dropped). */
    public static long of(Instant instant) {
        return instant.getEpochSecond() * 1_000_000L + instant.getNano() / 1_000;
    }

    /** Now by {@code clock}, in epoch microseconds. */
    public static long now(Clock clock) {
        return of(clock.instant());
    }

    /**
     * Epoch microseconds as RFC 3339 UTC with exactly six fraction digits, e.g. {@code 2026-11-29T08:30:00.120000Z}:
     * one width for every time the API shows, so that times sort and compare as text.
     */
    public static String rfc3339(long micros) {
        return RFC_3339_MICROS.format(toInstant(micros));
    }

    /** An instant as {@link #rfc3339(long)} writes it (digits below the microsecond dropped). */
    public static String rfc3339(Instant instant) {
        return RFC_3339_MICROS.format(instant);
    }

    private static final java.time.format.DateTimeFormatter RFC_3339_MICROS = java.time.format.DateTimeFormatter
            .ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSS'Z'").withZone(java.time.ZoneOffset.UTC);

    /** Epoch microseconds as an instant. */
    public static Instant toInstant(long micros) {
        return Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1_000L);
    }
}
