package dev.interlace.integration.kafka;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.interlace.client.TrustedCertificates;
import dev.interlace.integration.ApiAnswer;
import dev.interlace.runtime.testing.Eventually;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * {@code interlace serve --log kafka} in a JVM of its own, as an operator runs it: the test's class path (which has
 * {@code interlace-log-kafka}, found by the runtime through {@code ServiceLoader}), a free port known in advance so
 * that its advertised URL is known too, output in a file, and a small HTTP client (over https, trusting the
 * node's certificate, when it is started with {@code --tls-cert}).
 */
final class ServeNode implements AutoCloseable {

    static final ObjectMapper JSON = new ObjectMapper();
    static final String READY = "interlace listening on ";
    private static final String SERVE = "dev.interlace.runtime.cli.Main";

    final URI uri;
    private final List<String> command;
    private final Process process;
    private final Path output;
    private final Path trustedCertificate;
    private final HttpClient client;

    private ServeNode(URI uri, List<String> command, Process process, Path output, Path trustedCertificate) {
        this.uri = uri;
        this.command = command;
        this.process = process;
        this.output = output;
        this.trustedCertificate = trustedCertificate;
        HttpClient.Builder builder = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1);
        if (trustedCertificate != null) {
            builder.sslContext(TrustedCertificates.sslContext(trustedCertificate));
        }
        this.client = builder.build();
    }

    /**
     * Starts {@code serve} on the Kafka log under {@code prefix} and waits until it listens; its topics have one
     * replica unless {@code flags} set {@code --kafka-replication-factor} and {@code --kafka-min-insync-replicas}.
     */
    static ServeNode start(Path dataDirectory, String bootstrap, String prefix, String... flags) throws IOException {
        return ready(launch(SERVE, dataDirectory, bootstrap, prefix, flags));
    }

    /** The same with {@link UnfencedServeMain}: sequencers that fence nobody, for negative controls only. */
    static ServeNode startUnfenced(Path dataDirectory, String bootstrap, String prefix, String... flags)
            throws IOException {
        return ready(launch(UnfencedServeMain.class.getName(), dataDirectory, bootstrap, prefix, flags));
    }

    /**
     * The same with {@link PartitionedServeMain}: {@code orders} has {@code partitions} partitions, and with
     * {@code unfenced} sequencers that fence nobody (negative controls only).
     */
    static ServeNode startPartitioned(Path dataDirectory, String bootstrap, String prefix, int partitions,
            boolean unfenced, String... flags) throws IOException {
        return ready(launch(PartitionedServeMain.class.getName(), List.of(Integer.toString(partitions),
                unfenced ? "unfenced" : "fenced"), dataDirectory, bootstrap, prefix, flags));
    }

    /** The same with {@link SequencerFaultServeMain}: the sequencer of one stream dies on its first commit. */
    static ServeNode startWithDyingSequencer(Path dataDirectory, String bootstrap, String prefix, String... flags)
            throws IOException {
        return ready(launch(SequencerFaultServeMain.class.getName(), dataDirectory, bootstrap, prefix, flags));
    }

    /**
     * The same with {@link PublishedIndexFaultServeMain}: small deduplication segments, and a halt at {@code fault}'s
     * step of their publication (its {@code trigger}-th time).
     */
    static ServeNode startWithIndexFault(Path dataDirectory, String bootstrap, String prefix, PublicationFault fault,
            int trigger, String... flags) throws IOException {
        return ready(launch(PublishedIndexFaultServeMain.class.getName(), List.of(fault.argument(),
                Integer.toString(trigger)), dataDirectory, bootstrap, prefix, flags));
    }

    /** Runs {@code serve} expecting it to refuse to start: its exit code, and its output after it. */
    static String refusedStart(Path dataDirectory, String bootstrap, String prefix) throws Exception {
        ServeNode node = launch(SERVE, dataDirectory, bootstrap, prefix);
        if (!node.process.waitFor(90, TimeUnit.SECONDS)) {
            node.close();
            throw new IllegalStateException("serve did not stop within 90 s:\n" + node.output());
        }
        return "exit " + node.process.exitValue() + "\n" + node.output();
    }

    private static ServeNode launch(String main, Path dataDirectory, String bootstrap, String prefix,
            String... flags) throws IOException {
        return launch(main, List.of(), dataDirectory, bootstrap, prefix, flags);
    }

    /** Runs {@code main MAIN_ARGS... serve FLAGS...} in a child JVM on the test class path. */
    private static ServeNode launch(String main, List<String> mainArgs, Path dataDirectory, String bootstrap,
            String prefix, String... flags) throws IOException {
        int port = NodeFixtures.freePort();
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                "-Djava.io.tmpdir=" + Files.createDirectories(dataDirectory.resolve("tmp")),
                "-cp", System.getProperty("java.class.path"), main));
        command.addAll(mainArgs);
        command.addAll(List.of("serve", "--port", Integer.toString(port), "--data-dir", dataDirectory.toString(),
                "--log", "kafka", "--kafka-bootstrap", bootstrap, "--kafka-topic-prefix", prefix,
                "--flush-delay-ms", "10"));
        if (!List.of(flags).contains("--kafka-replication-factor")) {
            command.addAll(List.of("--kafka-replication-factor", "1", "--kafka-min-insync-replicas", "1"));
        }
        command.addAll(List.of(flags));
        Path output = dataDirectory.resolve("serve-" + port + ".log");
        // With --tls-cert the node speaks https, and this client trusts that (self-signed) certificate.
        int tls = command.indexOf("--tls-cert");
        Path certificate = tls < 0 ? null : Path.of(command.get(tls + 1));
        URI uri = URI.create((certificate == null ? "http" : "https") + "://127.0.0.1:" + port);
        if (!command.contains("--advertise-url")) {
            // As an operator would: needed off loopback (--bind 0.0.0.0), and the same as the default on it.
            command.addAll(List.of("--advertise-url", uri.toString()));
        }
        return new ServeNode(uri, command, run(command, output), output, certificate);
    }

    private static Process run(List<String> command, Path output) throws IOException {
        return new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(output.toFile())).start();
    }

    /**
     * Starts this node again after it died (or was stopped): the same command, so the same port, URL, data directory
     * and flags; waits until it listens.
     */
    ServeNode restart() throws IOException {
        if (process.isAlive()) {
            throw new IllegalStateException("the node at " + uri + " still runs");
        }
        long listening = output().lines().filter(line -> line.contains(READY)).count();
        ServeNode node = new ServeNode(uri, command, run(command, output), output, trustedCertificate);
        node.awaitReady(listening + 1);
        return node;
    }

    /** {@code node}, once it listens. */
    private static ServeNode ready(ServeNode node) throws IOException {
        node.awaitReady(1);
        return node;
    }

    /** Waits until the output says {@code times} times that the node listens (a restarted node appends to it). */
    private void awaitReady(long times) throws IOException {
        try {
            Eventually.until("serve listens", Duration.ofSeconds(90), () -> {
                if (Files.exists(output) && output().lines().filter(line -> line.contains(READY)).count() >= times) {
                    return true;
                }
                if (!process.isAlive()) {
                    throw new IllegalStateException("serve exited with " + process.exitValue() + ":\n" + output());
                }
                return false;
            });
        } catch (AssertionError e) {
            process.destroyForcibly();
            throw new IllegalStateException("serve did not listen within 90 s:\n" + output(), e);
        }
    }

    String output() {
        try {
            return Files.readString(output);
        } catch (IOException e) {
            return "(no output: " + e.getMessage() + ")";
        }
    }

    /** A response: status, headers and JSON body. */
    record Response(int status, HttpHeaders headers, JsonNode body) implements ApiAnswer {
    }

    Response publish(String stream, String body) {
        return send(HttpRequest.newBuilder(uri.resolve("/streams/" + stream + "?verbose=true"))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build());
    }

    /**
     * {@code POST /sql}, sent again (as a client following {@code Retry-After} would, for up to two minutes) while the
     * node answers that its query process is still starting: on a loaded machine the first query's start of that JVM
     * may take longer than the query's time limit.
     */
    Response sql(String query) {
        long until = System.nanoTime() + java.util.concurrent.TimeUnit.MINUTES.toNanos(2);
        while (true) {
            Response answer = send(HttpRequest.newBuilder(uri.resolve("/sql")).header("Content-Type", "text/plain")
                    .POST(HttpRequest.BodyPublishers.ofString(query)).build());
            boolean starting = answer.status() == 503 && answer.body() != null
                    && answer.body().path("message").asText().startsWith("the query process is starting");
            if (!starting || System.nanoTime() > until) {
                return answer;
            }
            try {
                Thread.sleep(1_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return answer;
            }
        }
    }

    /** {@code POST path} with a body of {@code contentType} and extra headers, given as name, value, name, ... */
    Response post(String path, String contentType, String body, String... headers) {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri.resolve(path)).header("Content-Type", contentType)
                .POST(HttpRequest.BodyPublishers.ofString(body));
        for (int i = 0; i < headers.length; i += 2) {
            request.header(headers[i], headers[i + 1]);
        }
        return send(request.build());
    }

    Response get(String path) {
        return send(HttpRequest.newBuilder(uri.resolve(path)).GET().build());
    }

    /** {@code GET path} with {@code Authorization: Bearer apiKey}. */
    Response get(String path, String apiKey) {
        return send(HttpRequest.newBuilder(uri.resolve(path)).header("Authorization", "Bearer " + apiKey).GET()
                .build());
    }

    /** Runs {@code interlace <args>} (e.g. {@code keys create}) in a JVM of its own; its exit code and output. */
    static String interlace(Path workDirectory, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"),
                "dev.interlace.runtime.cli.Main"));
        command.addAll(List.of(args));
        Path output = Files.createTempFile(Files.createDirectories(workDirectory), "interlace-", ".out");
        Process process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(output.toFile()).start();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException("interlace " + String.join(" ", args) + " did not end within 60 s");
        }
        return "exit " + process.exitValue() + "\n" + Files.readString(output);
    }

    /** Polls {@code GET path} until {@code condition} holds (up to 30 s); returns the last body. */
    JsonNode await(String path, Predicate<JsonNode> condition) {
        return await(path, condition, Duration.ofSeconds(30));
    }

    /** The same, waiting up to {@code timeout}. */
    JsonNode await(String path, Predicate<JsonNode> condition, Duration timeout) {
        JsonNode[] last = new JsonNode[1];
        try {
            return Eventually.get("GET " + path + " answers as awaited", timeout,
                    () -> last[0] = get(path).body(), condition);
        } catch (AssertionError timedOut) {
            if (last[0] == null) {
                throw timedOut;
            }
            return last[0]; // the caller asserts on it, with this node's output
        }
    }

    Response send(HttpRequest request) {
        return ApiAnswer.send(client, JSON, request, Response::new);
    }

    /** Stops the node as SIGTERM does (drains, closes the log, leaves the sequencer group). */
    void stop() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException("serve did not stop within 60 s:\n" + output());
        }
    }

    /** Waits up to {@code seconds} for the node to end on its own; its exit status. */
    int awaitExit(long seconds) throws InterruptedException {
        if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
            throw new IllegalStateException("serve did not exit within " + seconds + " s:\n" + output());
        }
        return process.exitValue();
    }

    /** Kills the node at once (SIGKILL): it says goodbye to nobody. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    /** Pauses the node (SIGSTOP), as a long GC pause or a frozen VM would; {@link #resume} lets it go on. */
    void suspend() throws IOException, InterruptedException {
        signal("STOP");
    }

    /** Lets a {@linkplain #suspend suspended} node go on (SIGCONT). */
    void resume() throws IOException, InterruptedException {
        signal("CONT");
    }

    private void signal(String signal) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).inheritIO().start();
        if (kill.waitFor() != 0) {
            throw new IllegalStateException("kill -" + signal + " " + process.pid() + " failed");
        }
    }

    @Override
    public void close() {
        process.destroyForcibly();
    }
}
