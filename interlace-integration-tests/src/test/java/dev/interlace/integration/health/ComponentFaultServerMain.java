package dev.interlace.integration.health;

import dev.interlace.integration.crash.ChildFault;
import dev.interlace.integration.crash.ChildJvm;
import dev.interlace.integration.crash.ChildServer;
import dev.interlace.runtime.ops.FatalErrors;
import java.io.IOException;
import java.time.Duration;
import java.util.List;

/**
 * The server a component-failure test runs in a child JVM: {@code ComponentFaultServerMain DATA_DIR FAULT EXIT_MS}
 * starts Interlace on an ephemeral port over {@code DATA_DIR} with {@link ComponentFaultModule} (the process exits
 * {@code EXIT_MS} after a component that serves publishes failed for good), prints {@value ChildJvm#LISTENING}{@code <uri>},
 * and throws {@code FAULT} while armed: the line {@value #ARM} on standard input arms it, {@value #DISARM} disarms it
 * (each acknowledged with the line itself). It halts when its standard input closes, so that it never outlives the
 * test JVM.
 */
public final class ComponentFaultServerMain {

    static final String ARM = "arm";
    static final String DISARM = "disarm";

    private ComponentFaultServerMain() {}

    public static void main(String[] args) throws IOException {
        ChildServer.requireArguments(args, 3, "ComponentFaultServerMain DATA_DIR flusher-error|writer-error|model-error"
                + "|model-out-of-memory|seal-failure EXIT_MS");
        ComponentFault fault = ChildFault.parse(ComponentFault.class, args[1]);
        Duration exitAfter = Duration.ofMillis(Long.parseLong(args[2]));
        FatalErrors.installDefaultHandler(); // as the serve command does
        ChildServer.start(List.of("--port", "0", "--data-dir", args[0], "--flush-delay-ms", "50"),
                new ComponentFaultModule(fault, exitAfter));
        ChildServer.obey(command -> {
            if (command.equals(ARM) || command.equals(DISARM)) {
                ComponentFault.arm(command.equals(ARM));
                ChildServer.say(command);
            }
        });
    }
}
