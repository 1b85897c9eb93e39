package dev.interlace.runtime.cli;

import java.io.PrintStream;
import java.util.List;

/** One sub-command of {@link Main}. */
interface Command {

    String name();

    /** The arguments it takes, for usage messages, e.g. {@code [--json]}. */
    String synopsis();

    /** One line for the command list. */
    String summary();

    /**
     * What {@code interlace <command> --help} prints after the usage line and the summary (each option explained);
     * nothing more by default.
     */
    default String help() {
        return "";
    }

    /**
     * Runs with the arguments after the command name.
     *
     * @return the exit code
     * @throws UsageException when the arguments cannot be understood
     */
    int run(List<String> args, PrintStream out);
}
