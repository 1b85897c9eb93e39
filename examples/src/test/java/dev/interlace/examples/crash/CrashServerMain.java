package dev.interlace.examples.crash;

import dev.interlace.runtime.Interlace;
import dev.interlace.runtime.config.ConfigLoader;
import dev.interlace.runtime.config.InterlaceConfig;
import dev.interlace.runtime.ops.RetentionSweep;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

/**
 * The server a crash test runs in a child JVM: {@code CrashServerMain DATA_DIR FAULT N} starts Interlace on an
 * ephemeral port over {@code DATA_DIR}, with a {@link HaltingCommitListener} that halts the process at {@code FAULT}
 * ({@code none}, {@code before-commit}, {@code after-commit}, {@code ack-before-commit}) on the {@code N}-th group
 * commit, or with a {@link HaltingSegmentListener} that halts it at the {@code N}-th step of the deduplication
 * index's files ({@code segment-writing}, {@code segment-written}, {@code segment-deleting}, and the negative control
 * {@code segment-ahead}), or in the retention sweep's trim ({@code trim-deleting}, {@code trim-deleted},
 * {@code trim-committed}, and the negative control {@code trim-ahead}), and prints {@value #LISTENING}{@code <uri>}
 * once ready. An optional {@code CLOCK_SHIFT_MS} runs its clock that far ahead, so that a test can age the events of
 * an earlier child past the retention without waiting a week.
 *
 * <p>Commits count towards {@code N} only once the line {@value #ARM} arrives on standard input (acknowledged with
 * {@value #ARMED}); the line {@value #SWEEP}{@code BOUND} arms the trim's faults for a retention sweep expected to trim
 * through {@code BOUND}, acknowledges it with {@value #ARMED} and sweeps. It exits when its standard input closes, so a child never outlives a test JVM that died without
 * killing it.
 */
public final class CrashServerMain {

    static final String LISTENING = "interlace listening on ";
    static final String FAULT_FIRED = "crash fault fired: ";
    static final String ARM = "arm";
    static final String ARMED = "armed";
    static final String SWEEP = "sweep ";
    static final String SWEPT = "swept ";
    /** Backpressure is not under test: nothing is materialised in these runs, so every event stays pending. */
    static final String MAX_PENDING = "10000000";

    private CrashServerMain() {}

    public static void main(String[] args) throws IOException {
        if (args.length != 3 && args.length != 4) {
            System.err.println("usage: CrashServerMain DATA_DIR none|before-commit|after-commit|ack-before-commit"
                    + "|oom-before-commit|segment-writing|segment-written|segment-deleting|segment-ahead"
                    + "|trim-deleting|trim-deleted|trim-committed|trim-ahead N [CLOCK_SHIFT_MS]");
            System.exit(2);
        }
        Duration clockShift = Duration.ofMillis(args.length == 4 ? Long.parseLong(args[3]) : 0);
        FaultPoint fault = FaultPoint.parse(args[1]);
        int triggerCommit = Integer.parseInt(args[2]);
        // An empty environment: INTERLACE_* variables of whoever runs the tests must not change the child.
        InterlaceConfig config = ConfigLoader.load(new String[] {"--port", "0", "--data-dir", args[0],
                "--max-pending", MAX_PENDING}, Map.of()).config();
        HaltingCommitListener listener = new HaltingCommitListener(fault, triggerCommit);
        HaltingSegmentListener segmentListener = new HaltingSegmentListener(fault, triggerCommit);
        Interlace server = Interlace.builder()
                .config(config)
                .override(FaultModule.of(fault, listener, segmentListener), FaultModule.clock(clockShift))
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
            } else if (line.startsWith(SWEEP)) {
                segmentListener.armTrim(Long.parseLong(line.substring(SWEEP.length()).strip()));
                System.out.println(ARMED);
                System.out.flush();
                sweep(server, fault);
            }
        }
        // The parent went away without killing this child.
        Runtime.getRuntime().halt(3);
    }

    /** Runs the retention sweep now, says what it trimmed, and halts there for {@code trim-committed}. */
    private static void sweep(Interlace server, FaultPoint fault) {
        Map<String, Long> trimmed = server.instance(RetentionSweep.class).sweep();
        if (fault == FaultPoint.TRIM_COMMITTED) {
            System.out.println(FAULT_FIRED + fault.argument() + " step=1 trimmed=" + trimmed);
            System.out.flush();
            Runtime.getRuntime().halt(HaltingCommitListener.HALT_STATUS);
        }
        System.out.println(SWEPT + trimmed);
        System.out.flush();
    }
}
