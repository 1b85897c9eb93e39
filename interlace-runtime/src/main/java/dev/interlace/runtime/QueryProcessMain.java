package dev.interlace.runtime;

import dev.interlace.runtime.config.ConfigLoader;
import dev.interlace.runtime.config.InterlaceConfig;
import dev.interlace.runtime.config.LogOptions;
import dev.interlace.runtime.log.LogBackendFactory;
import dev.interlace.runtime.log.SqliteLogFollower;
import dev.interlace.runtime.log.StreamLog;
import dev.interlace.runtime.queryprocess.QueryProcess;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Arrays;
import java.util.Map;
import java.util.ServiceLoader;

/**
 * The query process's entry point ({@link QueryProcess} starts it by the name {@link QueryProcess#MAIN}): a server on
 * loopback that follows the server's log, materialises it into a warehouse of its own and answers {@code POST /sql},
 * to one key only, made for this run. It stands beside {@link Interlace}, which it assembles, rather than in
 * {@code queryprocess}, which the assembly itself uses.
 *
 * <p>Arguments: the server's data directory, the server's log ({@code sqlite} or the name of another backend), then
 * {@code serve} flags (its own data directory, port 0, bind, limits; the Kafka log's address and topic prefix). The
 * log is followed read-only: {@link SqliteLogFollower}, or the backend's {@link LogBackendFactory#follower}. It writes {@value QueryProcess#READY} and its port on standard output once it listens, and ends when its
 * standard input does: when the server that started it closes the pipe or dies, so a query process never outlives its
 * server.
 */
public final class QueryProcessMain {

    private QueryProcessMain() {}

    public static void main(String[] args) {
        Path serverDirectory = Path.of(args[0]);
        String backend = args[1];
        InterlaceConfig config = ConfigLoader.load(Arrays.copyOfRange(args, 2, args.length), Map.of()).config();
        StreamLog log = follower(backend, serverDirectory, config);
        Interlace server = Interlace.builder().config(config)
                .override(binder -> binder.bind(StreamLog.class).toInstance(log)).start();
        System.out.println(QueryProcess.READY + server.port());
        System.out.flush();
        try (InputStream in = System.in) {
            while (in.read() >= 0) {
                // nothing is sent; the pipe closes when the server stops or dies
            }
        } catch (IOException e) {
            // the pipe broke: the server is gone
        }
        Runtime.getRuntime().halt(0);
    }

    /** The follower of the server's log: {@code backend} is the server's {@code --log}. */
    private static StreamLog follower(String backend, Path serverDirectory, InterlaceConfig config) {
        if (backend.equals(LogOptions.SQLITE)) {
            return new SqliteLogFollower(serverDirectory, Clock.systemUTC());
        }
        for (LogBackendFactory factory : ServiceLoader.load(LogBackendFactory.class,
                Thread.currentThread().getContextClassLoader())) {
            if (factory.name().equals(backend)) {
                return factory.follower(config, Clock.systemUTC());
            }
        }
        throw new IllegalArgumentException("no log backend " + backend + " on the class path");
    }
}
