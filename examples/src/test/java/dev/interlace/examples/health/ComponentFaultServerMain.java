package dev.interlace.examples.health;

import dev.interlace.runtime.Interlace;
import dev.interlace.runtime.config.ConfigLoader;
import dev.interlace.runtime.config.InterlaceConfig;
import dev.interlace.runtime.ops.FatalErrors;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

/**
 * The server a component-failure test runs in a child JVM: {@code ComponentFaultServerMain DATA_DIR FAULT EXIT_MS}
 * starts Interlace on an ephemeral port over {@code DATA_DIR} with {@link ComponentFaultModule} (the process exits
 * {@code EXIT_MS} after a component that serves publishes failed for good), prints {@value #LISTENING}{@code <uri>},
 * and throws {@code FAULT} while armed: the line {@value #ARM} on standard input arms it, {@value #DISARM} disarms it
 * (each acknowledged with the line itself). It halts when its standard input closes, so that it never outlives the
 * test JVM.
 */
public final class ComponentFaultServerMain {

    static final String LISTENING = "interlace listening on ";
    static final String ARM = "arm";
    static final String DISARM = "disarm";

    private ComponentFaultServerMain() {}

    public static void main(String[] args) throws IOException {
        if (args.length != 3) {
            System.err.println("usage: ComponentFaultServerMain DATA_DIR flusher-error|writer-error|model-error"
                    + "|model-out-of-memory|seal-failure EXIT_MS");
            System.exit(2);
        }
        ComponentFault fault = ComponentFault.parse(args[1]);
        Duration exitAfter = Duration.ofMillis(Long.parseLong(args[2]));
        // An empty environment: INTERLACE_* variables of whoever runs the tests must not change the child.
        InterlaceConfig config = ConfigLoader.load(new String[] {"--port", "0", "--data-dir", args[0],
                "--flush-delay-ms", "50"}, Map.of()).config();
        FatalErrors.installDefaultHandler(); // as the serve command does
        Interlace server = Interlace.builder()
                .config(config)
                .override(new ComponentFaultModule(fault, exitAfter))
                .start();
        Runtime.getRuntime().addShutdownHook(new Thread(server::close, "component-fault-shutdown"));
        System.out.println(LISTENING + server.uri());
        System.out.flush();

        BufferedReader parent = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = parent.readLine()) != null) {
            String command = line.strip();
            if (command.equals(ARM) || command.equals(DISARM)) {
                ComponentFault.arm(command.equals(ARM));
                System.out.println(command);
                System.out.flush();
            }
        }
        Runtime.getRuntime().halt(3);
    }
}
