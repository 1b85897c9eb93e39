package dev.interlace.integration.crash;

import dev.interlace.runtime.testing.Eventually;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A test server running in a JVM of its own, as every crash harness starts it: (a copy of) the test's class path,
 * standard output read on a daemon thread for the listening line, the arming confirmation and the fault marker,
 * standard error kept in a file for failure messages. The child's main prints {@value #LISTENING}{@code <uri>} when
 * ready, acknowledges {@value #ARM} on standard input with {@value #ARMED}, and prints its fault marker (a prefix of
 * its own, then the details) just before halting.
 */
public class ChildJvm implements AutoCloseable {

    public static final String LISTENING = "interlace listening on ";
    public static final String ARM = "arm";
    public static final String ARMED = "armed";

    protected static final long START_TIMEOUT_SECONDS = 60;
    protected static final long EXIT_TIMEOUT_SECONDS = 30;

    private final Process process;
    private final Path stderr;
    private final String description;
    private final String faultPrefix;
    private final CompletableFuture<URI> listening = new CompletableFuture<>();
    private final CompletableFuture<String> faultFired = new CompletableFuture<>();
    private final CompletableFuture<Void> armed = new CompletableFuture<>();
    private final ChildOutput stdout;

    protected ChildJvm(Process process, Path stderr, String description, String faultPrefix) {
        this.process = process;
        this.stderr = stderr;
        this.description = description;
        this.faultPrefix = faultPrefix;
        this.stdout = new ChildOutput(process, "child-stdout-" + process.pid(), this::onLine, this::onEnd);
    }

    /**
     * Starts {@code main} with {@code arguments} (see {@link #launch}) as a child whose fault marker starts with
     * {@code faultPrefix} (null: it prints none); {@link #awaitListening()} waits until it serves.
     */
    public static ChildJvm start(Class<?> main, List<String> arguments, Path stderr, String classPath, Path scratch,
            String faultPrefix) throws IOException {
        Process process = launch(main, arguments, stderr, classPath, scratch);
        return new ChildJvm(process, stderr, main.getSimpleName() + " " + String.join(" ", arguments) + " pid "
                + process.pid(), faultPrefix);
    }

