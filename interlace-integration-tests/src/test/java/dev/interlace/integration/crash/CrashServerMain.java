package dev.interlace.integration.crash;

import dev.interlace.runtime.Interlace;
import dev.interlace.runtime.log.RetentionSweep;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The server a crash test runs in a child JVM: {@code CrashServerMain DATA_DIR FAULT N} starts Interlace on an
 * ephemeral port over {@code DATA_DIR}, with a {@link HaltingCommitListener} that halts the process at {@code FAULT}
 * ({@code none}, {@code before-commit}, {@code after-commit}, {@code ack-before-commit}) on the {@code N}-th group
 * commit, or with a {@link HaltingSegmentListener} that halts it at the {@code N}-th step of the deduplication
 * index's files ({@code segment-writing}, {@code segment-written}, {@code segment-deleting}, and the negative control
 * {@code segment-ahead}), or in the retention sweep's trim ({@code trim-deleting}, {@code trim-deleted},
 * {@code trim-committed}, and the negative control {@code trim-ahead}), and prints {@value ChildJvm#LISTENING}{@code <uri>}
 * once ready. An optional {@code CLOCK_SHIFT_MS} runs its clock that far ahead, so that a test can age the events of
 * an earlier child past the retention without waiting a week.
 *
 * <p>Commits count towards {@code N} only once the line {@value #ARM} arrives on standard input (acknowledged with
 * {@value #ARMED}); the line {@value #SWEEP}{@code BOUND} arms the trim's faults for a retention sweep expected to trim
 * through {@code BOUND}, acknowledges it with {@value #ARMED} and sweeps. It exits when its standard input closes, so a child never outlives a test JVM that died without
 * killing it.
 */
public final class CrashServerMain {

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
        FaultPoint fault = ChildFault.parse(FaultPoint.class, args[1]);
        int triggerCommit = Integer.parseInt(args[2]);
        HaltingCommitListener listener = new HaltingCommitListener(fault, triggerCommit);
        HaltingSegmentListener segmentListener = new HaltingSegmentListener(fault, triggerCommit);
        Interlace server = ChildServer.start(List.of("--port", "0", "--data-dir", args[0], "--max-pending",
                MAX_PENDING), FaultModule.of(fault, listener, segmentListener), FaultModule.clock(clockShift));
        ChildServer.obey(command -> {
            if (command.equals(ARM)) {
                listener.arm();
                segmentListener.arm();
                ChildServer.say(ARMED);
            } else if (command.startsWith(SWEEP.strip())) {
                segmentListener.armTrim(Long.parseLong(command.substring(SWEEP.length()).strip()));
                ChildServer.say(ARMED);
                sweep(server, fault);
            }
        });
    }

    /** Runs the retention sweep now, says what it trimmed, and halts there for {@code trim-committed}. */
    private static void sweep(Interlace server, FaultPoint fault) {
        Map<String, Long> trimmed = server.instance(RetentionSweep.class).sweep();
        if (fault == FaultPoint.TRIM_COMMITTED) {
            Halt.withMarker(FAULT_FIRED + fault.argument() + " step=1 trimmed=" + trimmed);
        }
        ChildServer.say(SWEPT + trimmed);
    }
}
