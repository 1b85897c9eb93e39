package dev.interlace.runtime.queryprocess;

import dev.interlace.runtime.auth.KeyFile;
import dev.interlace.runtime.auth.Scope;
import dev.interlace.runtime.config.InterlaceConfig;
import dev.interlace.runtime.config.LogOptions;
import dev.interlace.runtime.health.ComponentHealth;
import dev.interlace.runtime.ops.DaemonThreads;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The server's query process: a child JVM (this JVM's binary and class path) that is a local replica of the warehouse
 * ({@code dev.interlace.runtime.QueryProcessMain}), started by the first query, watched and restarted here. It follows
 * the server's log, materialises it into {@code <data-dir>/query-replica} and answers {@code POST /sql} on loopback to
 * one key made for each run. What DuckDB cannot interrupt ends when the process is killed ({@link #kill}); a process
 * that ends for any reason is started again, with a pause that grows while starts keep failing. After
 * {@code --sql-process-idle-ms} without a query it is stopped, so that a server queried once does not materialise
 * everything twice for the rest of its life; the next query starts it again, and it catches up from its replica.
 *
 * <p>Its state is a component's ({@link ComponentHealth.Component#QUERY_PROCESS}): restarting while it is down, dead
 * once {@value #MAX_FAILED_STARTS} starts in a row failed (it is still tried again, every
 * {@value #MAX_PAUSE_MILLIS} ms).
 */
public final class QueryProcess implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(QueryProcess.class.getName());
    /** The replica's directory under the data directory. */
    public static final String DIRECTORY = "query-replica";
    /** The child's main class, named rather than imported: it assembles a server, which this package is part of. */
    public static final String MAIN = "dev.interlace.runtime.QueryProcessMain";
    /** What the child's first line of standard output begins with, followed by its port. */
    public static final String READY = "interlace-query-process listening on port ";
    static final int MAX_FAILED_STARTS = 5;
    static final long MAX_PAUSE_MILLIS = 30_000;
    private static final long START_TIMEOUT_MILLIS = 120_000;
    private static final Path NICE = Path.of("/usr/bin/nice");
    /**
     * How long the query process's flusher waits for more events: it materialises in large batches, which costs the
     * server's two cores far less than flushing as often as the server does, and a query's wait for what the
     * server's warehouse holds brings the flush forward (the flusher's {@code hurry}).
     */
    static final long FLUSH_DELAY_MILLIS = 1_000;
    /** How often the running query process is asked whether it fell behind a trimmed log. */
    private static final long WATCH_EVERY_MILLIS = 5_000;
    private final java.net.http.HttpClient health = java.net.http.HttpClient.newBuilder()
            .version(java.net.http.HttpClient.Version.HTTP_1_1).build();

    /** Where a running query process answers, and the secret of the key it accepts. */
    record Endpoint(int port, String secret, Process process) {}

    private final InterlaceConfig config;
    private final ComponentHealth components;
    private final Path directory;
    private final Thread supervisor;
    private volatile Endpoint endpoint;
    private volatile boolean closed;
    /** Completes once a started process listens; replaced by an incomplete one when the process is stopped idle. */
    private volatile CompletableFuture<Void> ready = new CompletableFuture<>();
    private final java.util.concurrent.atomic.AtomicBoolean started = new java.util.concurrent.atomic.AtomicBoolean();
    private final long idleMillis;
    /** Guards the queries' uses against an idle stop, and wakes the supervisor when a query wants the process. */
    private final Object uses = new Object();
    private int inUse;
    private boolean wanted;
    private long lastUsedNanos;

    /** A query's use of the process: while one is open, the process is not stopped for want of queries. */
    public interface Use extends AutoCloseable {
        @Override
        void close();
    }

    public QueryProcess(InterlaceConfig config, ComponentHealth components) {
        this.config = config;
        this.idleMillis = config.sqlProcessIdleMillis();
        this.components = components;
        this.directory = config.dataDirectory().resolve(DIRECTORY);
        this.supervisor = DaemonThreads.thread(this::supervise, "interlace-query-process");
    }

    /**
     * A query's use of the query process, which starts it in the background when it is not running: the first
     * {@code POST /sql} does, so that a server whose queries nobody runs pays nothing for it (no second JVM, no second
     * materialisation), and so does the first one after an idle stop. Close it once the query is answered.
     */
    public Use use() {
        synchronized (uses) {
            inUse++;
            lastUsedNanos = System.nanoTime();
            if (!wanted) {
                wanted = true;
                uses.notifyAll();
            }
        }
        if (started.compareAndSet(false, true)) {
            supervisor.start();
        }
        return () -> {
            synchronized (uses) {
                inUse--;
                lastUsedNanos = System.nanoTime();
            }
        };
    }

    /** The running query process, or null while it starts or restarts. */
    Endpoint endpoint() {
        return endpoint;
    }

    /** Completes once the query process listens: after the first query, or the first after an idle stop. */
    public CompletableFuture<Void> ready() {
        return ready;
    }

    /**
     * Kills {@code process} when it is still the running one (a query of it ran past its deadline): its computations
     * end with it, and the supervisor starts another.
     */
    void kill(Endpoint killed, String why) {
        if (endpoint == killed) {
            endpoint = null;
            components.failed(ComponentHealth.Component.QUERY_PROCESS, null, new IllegalStateException(why),
                    ComponentHealth.Fate.RESTARTING);
        }
        killed.process().destroyForcibly();
    }

    private void supervise() {
        int failedStarts = 0;
        long watchMillis = idleMillis > 0 ? Math.max(200, Math.min(WATCH_EVERY_MILLIS, idleMillis / 2))
                : WATCH_EVERY_MILLIS;
        while (!closed) {
            Process process = null;
            boolean idle = false;
            try {
                awaitWanted();
                process = launch();
                failedStarts = 0;
                while (!process.waitFor(watchMillis, TimeUnit.MILLISECONDS) && !closed) {
                    if (stopIdle(process)) {
                        idle = true;
                        break;
                    }
                    if (behindTrimmedLog(endpoint)) {
                        LOG.warning("the query process is behind what the log's retention trimmed; it is rebuilt"
                                + " from what the log holds");
                        endpoint = null;
                        process.destroyForcibly().waitFor();
                        deleteReplica();
                    }
                }
                if (!closed && !idle && endpoint != null) { // it ended by itself, not killed here: a pause before the next
                    LOG.warning("the query process ended by itself (exit status " + process.exitValue() + "; see"
                            + " query-process.log in " + directory + "); starting another in a second");
                    components.failed(ComponentHealth.Component.QUERY_PROCESS, null, new IllegalStateException(
                            "the query process ended with status " + process.exitValue()),
                            ComponentHealth.Fate.RESTARTING);
                    failedStarts = 1;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (IOException | RuntimeException e) {
                if (closed) {
                    return; // interrupted by close() while starting
                }
                failedStarts++;
                LOG.log(Level.WARNING, "the query process could not be started (" + failedStarts + " in a row)", e);
                components.failed(ComponentHealth.Component.QUERY_PROCESS, null, e, failedStarts >= MAX_FAILED_STARTS
                        ? ComponentHealth.Fate.DEAD : ComponentHealth.Fate.RESTARTING);
            } finally {
                endpoint = null;
                if (process != null) {
                    process.destroyForcibly();
                    try {
                        process.waitFor(); // its data directory lock is released before the next one starts
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
            }
            if (!closed && failedStarts > 0) {
                try {
                    Thread.sleep(Math.min(MAX_PAUSE_MILLIS, 500L << Math.min(failedStarts, 10)));
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    /** Waits while no query wants the process (before the first query, and after an idle stop). */
    private void awaitWanted() throws InterruptedException {
        synchronized (uses) {
            while (!wanted && !closed) {
                uses.wait();
            }
        }
    }

    /**
     * Stops {@code process} when no query used it for {@code --sql-process-idle-ms}: its input closes, so that it ends
     * by itself (its warehouse closed cleanly); killed if it has not within ten seconds. Queries that come meanwhile
     * wait for the next start.
     */
    private boolean stopIdle(Process process) throws InterruptedException {
        synchronized (uses) {
            if (idleMillis <= 0 || inUse > 0 || System.nanoTime() - lastUsedNanos < idleMillis * 1_000_000) {
                return false;
            }
            wanted = false;
            endpoint = null;
            ready = new CompletableFuture<>();
        }
        LOG.info("the query process had no query for " + idleMillis + " ms (--sql-process-idle-ms): stopped; the next"
                + " query starts it again");
        try (OutputStream in = process.getOutputStream()) {
            in.flush();
        } catch (IOException e) {
            LOG.log(Level.FINE, "closing the query process's input failed", e);
        }
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
        return true;
    }

    /**
     * Whether {@code running} stopped flushing a stream because the log was trimmed past its watermark (its
     * {@code /health/ready} says {@code flush_stopped}): the server's trims do not wait for the query process.
     */
    private boolean behindTrimmedLog(Endpoint running) {
        if (running == null) {
            return false;
        }
        try {
            java.net.http.HttpResponse<String> ready = health.send(java.net.http.HttpRequest.newBuilder(
                    java.net.URI.create("http://127.0.0.1:" + running.port() + "/health/ready"))
                    .timeout(java.time.Duration.ofSeconds(5)).GET().build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
            return ready.body().contains("flush_stopped");
        } catch (IOException e) {
            return false; // a process that does not answer is killed by the next query's deadline, or ends
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Deletes the replica's warehouse and records: the next query process materialises the log from its start. */
    private void deleteReplica() throws IOException {
        deleteUnder(directory);
        Files.deleteIfExists(directory);
    }

    /** Deletes what {@code root} holds, if it exists, keeping {@code root} itself. */
    private static void deleteUnder(Path root) throws IOException {
        if (!Files.isDirectory(root)) {
            return;
        }
        try (java.util.stream.Stream<Path> files = Files.walk(root)) {
            for (Path file : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                if (!file.equals(root)) {
                    Files.deleteIfExists(file);
                }
            }
        }
    }

    /** Starts a query process and returns it once it listens. */
    private Process launch() throws IOException, InterruptedException {
        Files.createDirectories(directory);
        // A key of this run only: the previous run's key is gone with its file.
        Files.deleteIfExists(KeyFile.file(directory));
        String secret;
        try (KeyFile keys = KeyFile.open(directory)) {
            secret = keys.create("query-process", List.of(new Scope(Scope.Kind.READ, null)), 0).secret();
        }
        emptyTemporaryDirectory();
        ProcessBuilder builder = new ProcessBuilder(command());
        builder.redirectError(ProcessBuilder.Redirect.appendTo(directory.resolve("query-process.log").toFile()));
        Process process = builder.start();
        try {
            int port = awaitPort(process);
            endpoint = new Endpoint(port, secret, process);
            components.recovered(ComponentHealth.Component.QUERY_PROCESS, null);
            ready.complete(null);
            LOG.info("the query process listens on 127.0.0.1:" + port + " (pid " + process.pid() + ")");
            return process;
        } catch (IOException | RuntimeException | InterruptedException e) {
            process.destroyForcibly();
            throw e;
        }
    }

    /**
     * The process's own temporary directory, emptied before each start. DuckDB's driver copies its native library
     * (about 60 MB) into the temporary directory of every JVM that loads it and removes the copy only when that JVM
     * exits normally; a process killed at a deadline would leave one behind in the system's directory each time.
     */
    private Path temporaryDirectory() {
        return directory.resolve("tmp");
    }

    private void emptyTemporaryDirectory() throws IOException {
        deleteUnder(temporaryDirectory());
        Files.createDirectories(temporaryDirectory());
    }

    /**
     * The port the process writes on its first line; its output is read to its end meanwhile, on a thread of its
     * own, so that nothing it writes later blocks it.
     */
    private static int awaitPort(Process process) throws IOException, InterruptedException {
        CompletableFuture<Integer> port = new CompletableFuture<>();
        Thread reader = DaemonThreads.thread(() -> {
            try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line = out.readLine(); line != null; line = out.readLine()) {
                    if (line.startsWith(READY)) {
                        port.complete(Integer.parseInt(line.substring(READY.length()).strip()));
                    }
                }
            } catch (IOException | RuntimeException e) {
                port.completeExceptionally(e);
            }
            port.completeExceptionally(new IOException("the query process ended before it listened (see"
                    + " query-process.log in its directory)"));
        }, "interlace-query-process-output");
        reader.start();
        try {
            return port.get(START_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IOException(e.getCause().getMessage(), e.getCause());
        } catch (java.util.concurrent.TimeoutException e) {
            throw new IOException("the query process did not listen within " + START_TIMEOUT_MILLIS + " ms");
        }
    }

    /**
     * The child's command line: this JVM's binary and class path, the server's directory, then serve flags; behind
     * {@code nice} where there is one, so that the server's own work (publishes, health, the flusher, the kill at a
     * deadline) goes first when queries take every core.
     */
    private List<String> command() {
        List<String> command = new ArrayList<>();
        if (Files.isExecutable(NICE)) {
            command.addAll(List.of(NICE.toString(), "-n", "10"));
        }
        command.add(ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        command.add("-Xmx" + Math.max(64L << 20, Runtime.getRuntime().maxMemory()));
        command.add("-Djava.io.tmpdir=" + temporaryDirectory().toAbsolutePath());
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(MAIN);
        command.add(config.dataDirectory().toAbsolutePath().toString());
        command.add(config.log().backend());
        flag(command, "data-dir", directory.toAbsolutePath().toString());
        flag(command, "port", "0");
        flag(command, "bind", "127.0.0.1");
        flag(command, "sql-isolation", "inline");
        flag(command, "sql-timeout-ms", Long.toString(config.sqlTimeoutMillis()));
        flag(command, "read-wait-ms", Long.toString(config.readWaitMillis()));
        flag(command, "flush-delay-ms", Long.toString(Math.max(config.flushDelayMillis(), FLUSH_DELAY_MILLIS)));
        flag(command, "flush-batch-rows", Integer.toString(config.flushBatchRows()));
        flag(command, "flush-batch-bytes", Long.toString(config.flushBatchBytes()));
        flag(command, "max-pending", Long.toString(config.maxPending()));
        flag(command, "max-body-bytes", Long.toString(config.maxBodyBytes()));
        flag(command, "model-rest-ratio", Integer.toString(config.modelRestRatio()));
        flag(command, "record-retention", retention(config.recordRetentionMicros()));
        flag(command, "min-free-disk-bytes", Long.toString(config.minFreeDiskBytes()));
        if (!config.log().backend().equals(LogOptions.SQLITE)) {
            // Where the log is, and nothing more: no cluster secret, role or advertised URL (it is no node).
            flag(command, "kafka-bootstrap", config.log().kafkaBootstrap());
            flag(command, "kafka-topic-prefix", config.log().kafkaTopicPrefix());
        }
        return command;
    }

    /** {@code --record-retention} as the flag reads it: 0, or a count of the largest unit that divides it. */
    static String retention(long micros) {
        long seconds = micros / 1_000_000;
        if (seconds <= 0) {
            return "0";
        }
        long[] units = {604_800, 86_400, 3_600, 60, 1};
        String[] names = {"w", "d", "h", "m", "s"};
        for (int i = 0; i < units.length; i++) {
            if (seconds % units[i] == 0 && seconds / units[i] < 1_000_000_000L) {
                return (seconds / units[i]) + names[i];
            }
        }
        return Math.min(seconds / 604_800, 999_999_999L) + "w";
    }

    private static void flag(List<String> command, String name, String value) {
        command.add("--" + name);
        command.add(value);
    }

    /** Stops the query process: its input closes (it ends by itself) and it is killed. */
    @Override
    public void close() {
        closed = true;
        ready.completeExceptionally(new IllegalStateException("the server is shutting down"));
        supervisor.interrupt();
        Endpoint running = endpoint;
        endpoint = null;
        if (running != null) {
            try (OutputStream in = running.process().getOutputStream()) {
                in.flush();
            } catch (IOException e) {
                LOG.log(Level.FINE, "closing the query process's input failed", e);
            }
            running.process().destroyForcibly();
        }
    }
}
