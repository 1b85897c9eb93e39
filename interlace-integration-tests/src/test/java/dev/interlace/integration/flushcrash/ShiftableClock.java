package dev.interlace.integration.flushcrash;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/** The system UTC clock, moved forward on demand: lets a child make its log entries old enough to be trimmed. */
final class ShiftableClock extends Clock {

    private final AtomicLong offsetMillis = new AtomicLong();

    void shift(Duration by) {
        offsetMillis.addAndGet(by.toMillis());
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("a shiftable clock stays in UTC");
    }

    @Override
    public Instant instant() {
        return Instant.now().plusMillis(offsetMillis.get());
    }
}
