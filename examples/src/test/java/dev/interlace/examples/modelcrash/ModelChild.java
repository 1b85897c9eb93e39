package dev.interlace.examples.modelcrash;

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
 * A {@link ModelCrashServerMain} in its own JVM, with (a copy of) the test's class path. Its standard output is read
 * on a daemon thread (listening line, fault marker); its standard error goes to a file kept for failure messages.
 * (Adapted from {@code dev.interlace.examples.crash.CrashChild} and {@code flushcrash.FlushChild}.)
 */
final class ModelChild implements AutoCloseable {

    private static final long START_TIMEOUT_SECONDS = 60;
    private static final long EXIT_TIMEOUT_SECONDS = 30;

    private final Process process;
    private final Path stderr;
    private final String description;
    private final CompletableFuture<URI> listening = new CompletableFuture<>();
    private final CompletableFuture<String> faultFired = new CompletableFuture<>();
    private final List<String> stdout = new ArrayList<>();

    private ModelChild(Process process, Path stderr, String description) {
        this.process = process;
        this.stderr = stderr;
        this.description = description;
        Thread reader = new Thread(this::readStdout, "model-child-stdout-" + process.pid());
        reader.setDaemon(true);
        reader.start();
    }

    /** Spawns a child; {@link #awaitListening()} waits until it serves. */
    static ModelChild spawn(Path dataDirectory, ModelFault fault, int trigger, Path stderr, String classPath,
            Path scratch) throws IOException {
        List<String> command = List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                // Start-up speed matters more than peak speed here; the parent and the child share the cores.
                "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx256m", "-Xss512k", "-Xshare:auto",
                // sqlite-jdbc and DuckDB extract their native libraries per JVM; a halted JVM never deletes them.
                "-Dorg.sqlite.tmpdir=" + scratch, "-Djava.io.tmpdir=" + scratch,
                "-cp", classPath,
                ModelCrashServerMain.class.getName(),
                dataDirectory.toString(), fault.argument(), Integer.toString(trigger));
        Process process = new ProcessBuilder(command)
                .redirectError(ProcessBuilder.Redirect.appendTo(stderr.toFile()))
                .start();
        return new ModelChild(process, stderr, fault.argument() + "@" + trigger + " pid " + process.pid());
    }

    private void readStdout() {
        try (BufferedReader lines = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = lines.readLine()) != null) {
                synchronized (stdout) {
                    stdout.add(line);
                }
                if (line.startsWith(ModelCrashServerMain.LISTENING)) {
                    listening.complete(URI.create(line.substring(ModelCrashServerMain.LISTENING.length()).strip()));
                } else if (line.startsWith(ModelCrashServerMain.FAULT_FIRED)) {
                    faultFired.complete(line.substring(ModelCrashServerMain.FAULT_FIRED.length()));
                }
            }
        } catch (IOException e) {
            // The child died; whoever waits learns it from the exit status.
        } finally {
            listening.completeExceptionally(new IllegalStateException("the child " + description
                    + " closed its output without listening"));
            faultFired.complete(null);
        }
    }

    /** Waits for the listening line; fails with the child's output when it dies or takes too long. */
    URI awaitListening() {
        try {
            return listening.get(START_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for " + description, e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("the child " + description + " did not start listening" + diagnostics(),
                    e);
        }
    }

    URI uri() {
        return listening.getNow(null);
    }

    long pid() {
        return process.pid();
    }

    /** Waits up to {@code timeout} for the child to exit on its own; true when it did. */
    boolean awaitExit(Duration timeout) throws InterruptedException {
        return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    int exitStatus() {
        return process.exitValue();
    }

    /** The marker printed just before halting ({@code "<fault> hit=N model=.. pid=P ... from=F rows=R ..."}). */
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

    /** Asks the child to stop (SIGTERM: it drains, closes the warehouse and the log) and waits. */
    void stopGracefully() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(EXIT_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(EXIT_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            throw new IllegalStateException("the child " + description + " did not stop within "
                    + EXIT_TIMEOUT_SECONDS + " s; killed it" + diagnostics());
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
