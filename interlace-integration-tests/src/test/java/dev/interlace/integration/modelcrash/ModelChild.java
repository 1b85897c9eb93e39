package dev.interlace.integration.modelcrash;

import dev.interlace.integration.crash.ChildJvm;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/** A {@link ModelCrashServerMain} in its own JVM (see {@link ChildJvm}). */
final class ModelChild extends ChildJvm {

    private ModelChild(Process process, Path stderr, String description) {
        super(process, stderr, description, ModelCrashServerMain.FAULT_FIRED);
    }

    /** Spawns a child; {@link #awaitListening()} waits until it serves. */
    static ModelChild spawn(Path dataDirectory, ModelFault fault, int trigger, Path stderr, String classPath,
            Path scratch) throws IOException {
        Process process = launch(ModelCrashServerMain.class, List.of(dataDirectory.toString(), fault.argument(),
                Integer.toString(trigger)), stderr, classPath, scratch);
        return new ModelChild(process, stderr, fault.argument() + "@" + trigger + " pid " + process.pid());
    }
}
