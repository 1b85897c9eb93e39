package dev.interlace.runtime.http.netty;

import dev.interlace.runtime.http.HttpLimits;
import io.netty.channel.Channel;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A connection's one deadline: for its next request (idle), for the headers or for the body being read. Moving it
 * costs a clock read; the one check scheduled on the event loop fires no later than the shortest limit after it was
 * scheduled, so it comes before any deadline set since, and schedules itself again while the deadline is ahead. Used
 * on the connection's event loop only.
 */
final class ConnectionDeadline {

    private final Channel channel;
    private final HttpLimits limits;
    /** The shortest of the connection's time limits: the longest the check waits before it looks again. */
    private final long checkPeriodNanos;
    /** Told the passed deadline's message: the 408's text, or {@code null} for the idle deadline. */
    private final Consumer<String> passed;
    private boolean armed;
    private long deadlineNanos;
    private String message;
    private ScheduledFuture<?> check;

    ConnectionDeadline(Channel channel, HttpLimits limits, Consumer<String> passed) {
        this.channel = channel;
        this.limits = limits;
        this.passed = passed;
        this.checkPeriodNanos = Math.min(Math.min(limits.idleTimeout().toNanos(),
                limits.firstRequestTimeout().toNanos()), Math.min(limits.headerTimeout().toNanos(),
                        limits.bodyTimeout().toNanos()));
    }

    /** Sets the deadline {@code timeout} from now; {@code message} is the 408's, {@code null} to close unanswered. */
    void arm(Duration timeout, String message) {
        armed = true;
        deadlineNanos = System.nanoTime() + timeout.toNanos();
        this.message = message;
        if (check == null) {
            schedule(Math.min(timeout.toNanos(), checkPeriodNanos));
        }
    }

    /** The deadline of a request's headers, from its first byte. */
    void armHeaders() {
        arm(limits.headerTimeout(), "the request headers did not arrive within " + seconds(limits.headerTimeout())
                + " s of its first byte");
    }

    /** The deadline of a request's body, from the end of its headers. */
    void armBody() {
        arm(limits.bodyTimeout(), "the request body did not arrive within " + seconds(limits.bodyTimeout())
                + " s of its headers");
    }

    private static long seconds(Duration duration) {
        return Math.max(1, duration.toSeconds());
    }

    /** No deadline until the next {@link #arm}: the pending check, if any, finds nothing to do and ends. */
    void disarm() {
        armed = false;
    }

    /** The connection closed: the pending check is cancelled. */
    void cancel() {
        armed = false;
        if (check != null) {
            check.cancel(false);
            check = null;
        }
    }

    private void schedule(long delayNanos) {
        check = channel.eventLoop().schedule(this::look, delayNanos, TimeUnit.NANOSECONDS);
    }

    private void look() {
        check = null;
        if (!armed || !channel.isActive()) {
            return;
        }
        long left = deadlineNanos - System.nanoTime();
        if (left > 0) {
            schedule(Math.min(left, checkPeriodNanos));
            return;
        }
        armed = false;
        passed.accept(message);
    }
}
