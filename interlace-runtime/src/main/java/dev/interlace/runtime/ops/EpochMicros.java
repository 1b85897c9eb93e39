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

    /** Epoch microseconds as an instant. */
    public static Instant toInstant(long micros) {
        return Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1_000L);
    }
}
