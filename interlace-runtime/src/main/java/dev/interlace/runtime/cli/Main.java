package dev.interlace.runtime.cli;

import dev.interlace.runtime.ops.OneLineLogFormatter;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The {@code interlace} command line: {@code interlace <command> [options]}.
 *
 * <p>Exit codes: 0 success, 1 the command failed, 2 usage error (unknown command or option, missing argument).
 */
public final class Main {

    /** Exit code of a command that ran and failed. */
    public static final int FAILED = 1;
    /** Exit code of a command line that could not be understood. */
    public static final int USAGE = 2;

    private final Map<String, Command> commands = new TreeMap<>();
    private final PrintStream out;
    private final PrintStream err;

    Main(PrintStream out, PrintStream err) {
        this(out, err, System.getenv());
    }

    /** @param environment the environment the commands read ({@code INTERLACE_API_KEY}, {@code INTERLACE_DATA_DIR}) */
    Main(PrintStream out, PrintStream err, Map<String, String> environment) {
        this(() -> System.in, out, err, environment, onTerminal());
    }

    /**
     * Whether the process runs on a terminal. Before Java 22 the JDK gives a {@link java.io.Console} only then; from
     * Java 22 it may give one anyway, and {@code Console.isTerminal()} (called by reflection: the baseline is 17)
     * tells.
     */
    static boolean onTerminal() {
        java.io.Console console = System.console();
        if (console == null) {
            return false;
        }
        try {
            return (Boolean) java.io.Console.class.getMethod("isTerminal").invoke(console);
        } catch (NoSuchMethodException e) {
            return true;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return false;
        }
    }

    /**
     * @param stdin standard input (read by {@code publish -})
     * @param terminal whether the process runs on a terminal: {@code publish} then draws a progress line on
     *     {@code err}
     */
    Main(java.util.function.Supplier<java.io.InputStream> stdin, PrintStream out, PrintStream err,
            Map<String, String> environment, boolean terminal) {
        this.out = out;
        this.err = err;
        register(new BackupCommand(environment));
        register(new CorrelateCommand(environment));
        register(new KeysCommand(environment));
        register(new LogsCommand(environment));
        register(new PublishCommand(environment, stdin, err, terminal));
        register(new QuarantineCommand(environment, err));
        register(new RestoreCommand());
        register(new RunCommand(environment));
        register(new RunsCommand(environment));
        register(new ServeCommand());
        register(new SqlCommand(environment, err));
        register(new StreamsCommand());
        register(new TailCommand(environment));
    }

    public static void main(String[] args) {
        keepGuiceOffUnsafe();
        OneLineLogFormatter.installOnConsoleUnlessConfigured();
        int code = new Main(System.out, System.err).run(args);
        if (code != 0) {
            System.exit(code);
        }
    }

    /**
     * Turns off Guice's generated classes unless the user chose otherwise, before Guice reads its flags.
     *
     * <p>Guice 7.0.0 (the latest) defines them through {@code sun.misc.Unsafe}, which Java 24+ reports on stderr
     * ("A terminally deprecated method in sun.misc.Unsafe has been called", google/guice#1909). Interlace uses no
     * method interception, and without generated classes Guice calls constructors by reflection: the injector is
     * built once at start-up, so nothing measurable is lost. Netty needs no such flag: from Java 25 it leaves
     * {@code Unsafe} alone by default ({@code io.netty.noUnsafe}).
     */
    private static void keepGuiceOffUnsafe() {
        if (System.getProperty("guice_bytecode_gen_option") == null) {
            System.setProperty("guice_bytecode_gen_option", "DISABLED");
        }
    }

    private void register(Command command) {
        commands.put(command.listing().name(), command);
    }

    /** Runs the command line and returns the process exit code. */
    int run(String[] args) {
        if (args.length == 0) {
            err.println("interlace: no command given");
            err.print(usage());
            return USAGE;
        }
        String name = args[0];
        boolean helpAsked = name.equals("help") || name.equals("--help") || name.equals("-h");
        if (helpAsked) {
            if (args.length == 1 || args[1].equals("help")) {
                out.print(usage());
                return 0;
            }
            name = args[1]; // interlace help <command>
        }
        Command command = commands.get(name);
        if (command == null) {
            err.println("interlace: unknown command \"" + TerminalText.escape(name) + "\"");
            err.print(usage());
            return USAGE;
        }
        List<String> rest = Arrays.asList(args).subList(1, args.length);
        if (helpAsked || rest.contains("--help") || rest.contains("-h")) {
            out.println(command.listing().usage());
            out.println();
            out.println(command.listing().summary());
            out.print(command.help());
            return 0;
        }
        try {
            return command.run(rest, out);
        } catch (UsageException e) {
            err.println("interlace " + name + ": " + TerminalText.escape(String.valueOf(e.getMessage())));
            err.println(command.listing().usage());
            return USAGE;
        } catch (RuntimeException e) {
            err.println("interlace " + name + ": " + TerminalText.escape(String.valueOf(e.getMessage())));
            return FAILED;
        }
    }

    private String usage() {
        StringBuilder text = new StringBuilder("usage: interlace <command> [options]\n\ncommands:\n");
        for (Command command : commands.values()) {
            text.append(String.format("  %-10s %s%n", command.listing().name(), command.listing().summary()));
        }
        text.append(String.format("  %-10s %s%n", "help", "show this message; help <command> (or <command> --help):"
                + " the command's options"));
        return text.toString();
    }
}
