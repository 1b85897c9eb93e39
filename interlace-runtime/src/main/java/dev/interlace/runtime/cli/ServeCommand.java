package dev.interlace.runtime.cli;

import dev.interlace.runtime.Interlace;
import dev.interlace.runtime.config.ConfigException;
import dev.interlace.runtime.config.ConfigLoader;
import dev.interlace.runtime.config.InterlaceConfig;
import dev.interlace.runtime.health.ComponentHealth;
import dev.interlace.runtime.ops.FatalErrors;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * {@code interlace serve}: runs the server until SIGTERM or Ctrl-C, then drains requests and closes the log, and exits
 * 0 (1 when closing failed).
 */
final class ServeCommand extends Command {

    ServeCommand() {
        super("serve", synopsisOfSettings(), "run the server: HTTP ingestion into the durable log");
    }

    /** The exit code after a shutdown asked for by SIGTERM or Ctrl-C that drained and closed everything. */
    static final int STOPPED = 0;

    /** Every option of {@code serve}, from the settings' definitions. */
    private static String synopsisOfSettings() {
        StringBuilder synopsis = new StringBuilder();
        for (ConfigLoader.Setting setting : ConfigLoader.SETTINGS) {
            synopsis.append(synopsis.length() == 0 ? "" : " ").append('[').append(option(setting)).append(']');
        }
        return synopsis.toString();
    }

    @Override
    public String help() {
        StringBuilder help = new StringBuilder("\noptions (each from its flag, else its environment variable, else"
                + " <data-dir>/interlace.properties, else its default):\n");
        for (ConfigLoader.Setting setting : ConfigLoader.SETTINGS) {
            help.append("  ").append(option(setting)).append('\n')
                    .append("      ").append(setting.description()).append(" (").append(setting.env())
                    .append(setting.defaultValue().isEmpty() ? "" : "; default " + setting.defaultValue())
                    .append(")\n");
        }
        return help.toString();
    }

    /** {@code --flag VALUE}, or {@code --flag} alone for a switch. */
    private static String option(ConfigLoader.Setting setting) {
        return "--" + setting.flag() + (setting.value().isEmpty() ? "" : " " + setting.value());
    }

    @Override
    public int run(List<String> args, PrintStream out) {
        InterlaceConfig config;
        try {
            config = ConfigLoader.load(args.toArray(String[]::new), System.getenv()).config();
        } catch (ConfigException e) {
            throw new UsageException(e.getMessage());
        }
        FatalErrors.installDefaultHandler();
        Interlace server;
        try {
            server = Interlace.builder().config(config).start();
        } catch (UncheckedIOException e) {
            throw new CommandFailedException(e.getMessage());
        } catch (ConfigException e) {
            throw new UsageException(e.getMessage());
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            // A component that failed for good asked for the exit (see ComponentHealth): its status, not STOPPED.
            int exitCode = server.instance(ComponentHealth.class).exitStatus().orElse(STOPPED);
            try {
                server.close();
            } catch (Throwable e) { // the process ends either way; the code says the shutdown was not clean
                e.printStackTrace();
                exitCode = Main.FAILED;
            }
            stopped.countDown();
            System.out.flush();
            System.err.flush();
            // A stop that was asked for (SIGTERM, Ctrl-C) and completed is a success, not the JVM's 128 + signal.
            Runtime.getRuntime().halt(exitCode);
        }, "interlace-shutdown"));
        out.println("interlace listening on " + server.uri());
        out.flush();
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return 0;
    }
}
