package dev.interlace.integration.crash;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/** A {@link CrashServerMain} running in its own JVM (see {@link ChildJvm}). */
final class CrashChild extends ChildJvm {

    private final int triggerCommit;

    private CrashChild(Process process, Path stderr, String description, int triggerCommit) {
        super(process, stderr, description, CrashServerMain.FAULT_FIRED);
        this.triggerCommit = triggerCommit;
    }

    /** Spawns a child; {@link #awaitListening()} waits until it serves. */
    static CrashChild spawn(Path dataDirectory, FaultPoint fault, int triggerCommit, Path stderr, String classPath,
            Path scratch) throws IOException {
        return spawn(dataDirectory, fault, triggerCommit, Duration.ZERO, stderr, classPath, scratch);
    }

    /** The same, with the child's clock {@code clockShift} ahead. */
    static CrashChild spawn(Path dataDirectory, FaultPoint fault, int triggerCommit, Duration clockShift, Path stderr,
            String classPath, Path scratch) throws IOException {
        Process process = launch(CrashServerMain.class, List.of(dataDirectory.toString(), fault.argument(),
                Integer.toString(triggerCommit), Long.toString(clockShift.toMillis())), stderr, classPath, scratch);
        return new CrashChild(process, stderr, fault.argument() + "@" + triggerCommit + " pid " + process.pid(),
                triggerCommit);
    }

    /**
     * Arms the trim's faults and has the child run its retention sweep, expected to trim through {@code bound}, on a
     * thread of its own; returns once the child confirms it is armed.
     */
    void sweep(long bound) throws IOException {
        armWith(CrashServerMain.SWEEP + bound);
    }

    /** The armed commit the child halts at. */
    int triggerCommit() {
        return triggerCommit;
    }
}
