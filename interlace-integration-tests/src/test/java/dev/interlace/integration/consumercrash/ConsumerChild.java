package dev.interlace.integration.consumercrash;

import dev.interlace.integration.crash.ChildOutput;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
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
    private final CompletableFuture<Void> started = new CompletableFuture<>();
    private final ChildOutput stdout;

    private ConsumerChild(String owner, Path out, Path ops, Path stderr, Process process) {
        this.owner = owner;
        this.out = out;
        this.ops = ops;
        this.stderr = stderr;
        this.process = process;
        this.stdout = new ChildOutput(process, "consumer-child-" + owner, line -> {
            if (line.equals(ConsumerMain.STARTED)) {
                started.complete(null);
            }
        }, () -> started.complete(null));
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
        return stdout.lines().stream().filter(line -> line.startsWith(ConsumerMain.HALTING)).findFirst()
                .orElse(null);
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
        stdout.appendTo(text);
        try {
            text.append("--- stderr:\n").append(ChildOutput.tail(stderr, 3000));
            text.append("--- group operations (last 3000 chars):\n").append(ChildOutput.tail(ops, 3000));
        } catch (IOException e) {
            text.append("(unreadable: ").append(e.getMessage()).append(')');
        }
        return text.toString();
    }
}
