package dev.interlace.runtime.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A command's arguments after its name, read once against what the command declares: its flags (e.g.
 * {@code --json}), its options with a value ({@code --from 5} or {@code --from=5}), the {@link ServerOptions} when it
 * talks to a server, and positional arguments. Every command reads its arguments this way, so every mistake (an
 * unknown option, a missing value, an option given twice) is the same usage error everywhere.
 */
final class Arguments {

    private final Set<String> flagsGiven;
    private final Map<String, String> values;
    private final List<String> positionals;

    private Arguments(Set<String> flagsGiven, Map<String, String> values, List<String> positionals) {
        this.flagsGiven = flagsGiven;
        this.values = values;
        this.positionals = positionals;
    }

    /**
     * Reads {@code args}.
     *
     * @param server takes {@code --server}, {@code --api-key-file} and {@code --tls-ca}; null for a command that talks
     *     to no server
     * @param flags the options without a value, with their dashes (e.g. {@code --json}, {@code -f})
     * @param options the options with a value, with their dashes
     * @throws UsageException for an unknown option, a missing value, or an option or flag given twice
     */
    static Arguments parse(List<String> args, ServerOptions server, Set<String> flags, Set<String> options) {
        Set<String> flagsGiven = new java.util.HashSet<>();
        Map<String, String> values = new LinkedHashMap<>();
        List<String> positionals = new ArrayList<>();
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            if (server != null) {
                int taken = server.accept(args, i);
                if (taken >= 0) {
                    i = taken;
                    continue;
                }
            }
            if (!arg.startsWith("-") || arg.equals("-")) {
                positionals.add(arg);
                continue;
            }
            int equals = arg.indexOf('=');
            String name = equals > 0 ? arg.substring(0, equals) : arg;
            if (flags.contains(name) && equals < 0) {
                if (!flagsGiven.add(name)) {
                    throw new UsageException(name + " is given twice");
                }
            } else if (options.contains(name)) {
                String value;
                if (equals > 0) {
                    value = arg.substring(equals + 1);
                } else if (i + 1 < args.size()) {
                    value = args.get(++i);
                } else {
                    throw new UsageException(name + " needs a value");
                }
                if (values.putIfAbsent(name, value) != null) {
                    throw new UsageException(name + " is given twice");
                }
            } else {
                throw new UsageException(flags.contains(name) ? name + " takes no value" : "unknown option " + name);
            }
        }
        return new Arguments(Set.copyOf(flagsGiven), values, List.copyOf(positionals));
    }

    /** Whether the flag was given. */
    boolean flag(String name) {
        return flagsGiven.contains(name);
    }

    /** The option's value, or null when it was not given. */
    String value(String name) {
        return values.get(name);
    }

    /** The options given, in the order given, name to value. */
    Map<String, String> values() {
        return values;
    }

    /** The option's value as a whole number of at least {@code min}, or null when it was not given. */
    Long number(String name, long min) {
        String value = values.get(name);
        if (value == null) {
            return null;
        }
        try {
            long number = Long.parseLong(value);
            if (number >= min) {
                return number;
            }
        } catch (NumberFormatException e) {
            // answered below
        }
        throw new UsageException(name + " needs a whole number of at least " + min + ", got " + value);
    }

    /** The positional arguments, in order. */
    List<String> positionals() {
        return positionals;
    }

    /**
     * The one positional argument, named {@code what} in messages.
     *
     * @throws UsageException when there is none or more than one
     */
    String single(String what) {
        if (positionals.isEmpty()) {
            throw new UsageException("no " + what + " given");
        }
        if (positionals.size() > 1) {
            throw new UsageException("give one " + what + ", got " + positionals.size() + " arguments (quote it if it"
                    + " has spaces)");
        }
        return positionals.get(0);
    }

    /** The positional argument, or null when there is none; more than one is a usage error. */
    String optional(String what) {
        return positionals.isEmpty() ? null : single(what);
    }
}
