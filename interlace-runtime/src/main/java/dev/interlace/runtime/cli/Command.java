package dev.interlace.runtime.cli;

import java.io.PrintStream;
import java.util.List;

/** One sub-command of {@link Main}: its name, its usage line, one line of what it does, and how it runs. */
abstract class Command {

    /**
     * How a command is named and listed.
     *
     * @param name what follows {@code interlace} on the command line
     * @param synopsis the arguments it takes, for usage messages, e.g. {@code [--json]}
     * @param summary one line for the command list
     */
    record Listing(String name, String synopsis, String summary) {

        /** The usage line, e.g. {@code usage: interlace streams [--json]}. */
        String usage() {
            return "usage: interlace " + name + " " + synopsis;
        }
    }

    private final Listing listing;

    /** The parameters are those of {@link Listing}. */
    Command(String name, String synopsis, String summary) {
        this.listing = new Listing(name, synopsis, summary);
    }

    final Listing listing() {
        return listing;
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
