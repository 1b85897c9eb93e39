package dev.interlace.integration.crash;

import com.google.inject.Module;
import dev.interlace.runtime.Interlace;
import dev.interlace.runtime.config.ConfigLoader;
import dev.interlace.runtime.config.InterlaceConfig;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The child side of every crash and fault test ({@link ChildJvm} is the parent's): starts the server the test's
 * faults are wired into, says where it listens, and takes the parent's commands from standard input until the
 * parent goes away.
 */
public final class ChildServer {

    /** The status a child halts with when its parent went away without killing it. */
    public static final int ORPHANED_STATUS = 3;

    private ChildServer() {}

    /** Exits with status 2, printing {@code usage: <synopsis>}, unless there are {@code count} arguments. */
    public static void requireArguments(String[] args, int count, String synopsis) {
        if (args.length != count) {
            System.err.println("usage: " + synopsis);
            System.exit(2);
        }
    }

    /**
     * Starts Interlace on {@code flags} — with an empty environment, so that the INTERLACE_* variables of whoever
     * runs the tests do not change the child — and {@code overrides}, closes it on a normal exit, and prints
     * {@value ChildJvm#LISTENING}{@code <uri>}.
     */
    public static Interlace start(List<String> flags, Module... overrides) {
        InterlaceConfig config = ConfigLoader.load(flags.toArray(String[]::new), Map.of()).config();
        Interlace server = Interlace.builder().config(config).override(overrides).start();
        Runtime.getRuntime().addShutdownHook(new Thread(server::close, "child-server-shutdown"));
        say(ChildJvm.LISTENING + server.uri());
        return server;
    }

    /** Prints {@code line} to the parent at once. */
    public static void say(String line) {
        System.out.println(line);
        System.out.flush();
    }

    /**
     * Hands each line the parent writes, stripped, to {@code command}; when the parent closes standard input (it
     * went away without killing this child), halts, so that a child never outlives its test JVM.
     */
    public static void obey(Consumer<String> command) throws IOException {
        BufferedReader parent = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line = parent.readLine(); line != null; line = parent.readLine()) {
            command.accept(line.strip());
        }
        Runtime.getRuntime().halt(ORPHANED_STATUS);
    }
}
