package dev.interlace.examples.crash;

import java.util.Locale;

/**
 * Where a crash-test child stops itself. Lives in test code only: the shipped jar has no switch that weakens
 * durability (docs/operations.md#crash-safety).
 */
enum FaultPoint {

    /** No fault: the child runs until it is killed from outside (or serves as the recovering server). */
    NONE("none"),
    /** Halt on the writer thread after the group's rows are written, before its COMMIT and fsync. */
    BEFORE_COMMIT("before-commit"),
    /** Halt on the writer thread after the group is durable, before any of its requests is answered. */
    AFTER_COMMIT("after-commit"),
    /**
     * Negative control: the log acknowledges every append at once, before it is written, and the child halts before
     * a later commit; acknowledged events are lost, and the oracle must notice.
     */
    ACK_BEFORE_COMMIT("ack-before-commit"),
    /**
     * The writer thread runs out of memory (a thrown {@link OutOfMemoryError}) after the group's rows are written,
     * before its COMMIT: the process must end itself with status 3 rather than answer 503 forever.
     */
    OOM_BEFORE_COMMIT("oom-before-commit");

    private final String argument;

    FaultPoint(String argument) {
        this.argument = argument;
    }

    /** The name used on the child's command line. */
    String argument() {
        return argument;
    }

    static FaultPoint parse(String argument) {
        for (FaultPoint fault : values()) {
            if (fault.argument.equals(argument.toLowerCase(Locale.ROOT))) {
                return fault;
            }
        }
        throw new IllegalArgumentException("unknown fault point \"" + argument + "\"; expected one of none,"
                + " before-commit, after-commit, ack-before-commit, oom-before-commit");
    }
}
