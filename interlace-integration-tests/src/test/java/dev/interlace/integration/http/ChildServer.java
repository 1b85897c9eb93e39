package dev.interlace.integration.http;

import dev.interlace.runtime.cli.Main;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * {@code interlace serve} in a child JVM with a heap of its own, for the tests of memory bounds: its standard error is
 * kept in a file (the tail of it explains a failed assertion), and it is stopped after each test. Registered as an
 * extension: {@code @RegisterExtension final ChildServer server = new ChildServer();}.
 */
final class ChildServer implements AfterEachCallback {

    /** A client on HTTP/1.1 (one connection a request), as the tests' many concurrent clients are. */
    final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(30)).build();

    private Process process;
    private Path stderr;

    /**
     * Starts the server with {@code heap} (e.g. {@code -Xmx256m}) and {@code flags} on a data directory under
     * {@code scratch}; returns its address once it listens.
     */
    URI start(Path scratch, String heap, String... flags) throws IOException {
        stderr = scratch.resolve("stderr.txt");
        List<String> command = new ArrayList<>(List.of(SmallHeapFloodTest.java(), heap, "-cp",
                System.getProperty("java.class.path"), Main.class.getName(), "serve", "--port", "0", "--data-dir",
                scratch.resolve("data").toString()));
        command.addAll(List.of(flags));
        process = new ProcessBuilder(command).redirectError(stderr.toFile()).start();
        return SmallHeapFloodTest.listening(process);
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** The last 4 000 characters the server wrote to its standard error. */
    String stderr() {
        try {
            String text = Files.readString(stderr);
            return text.length() <= 4_000 ? text : "…" + text.substring(text.length() - 4_000);
        } catch (IOException e) {
            return "(no stderr: " + e + ")";
        }
    }

    @Override
    public void afterEach(ExtensionContext context) throws InterruptedException {
        if (process != null) {
            process.destroy();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
    }
}
