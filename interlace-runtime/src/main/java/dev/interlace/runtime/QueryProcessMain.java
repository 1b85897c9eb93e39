package dev.interlace.runtime;

import dev.interlace.runtime.config.ConfigLoader;
import dev.interlace.runtime.config.InterlaceConfig;
import dev.interlace.runtime.log.SqliteLogFollower;
import dev.interlace.runtime.log.StreamLog;
import dev.interlace.runtime.queryprocess.QueryProcess;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Arrays;
import java.util.Map;

/**
 * The query process's entry point ({@link QueryProcess} starts it by the name {@link QueryProcess#MAIN}): a server on
 * loopback that follows the server's log, materialises it into a warehouse of its own and answers {@code POST /sql},
 * to one key only, made for this run. It stands beside {@link Interlace}, which it assembles, rather than in
 * {@code queryprocess}, which the assembly itself uses.
 *
 * <p>Arguments: the server's data directory, then {@code serve} flags (its own data directory, port 0, bind,
 * limits). It writes {@value QueryProcess#READY} and its port on standard output once it listens, and ends when its
 * standard input does: when the server that started it closes the pipe or dies, so a query process never outlives its
 * server.
 */
public final class QueryProcessMain {

    private QueryProcessMain() {}

    public static void main(String[] args) {
        Path serverDirectory = Path.of(args[0]);
        InterlaceConfig config = ConfigLoader.load(Arrays.copyOfRange(args, 1, args.length), Map.of()).config();
        SqliteLogFollower log = new SqliteLogFollower(serverDirectory, Clock.systemUTC());
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
}
