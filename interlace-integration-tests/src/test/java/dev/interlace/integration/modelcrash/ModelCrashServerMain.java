package dev.interlace.integration.modelcrash;

import dev.interlace.integration.crash.ChildFault;
import dev.interlace.integration.crash.ChildJvm;
import dev.interlace.integration.crash.ChildServer;
import java.io.IOException;
import java.util.List;

/**
 * The server a model-crash test runs in a child JVM: {@code ModelCrashServerMain DATA_DIR FAULT N} starts Interlace
 * (every stream and model on the class path, as in production) on an ephemeral port over {@code DATA_DIR}, with the
 * {@link ModelProbe} auditing {@code clicks_enriched} and halting at {@code FAULT} ({@link ModelFault}) on the
 * {@code N}-th batch that processes rows, and prints {@value ChildJvm#LISTENING}{@code <uri>} once ready. It exits when its
 * standard input closes, so a child never outlives a test JVM that died without killing it.
 */
public final class ModelCrashServerMain {

    static final String FAULT_FIRED = "model fault fired: ";

    private ModelCrashServerMain() {}

    public static void main(String[] args) throws IOException {
        ChildServer.requireArguments(args, 3, "ModelCrashServerMain DATA_DIR FAULT N");
        ModelProbe probe = new ModelProbe(ChildFault.parse(ModelFault.class, args[1]), Integer.parseInt(args[2]));
        ChildServer.start(List.of("--port", "0", "--data-dir", args[0]), new ModelFaultModule(probe));
        ChildServer.obey(command -> {
            // no commands: the parent's going away ends the child
        });
    }
}
