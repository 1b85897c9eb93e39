package dev.interlace.examples.crash;

import dev.interlace.runtime.Interlace;
import dev.interlace.runtime.config.ConfigLoader;
import dev.interlace.runtime.config.InterlaceConfig;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The server a crash test runs in a child JVM: {@code CrashServerMain DATA_DIR FAULT N} starts Interlace on an
 * ephemeral port over {@code DATA_DIR}, with a {@link HaltingCommitListener} that halts the process at {@code FAULT}
 * ({@code none}, {@code before-commit}, {@code after-commit}, {@code ack-before-commit}) on the {@code N}-th group
 * commit, or with a {@link HaltingSegmentListener} that halts it at the {@code N}-th step of the deduplication
 * index's files ({@code segment-writing}, {@code segment-written}, {@code segment-deleting}, and the negative control
 * {@code segment-ahead}), and prints {@value #LISTENING}{@code <uri>} once ready.
 *
 * <p>Commits count towards {@code N} only once the line {@value #ARM} arrives on standard input (acknowledged with
 * {@value #ARMED}). It exits when its standard input closes, so a child never outlives a test JVM that died without
 * killing it.
 */
public final class CrashServerMain {

    static final String LISTENING = "interlace listening on ";
    static final String FAULT_FIRED = "crash fault fired: ";
    static final String ARM = "arm";
    static final String ARMED = "armed";
    /** Backpressure is not under test: nothing is materialised in these runs, so every event stays pending. */
    static final String MAX_PENDING = "10000000";

    private CrashServerMain() {}

    public static void main(String[] args) throws IOException {
        if (args.length != 3) {
            System.err.println("usage: CrashServerMain DATA_DIR none|before-commit|after-commit|ack-before-commit"
                    + "|oom-before-commit|segment-writing|segment-written|segment-deleting|segment-ahead N");
            System.exit(2);
        }
        FaultPoint fault = FaultPoint.parse(args[1]);
        int triggerCommit = Integer.parseInt(args[2]);
        // An empty environment: INTERLACE_* variables of whoever runs the tests must not change the child.
        InterlaceConfig config = ConfigLoader.load(new String[] {"--port", "0", "--data-dir", args[0],
                "--max-pending", MAX_PENDING}, Map.of()).config();
        HaltingCommitListener listener = new HaltingCommitListener(fault, triggerCommit);
        HaltingSegmentListener segmentListener = new HaltingSegmentListener(fault, triggerCommit);
        Interlace server = Interlace.builder()
                .config(config)
                .override(FaultModule.of(fault, listener, segmentListener))
                .start();
        Runtime.getRuntime().addShutdownHook(new Thread(server::close, "crash-server-shutdown"));
        System.out.println(LISTENING + server.uri());
        System.out.flush();

        BufferedReader parent = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = parent.readLine()) != null) {
            if (line.strip().equals(ARM)) {
                listener.arm();
                segmentListener.arm();
                System.out.println(ARMED);
                System.out.flush();
            }
        }
        // The parent went away without killing this child.
        Runtime.getRuntime().halt(3);
    }
}
