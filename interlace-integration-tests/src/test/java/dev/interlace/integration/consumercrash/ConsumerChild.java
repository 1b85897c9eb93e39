package dev.interlace.integration.consumercrash;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** A {@link ConsumerMain} in its own JVM; its side-effect file is {@link #out}, its group-operation log {@link #ops}. */
final class ConsumerChild implements AutoCloseable {

    final String owner;
    final Path out;
    final Path ops;
    private final Process process;
    private final Path stderr;
    private final List<String> stdout = new ArrayList<>();
    private final CompletableFuture<Void> started = new CompletableFuture<>();

    private ConsumerChild(String owner, Path out, Path ops, Path stderr, Process process) {
        this.owner = owner;
        this.out = out;
        this.ops = ops;
        this.stderr = stderr;
        this.process = process;
        Thread reader = new Thread(this::readStdout, "consumer-child-" + owner);
        reader.setDaemon(true);
        reader.start();
    }

    /** Spawns {@code ConsumerMain} with {@code options} ({@code key=value}) plus owner, out and ops under {@code dir}. */
    static ConsumerChild spawn(String classPath, Path dir, String owner, List<String> options) throws IOException {
        Path out = dir.resolve(owner + ".offsets");
        Path ops = dir.resolve(owner + ".ops");
        Path stderr = dir.resolve(owner + ".stderr");
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx128m", "-Xss512k", "-Xshare:auto",
                "-cp", classPath, ConsumerMain.class.getName(),
                "owner=" + owner, "out=" + out, "ops=" + ops));
        command.addAll(options);
        Process process = new ProcessBuilder(command)
                .redirectError(ProcessBuilder.Redirect.appendTo(stderr.toFile()))
                .start();
        return new ConsumerChild(owner, out, ops, stderr, process);
    }

    private void readStdout() {
        try (BufferedReader lines = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = lines.readLine()) != null) {
                synchronized (stdout) {
                    stdout.add(line);
                }
                if (line.equals(ConsumerMain.STARTED)) {
                    started.complete(null);
                }
            }
        } catch (IOException e) {
            // the child died; its exit status tells
        } finally {
            started.complete(null);
        }
    }

    void awaitStarted(Duration timeout) throws Exception {
        started.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Asks it to stop (StreamConsumer.stop(): it finishes the batch, commits and releases the lease). */
    void stop() throws IOException {
        if (process.isAlive()) {
            process.getOutputStream().write("stop\n".getBytes(StandardCharsets.UTF_8));
            process.getOutputStream().flush();
        }
    }

    boolean awaitExit(Duration timeout) throws InterruptedException {
        return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    int exitStatus() {
        return process.exitValue();
    }

    /** The line it printed when it halted at its fault point, or null. */
    String haltLine() {
        synchronized (stdout) {
            return stdout.stream().filter(line -> line.startsWith(ConsumerMain.HALTING)).findFirst().orElse(null);
        }
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroyForcibly();
            try {
                process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    String diagnostics() {
        StringBuilder text = new StringBuilder("\n--- consumer ").append(owner).append(" (pid ")
                .append(process.pid()).append(") stdout:\n");
        synchronized (stdout) {
            stdout.forEach(line -> text.append(line).append('\n'));
        }
        try {
            String errors = Files.exists(stderr) ? Files.readString(stderr) : "";
            text.append("--- stderr:\n").append(errors.length() > 3000 ? errors.substring(errors.length() - 3000)
                    : errors);
            String operations = Files.exists(ops) ? Files.readString(ops) : "";
            text.append("--- group operations (last 3000 chars):\n").append(operations.length() > 3000
                    ? operations.substring(operations.length() - 3000) : operations);
        } catch (IOException e) {
            text.append("(unreadable: ").append(e.getMessage()).append(')');
        }
        return text.toString();
    }
}
