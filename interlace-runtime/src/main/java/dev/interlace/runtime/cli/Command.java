package dev.interlace.runtime.cli;

import java.io.PrintStream;
import java.util.List;

/** One sub-command of {@link Main}: its name, its usage line, one line of what it does, and how it runs. */
abstract class Command {

    private final String name;
    private final String synopsis;
    private final String summary;

    /**
     * @param name what follows {@code interlace} on the command line
     * @param synopsis the arguments it takes, for usage messages, e.g. {@code [--json]}
     * @param summary one line for the command list
     */
    Command(String name, String synopsis, String summary) {
        this.name = name;
        this.synopsis = synopsis;
        this.summary = summary;
    }

    final String name() {
        return name;
    }

    final String synopsis() {
        return synopsis;
    }

    final String summary() {
        return summary;
    }

    /**
     * What {@code interlace <command> --help} prints after the usage line and the summary (each option explained);
     * nothing more by default.
     */
    public String help() {
        return "";
    }

    /**
     * Runs with the arguments after the command name.
     *
     * @return the exit code
     * @throws UsageException when the arguments cannot be understood
     */
    public abstract int run(List<String> args, PrintStream out);
}
