package dev.interlace.integration.flushcrash;

import com.google.inject.Module;
import dev.interlace.integration.crash.ChildFault;
import dev.interlace.integration.crash.ChildJvm;
import dev.interlace.integration.crash.ChildServer;
import dev.interlace.runtime.Interlace;
import dev.interlace.runtime.log.RetentionSweep;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The server a flush-crash test runs in a child JVM: {@code FlushCrashServerMain DATA_DIR FAULT N} starts Interlace
 * (every stream and model on the class path, as in production; only {@code orders} gets events) on an ephemeral
 * port over {@code DATA_DIR}, flushing in small batches of {@value #BATCH_ROWS} rows, with the fault point
 * {@code FAULT} ({@link FlushFault}) halting the process on its {@code N}-th hit, and prints
 * {@value ChildJvm#LISTENING}{@code <uri>} once ready.
 *
 * <p>Hits count only once the line {@value #ARM} arrives on standard input (acknowledged with {@value #ARMED}). It
 * exits when its standard input closes, so a child never outlives a test JVM that died without killing it.
 */
public final class FlushCrashServerMain {

    static final String FAULT_FIRED = "flush fault fired: ";
    static final String ARM = "arm";
    static final String ARMED = "armed";
    /** Rows per flush transaction: small, so that any backlog takes many batches. */
    static final int BATCH_ROWS = 100;
    /** Backpressure is not under test (the mid-drain child holds its flusher while a backlog builds). */
    static final String MAX_PENDING = "10000000";

    private FlushCrashServerMain() {}

    public static void main(String[] args) throws IOException {
        ChildServer.requireArguments(args, 3, "FlushCrashServerMain DATA_DIR FAULT N");
        FaultTrigger trigger = new FaultTrigger(ChildFault.parse(FlushFault.class, args[1]), Integer.parseInt(args[2]));
        ShiftableClock clock = new ShiftableClock();
        List<Module> overrides = new ArrayList<>(List.of(new FlushFaultModule(trigger)));
        if (trigger.fault() == FlushFault.AFTER_RETENTION_TRIM) {
            overrides.add(new RetentionFaultModule(trigger, clock));
        }
        Interlace server = ChildServer.start(List.of("--port", "0", "--data-dir", args[0], "--max-pending",
                MAX_PENDING, "--flush-batch-rows", Integer.toString(BATCH_ROWS)), overrides.toArray(Module[]::new));
        ChildServer.obey(command -> {
            if (command.equals(ARM)) {
                trigger.arm();
                if (trigger.fault() == FlushFault.AFTER_RETENTION_TRIM) {
                    sweepRepeatedly(clock, server.instance(RetentionSweep.class));
                }
                ChildServer.say(ARMED);
            }
        });
    }

    /**
     * Moves the clock past the {@code orders} retention (7 days) and sweeps every 100 ms on a thread of its own:
     * everything materialised so far becomes trimmable. When five sweeps in a row found nothing to trim (events
     * published since the shift are younger than the window), the clock moves on again, so that trims keep coming
     * whatever the flusher's lag (a second trim used to need events acknowledged before the shift and flushed after
     * the first sweep, which a fast server does not always leave).
     */
    private static void sweepRepeatedly(ShiftableClock clock, RetentionSweep sweep) {
        clock.shift(Duration.ofDays(8));
        int[] emptySweeps = {0};
        ScheduledExecutorService sweeper = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "flush-crash-sweeper");
            thread.setDaemon(true);
            return thread;
        });
        sweeper.scheduleWithFixedDelay(() -> {
            try {
                if (!sweep.sweep().isEmpty()) {
                    emptySweeps[0] = 0;
                } else if (++emptySweeps[0] == 5) {
                    clock.shift(Duration.ofDays(8));
                    emptySweeps[0] = 0;
                }
            } catch (RuntimeException e) {
                e.printStackTrace(); // and sweep again: a thrown task would end the schedule
            }
        }, 0, 100, TimeUnit.MILLISECONDS);
    }
}
