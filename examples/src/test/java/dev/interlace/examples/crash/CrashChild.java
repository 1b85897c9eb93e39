package dev.interlace.examples.crash;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
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
 * A {@link CrashServerMain} running in its own JVM, with (a copy of) the test's class path. Its standard output is
 * read on a daemon thread (for the listening line, the arming confirmation and the fault marker); its standard error
 * goes to a file kept for failure messages.
 */
final class CrashChild implements AutoCloseable {

    private static final long START_TIMEOUT_SECONDS = 60;
    private static final long EXIT_TIMEOUT_SECONDS = 30;

    private final Process process;
    private final Path stderr;
    private final String description;
    private final int triggerCommit;
    private final CompletableFuture<URI> listening = new CompletableFuture<>();
    private final CompletableFuture<String> faultFired = new CompletableFuture<>();
    private final CompletableFuture<Void> armed = new CompletableFuture<>();
    private final List<String> stdout = new ArrayList<>();

    private CrashChild(Process process, Path stderr, String description, int triggerCommit) {
        this.process = process;
        this.triggerCommit = triggerCommit;
        this.stderr = stderr;
        this.description = description;
        Thread reader = new Thread(this::readStdout, "crash-child-stdout-" + process.pid());
        reader.setDaemon(true);
        reader.start();
    }

    /** Spawns a child; {@link #awaitListening()} waits until it serves. */
    static CrashChild spawn(Path dataDirectory, FaultPoint fault, int triggerCommit, Path stderr, String classPath,
            Path scratch) throws IOException {
        List<String> command = List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                // Start-up speed matters more than peak speed here; the parent and the child share two cores.
                "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx256m", "-Xss512k",
                // sqlite-jdbc extracts its native library per JVM; a halted JVM never deletes it, so keep it here.
                "-Dorg.sqlite.tmpdir=" + scratch,
                "-cp", classPath,
                CrashServerMain.class.getName(),
                dataDirectory.toString(), fault.argument(), Integer.toString(triggerCommit));
        Process process = new ProcessBuilder(command)
                .redirectError(ProcessBuilder.Redirect.appendTo(stderr.toFile()))
                .start();
        return new CrashChild(process, stderr, fault.argument() + "@" + triggerCommit + " pid " + process.pid(),
                triggerCommit);
    }

    private void readStdout() {
        try (BufferedReader lines = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = lines.readLine()) != null) {
                synchronized (stdout) {
                    stdout.add(line);
                }
                if (line.startsWith(CrashServerMain.LISTENING)) {
                    listening.complete(URI.create(line.substring(CrashServerMain.LISTENING.length()).strip()));
                } else if (line.equals(CrashServerMain.ARMED)) {
                    armed.complete(null);
                } else if (line.startsWith(CrashServerMain.FAULT_FIRED)) {
                    faultFired.complete(line.substring(CrashServerMain.FAULT_FIRED.length()));
                }
            }
        } catch (IOException e) {
            // The child died; whoever waits learns it from the exit status.
        } finally {
            listening.completeExceptionally(new IllegalStateException("the child " + description
                    + " closed its output without listening"));
            faultFired.complete(null);
            armed.completeExceptionally(new IllegalStateException("the child " + description + " exited"));
        }
    }

    /** Arms the child's fault point (its commits count from now on) and waits until it confirms. */
    void arm() throws IOException {
        process.getOutputStream().write((CrashServerMain.ARM + "\n").getBytes(StandardCharsets.UTF_8));
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

    /** Waits for the listening line; fails with the child's stderr when it dies or takes too long. */
    URI awaitListening() {
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

    /** The armed commit the child halts at. */
    int triggerCommit() {
        return triggerCommit;
    }

    /** Where it listens; null until it does. */
    URI uri() {
        return listening.getNow(null);
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** SIGKILL, then waits for the process to be gone. */
    void kill() {
        process.destroyForcibly();
        awaitGone();
    }

    /** Waits (bounded) for the child to exit; kills it when it takes too long. */
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

    /** Waits up to {@code timeout} for the child to exit on its own; true when it did. */
    boolean awaitExit(Duration timeout) throws InterruptedException {
        return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** The exit status of a child that has exited. */
    int exitStatus() {
        return process.exitValue();
    }

    /**
     * The fault marker the child printed just before halting ({@code "<fault> commit=N requests=R entries=E"}), or
     * null when it died another way. Only meaningful once the child has exited.
     */
    String faultMarker() {
        try {
            return faultFired.get(EXIT_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        } catch (ExecutionException | TimeoutException e) {
            return null;
        }
    }

    /** Asks the child to stop (SIGTERM: it drains and closes the log) and waits; kills it when that takes too long. */
    void stopGracefully() {
        process.destroy();
        awaitGone();
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

    /** The child's output so far, for failure messages. */
    String diagnostics() {
        StringBuilder text = new StringBuilder("\n--- child ").append(description).append(" stdout:\n");
        synchronized (stdout) {
            stdout.forEach(line -> text.append(line).append('\n'));
        }
        text.append("--- stderr (").append(stderr).append(", last 4000 chars):\n");
        try {
            String errors = Files.exists(stderr) ? Files.readString(stderr, StandardCharsets.UTF_8) : "";
            text.append(errors.length() > 4000 ? errors.substring(errors.length() - 4000) : errors);
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
