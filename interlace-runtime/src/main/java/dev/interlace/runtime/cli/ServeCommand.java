package dev.interlace.runtime.cli;

import dev.interlace.runtime.Interlace;
import dev.interlace.runtime.config.ConfigException;
import dev.interlace.runtime.config.ConfigLoader;
import dev.interlace.runtime.config.InterlaceConfig;
import dev.interlace.runtime.ops.FatalErrors;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/** {@code interlace serve}: runs the server until SIGTERM or Ctrl-C, then drains requests and closes the log. */
final class ServeCommand implements Command {

    @Override
    public String name() {
        return "serve";
    }

    @Override
    public String synopsis() {
        StringBuilder synopsis = new StringBuilder();
        for (ConfigLoader.Setting setting : ConfigLoader.SETTINGS) {
            synopsis.append(synopsis.length() == 0 ? "" : " ").append("[--").append(setting.flag()).append(" N]");
        }
        return synopsis.toString().replace("[--bind N]", "[--bind ADDRESS]").replace("[--data-dir N]", "[--data-dir DIR]");
    }

    @Override
    public String summary() {
        return "run the server: HTTP ingestion into the durable log";
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
            server.close();
            stopped.countDown();
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
