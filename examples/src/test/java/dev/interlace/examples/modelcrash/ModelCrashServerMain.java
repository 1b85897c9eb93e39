package dev.interlace.examples.modelcrash;

import dev.interlace.runtime.Interlace;
import dev.interlace.runtime.config.ConfigLoader;
import dev.interlace.runtime.config.InterlaceConfig;
import java.io.IOException;
import java.io.InputStream;
import java.util.Map;

/**
 * The server a model-crash test runs in a child JVM: {@code ModelCrashServerMain DATA_DIR FAULT N} starts Interlace
 * (every stream and model on the class path, as in production) on an ephemeral port over {@code DATA_DIR}, with the
 * {@link ModelProbe} auditing {@code clicks_enriched} and halting at {@code FAULT} ({@link ModelFault}) on the
 * {@code N}-th batch that processes rows, and prints {@value #LISTENING}{@code <uri>} once ready. It exits when its
 * standard input closes, so a child never outlives a test JVM that died without killing it.
 */
public final class ModelCrashServerMain {

    static final String LISTENING = "interlace listening on ";
    static final String FAULT_FIRED = "model fault fired: ";

    private ModelCrashServerMain() {}

    public static void main(String[] args) throws IOException {
        if (args.length != 3) {
            System.err.println("usage: ModelCrashServerMain DATA_DIR FAULT N");
            System.exit(2);
        }
        ModelProbe probe = new ModelProbe(ModelFault.parse(args[1]), Integer.parseInt(args[2]));
        // An empty environment: INTERLACE_* variables of whoever runs the tests must not change the child.
        InterlaceConfig config = ConfigLoader.load(new String[] {"--port", "0", "--data-dir", args[0]}, Map.of())
                .config();
        Interlace server = Interlace.builder()
                .config(config)
                .override(new ModelFaultModule(probe))
                .start();
        Runtime.getRuntime().addShutdownHook(new Thread(server::close, "model-crash-server-shutdown"));
        System.out.println(LISTENING + server.uri());
        System.out.flush();

        InputStream parent = System.in;
        while (parent.read() >= 0) {
            // nothing is read from the parent; its going away ends the child
        }
        Runtime.getRuntime().halt(3);
    }
}
