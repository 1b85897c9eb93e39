package dev.interlace.runtime.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * A clock that stands still until a test moves it; safe to read and move from any thread. Injected where the code
 * takes a {@link Clock}, it lets a test pass a retention, a lease or an interval at once instead of waiting for it.
 */
public final class ManualClock extends Clock {

    private volatile Instant now;

    public ManualClock(Instant start) {
        this.now = start;
    }

    /** Moves the clock forward by {@code duration}. */
    public synchronized void advance(Duration duration) {
        now = now.plus(duration);
    }

    /** Sets the clock to {@code instant}. */
    public void set(Instant instant) {
        now = instant;
    }

    /** Now, in epoch microseconds. */
    public long micros() {
        Instant instant = now;
        return instant.getEpochSecond() * 1_000_000L + instant.getNano() / 1_000;
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }

    @Override
    public Instant instant() {
        return now;
    }
}
