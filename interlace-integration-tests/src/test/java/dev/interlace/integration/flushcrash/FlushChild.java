package dev.interlace.integration.flushcrash;

import dev.interlace.integration.crash.ChildJvm;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/** A {@link FlushCrashServerMain} in its own JVM (see {@link ChildJvm}). */
final class FlushChild extends ChildJvm {

    private FlushChild(Process process, Path stderr, String description) {
        super(process, stderr, description, FlushCrashServerMain.FAULT_FIRED);
    }

    /** Spawns a child; {@link #awaitListening()} waits until it serves. */
    static FlushChild spawn(Path dataDirectory, FlushFault fault, int trigger, Path stderr, String classPath,
            Path scratch) throws IOException {
        Process process = launch(FlushCrashServerMain.class, List.of(dataDirectory.toString(), fault.argument(),
                Integer.toString(trigger)), stderr, classPath, scratch);
        return new FlushChild(process, stderr, fault.argument() + "@" + trigger + " pid " + process.pid());
    }
}