    /** The HTTP client the harnesses talk to a child with: HTTP/1.1, 5 s to connect. */
    public static HttpClient httpClient() {
        return HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5))
                .build();
    }

    /** A POST of the JSON {@code body} to {@code uri} that gives up after {@code timeout}: how the loads publish. */
    public static HttpRequest jsonPost(URI uri, String body, Duration timeout) {
        return HttpRequest.newBuilder(uri)
                .timeout(timeout)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build();
    }

    /** Starts {@code main} with {@code arguments} in a new JVM tuned for quick start-up. */
    public static Process launch(Class<?> main, List<String> arguments, Path stderr, String classPath, Path scratch)
            throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                // Start-up speed matters more than peak speed here; the parent and the child share two cores.
                "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx256m", "-Xss512k", "-Xshare:auto",
                // sqlite-jdbc and DuckDB extract their native libraries per JVM; a halted JVM never deletes them.
                "-Dorg.sqlite.tmpdir=" + scratch, "-Djava.io.tmpdir=" + scratch,
                "-cp", classPath,
                main.getName()));
        command.addAll(arguments);
        return new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.appendTo(stderr.toFile())).start();
    }

    private void onLine(String line) {
        if (line.startsWith(LISTENING)) {
            listening.complete(URI.create(line.substring(LISTENING.length()).strip()));
        } else if (line.equals(ARMED)) {
            armed.complete(null);
        } else if (faultPrefix != null && line.startsWith(faultPrefix)) {
            faultFired.complete(line.substring(faultPrefix.length()));
        }
    }

    private void onEnd() {
        listening.completeExceptionally(new IllegalStateException("the child " + description
                + " closed its output without listening"));
        faultFired.complete(null);
        armed.completeExceptionally(new IllegalStateException("the child " + description + " exited"));
    }

    /** Arms the child's fault point (its hits count from now on) and waits until it confirms. */
    public void arm() throws IOException {
        armWith(ARM);
    }

    /** Sends {@code command}, which arms the child's fault point, and waits until it confirms. */
    protected void armWith(String command) throws IOException {
        process.getOutputStream().write((command + "\n").getBytes(StandardCharsets.UTF_8));
        process.getOutputStream().flush();
        try {
            armed.get(START_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while arming " + description, e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("the child " + description + " did not confirm arming" + diagnostics(), e);
        }
    }

    /**
     * Sends {@code command} on standard input and waits until the child prints it back, after it was sent: how a child
     * that takes more than one command acknowledges each (fails with the child's output when it does not).
     */
    public void command(String command) throws IOException {
        int before = stdout.lines().size();
        process.getOutputStream().write((command + "\n").getBytes(StandardCharsets.UTF_8));
        process.getOutputStream().flush();
        Eventually.until("the child " + description + " acknowledges " + command,
                Duration.ofSeconds(START_TIMEOUT_SECONDS), () -> {
                    List<String> lines = stdout.lines();
                    if (lines.subList(before, lines.size()).contains(command)) {
                        return true;
                    }
                    if (!process.isAlive()) {
                        throw new IllegalStateException("the child " + description + " exited before it acknowledged "
                                + command + diagnostics());
                    }
                    return false;
                });
    }

    /** Waits for the listening line; fails with the child's output when it dies or takes too long. */
    public URI awaitListening() {
        try {
            return listening.get(START_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for " + description, e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("the child " + description + " exited without listening"
                    + diagnostics(), e);
        } catch (TimeoutException e) {
            throw new IllegalStateException("the child " + description + " did not start listening within "
                    + START_TIMEOUT_SECONDS + " s" + diagnostics(), e);
        }
    }

    /** Where it listens; null until it does. */
    public URI uri() {
        return listening.getNow(null);
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** SIGKILL, then waits for the process to be gone. */
    public void kill() {
        process.destroyForcibly();
        awaitGone();
    }

    /** Waits up to {@code timeout} for the child to exit on its own; true when it did. */
    public boolean awaitExit(Duration timeout) throws InterruptedException {
        return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** The exit status of a child that has exited. */
    public int exitStatus() {
        return process.exitValue();
    }

    /** The fault marker printed just before halting (after its prefix), or null when the child died another way. */
    public String faultMarker() {
        try {
            return faultFired.get(EXIT_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        } catch (ExecutionException | TimeoutException e) {
            return null;
        }
    }

    /** Asks the child to stop (SIGTERM: it drains and closes cleanly) and waits; kills it when that takes too long. */
    public void stopGracefully() {
        process.destroy();
        awaitGone();
    }

    private void awaitGone() {
        try {
            if (!process.waitFor(EXIT_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(EXIT_TIMEOUT_SECONDS, TimeUnit.SECONDS);
                throw new IllegalStateException("the child " + description + " did not exit within "
                        + EXIT_TIMEOUT_SECONDS + " s; killed it" + diagnostics());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
            throw new IllegalStateException("interrupted while waiting for " + description, e);
        }
    }

    /** Kills the child if it still runs; safe to call repeatedly. */
    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroyForcibly();
            try {
                process.waitFor(EXIT_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** What the child wrote to its standard error so far. */
    public String stderr() throws IOException {
        return Files.exists(stderr) ? Files.readString(stderr, StandardCharsets.UTF_8) : "";
    }

    /** The child's output so far, for failure messages. */
    public String diagnostics() {
        StringBuilder text = new StringBuilder("\n--- child ").append(description).append(" stdout:\n");
        stdout.appendTo(text);
        text.append("--- stderr (").append(stderr).append(", last 4000 chars):\n");
        try {
            text.append(ChildOutput.tail(stderr, 4000));
        } catch (IOException e) {
            text.append("(unreadable: ").append(e.getMessage()).append(')');
        }
        return text.toString();
    }

    @Override
    public String toString() {
        return "child " + description;
    }
}
