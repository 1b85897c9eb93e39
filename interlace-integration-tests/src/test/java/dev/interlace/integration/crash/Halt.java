package dev.interlace.integration.crash;

/**
 * How a crash child stops at its fault point: it prints its fault marker on standard output (the parent reads it to
 * know that the fault fired where intended, and not some other death), then stops dead with {@link Runtime#halt}: no
 * shutdown hooks, no close, no checkpoint, the exit status of a SIGKILL'd process.
 */
public final class Halt {

    /** The exit status of a halted child, the same as a SIGKILL'd one. */
    public static final int STATUS = 137;

    private Halt() {}

    /** {@code trigger}, the hit of its fault point a child halts on, checked to count from 1. */
    public static int trigger(int trigger) {
        if (trigger < 1) {
            throw new IllegalArgumentException("the trigger counts from 1, got " + trigger);
        }
        return trigger;
    }

    /** Prints {@code marker} and halts. */
    public static void withMarker(String marker) {
        ChildServer.say(marker);
        now();
    }

    /** Halts with {@link #STATUS}. */
    public static void now() {
        Runtime.getRuntime().halt(STATUS);
    }
}
