package dev.interlace.runtime.testing;

import java.time.Duration;
import java.util.function.Predicate;

/**
 * Waits for a condition with a deadline: the one way the tests of every module wait for something that happens on
 * another thread or in another process, instead of a fixed sleep or a private polling loop.
 *
 * <p>The condition is checked at once, then again after pauses that grow from 1 ms to 50 ms, until it holds or the
 * deadline passes; then the wait fails with an {@link AssertionError} naming what was awaited, for how long, and the
 * last value seen. An exception thrown by the condition ends the wait at once (wrapped when checked): a condition
 * that may throw while the awaited thing is not there yet catches the exception itself and answers "not yet".
 * This class is in the runtime's test jar (package {@code dev.interlace.runtime.testing}), which every module above
 * the runtime can depend on in test scope.
 */
public final class Eventually {

    private static final long FIRST_PAUSE_NANOS = Duration.ofMillis(1).toNanos();
    private static final long LONGEST_PAUSE_NANOS = Duration.ofMillis(50).toNanos();

    private Eventually() {}

    /** A condition that may throw, e.g. one that asks a server over HTTP. */
    @FunctionalInterface
    public interface Condition {
        boolean holds() throws Exception;
    }

    /** A value read again on every check, e.g. a row count or a server's answer. */
    @FunctionalInterface
    public interface Probe<T> {
        T read() throws Exception;
    }

    /** Returns once {@code condition} holds; fails after {@code timeout} with "{@code what}" in the message. */
    public static void until(String what, Duration timeout, Condition condition) {
        get(what, timeout, condition::holds, Boolean.TRUE::equals);
    }

    /**
     * Reads {@code probe} until a value is {@code accepted} and returns that value; fails after {@code timeout} with
     * "{@code what}" and the last value read in the message.
     */
    public static <T> T get(String what, Duration timeout, Probe<T> probe, Predicate<? super T> accepted) {
        return wait(what, timeout, probe, accepted, Exception.class, false);
    }

    /**
     * Reads {@code probe} until it returns without throwing a {@code retried} exception (e.g. an append refused
     * while a takeover is under way) and returns that value; fails after {@code timeout} with the last such
     * exception as the cause. Other exceptions end the wait at once.
     */
    public static <T> T retrying(String what, Duration timeout, Class<? extends Exception> retried, Probe<T> probe) {
        return wait(what, timeout, probe, value -> true, retried, true);
    }

    private static <T> T wait(String what, Duration timeout, Probe<T> probe, Predicate<? super T> accepted,
            Class<? extends Exception> retried, boolean retry) {
        long start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        long pause = FIRST_PAUSE_NANOS;
        while (true) {
            T value = null;
            Exception failure = null;
            try {
                value = probe.read();
            } catch (Exception e) {
                if (!retry || !retried.isInstance(e)) {
                    throw ended(what, e);
                }
                failure = e;
            }
            if (failure == null && accepted.test(value)) {
                return value;
            }
            long now = System.nanoTime();
            if (now - deadline >= 0) {
                throw new AssertionError(String.format("waited %d ms (timeout %d ms) until %s; last seen: %s",
                        Duration.ofNanos(now - start).toMillis(), timeout.toMillis(), what,
                        failure != null ? failure : value), failure);
            }
            try {
                Thread.sleep(Duration.ofNanos(Math.min(pause, deadline - now)).toMillis() + 1);
            } catch (InterruptedException e) {
                throw ended(what, e);
            }
            pause = Math.min(pause * 2, LONGEST_PAUSE_NANOS);
        }
    }

    private static RuntimeException ended(String what, Exception e) {
        if (e instanceof RuntimeException runtime) {
            throw runtime;
        }
        if (e instanceof InterruptedException) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting until " + what, e);
        }
        throw new AssertionError("waiting until " + what + " failed: " + e, e);
    }
}
