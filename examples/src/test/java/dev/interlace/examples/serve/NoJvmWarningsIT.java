package dev.interlace.examples.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shaded jar as a user first runs it, on Java 25 and on the Java running the build: {@code serve}, a publish,
 * a few CLI commands, SIGTERM — and nothing printed is a JVM warning, and every server log line is one line.
 *
 * <p>Java 25 is found by {@code JAVA25_HOME}, else among the JDKs in {@code /usr/lib/jvm}; without one the test is
 * skipped with a message saying so.
 */
class NoJvmWarningsIT {

    private static final Pattern READY = Pattern.compile("interlace listening on (http://127\\.0\\.0\\.1:\\d+)");
    private static final Pattern LOG_LINE = Pattern.compile(
            "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z"
                    + " (SEVERE|WARNING|INFO|CONFIG|FINE|FINER|FINEST) \\S+ .+");
    /** Put after a stream's last line by its reader. */
    private static final String END = "\u0000end of stream";

    @TempDir
    Path dataDirectory;

    @Test
    void onJava25NothingTheJarPrintsIsAJvmWarning() throws Exception {
        Optional<Path> java25 = java25();
        assumeTrue(java25.isPresent(), "no Java 25 found (set JAVA25_HOME, or install one under /usr/lib/jvm):"
                + " the jar's start-up on Java 25 is not checked");
        runTheJarAndCheckItsOutput(java25.get());
    }

    @Test
    void onTheBuildsJavaNothingTheJarPrintsIsAJvmWarning() throws Exception {
        runTheJarAndCheckItsOutput(Path.of(System.getProperty("java.home"), "bin", "java"));
    }

    private void runTheJarAndCheckItsOutput(Path java) throws Exception {
        List<String> printed = Collections.synchronizedList(new ArrayList<>());
        Process server = start(java, "serve", "--port", "0", "--data-dir", dataDirectory.toString());
        try {
            CountDownLatch ready = new CountDownLatch(1);
            List<String> serverOut = collect(server.getInputStream(), printed, ready);
            List<String> serverErr = collect(server.getErrorStream(), printed, ready);
            assertThat(ready.await(90, TimeUnit.SECONDS)).as("ready line from serve; printed: %s", printed).isTrue();
            Matcher readyLine = List.copyOf(serverOut).stream().map(READY::matcher).filter(Matcher::find)
                    .findFirst().orElseThrow();
            String url = readyLine.group(1);

            HttpResponse<String> publish = HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(URI.create(url + "/streams/orders"))
                            .header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString("{\"order_id\": \"o1\", \"total\": 49.5}"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(publish.statusCode()).isEqualTo(200);

            assertThat(runToTheEnd(java, printed, "--help")).contains("usage: interlace");
            assertThat(runToTheEnd(java, printed, "streams")).contains("orders");
            assertThat(runToTheEnd(java, printed, "keys", "list", "--data-dir", dataDirectory.toString()))
                    .contains("0 keys");
            assertThat(runToTheEnd(java, printed, "sql", "select 41 + 1 as answer", "--server", url))
                    .contains("42");

            server.destroy();
            assertThat(server.waitFor(60, TimeUnit.SECONDS)).as("serve stops on SIGTERM").isTrue();

            drained(serverOut);
            List<String> logLines = drained(serverErr);

            assertThat(printed).as("lines printed by the jar on %s", java)
                    .isNotEmpty()
                    .noneMatch(line -> line.startsWith("WARNING:"));
            assertThat(logLines).as("the server's log lines on %s", java).isNotEmpty().allMatch(
                    line -> LOG_LINE.matcher(line).matches(), "is one log line: timestamp, level, logger, message");
        } finally {
            server.destroyForcibly();
        }
    }

    private static Process start(Path java, String... arguments) throws IOException {
        List<String> command = new ArrayList<>(List.of(java.toString(), "-jar", System.getProperty("interlace.jar",
                Path.of("target", "interlace-examples.jar").toString())));
        command.addAll(List.of(arguments));
        ProcessBuilder builder = new ProcessBuilder(command);
        // The launcher announces these on stderr ("Picked up ..."): the machine's settings, not the jar's output.
        builder.environment().remove("JDK_JAVA_OPTIONS");
        builder.environment().remove("JAVA_TOOL_OPTIONS");
        return builder.start();
    }

    /** Runs a CLI command to its end, adds what it printed to {@code printed} and returns its standard output. */
    private static String runToTheEnd(Path java, List<String> printed, String... arguments) throws Exception {
        Process command = start(java, arguments);
        command.getOutputStream().close();
        CountDownLatch unused = new CountDownLatch(1);
        List<String> out = collect(command.getInputStream(), printed, unused);
        List<String> err = collect(command.getErrorStream(), printed, unused);
        assertThat(command.waitFor(60, TimeUnit.SECONDS)).as("interlace %s ends", List.of(arguments)).isTrue();
        assertThat(command.exitValue()).as("exit code of interlace %s; stderr: %s", List.of(arguments), err)
                .isZero();
        return String.join("\n", drained(out));
    }

    /** Reads {@code stream} line by line on its own thread; counts {@code ready} down at the ready line. */
    private static List<String> collect(InputStream stream, List<String> printed, CountDownLatch ready) {
        List<String> lines = Collections.synchronizedList(new ArrayList<>());
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    lines.add(line);
                    printed.add(line);
                    if (READY.matcher(line).find()) {
                        ready.countDown();
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } finally {
                synchronized (lines) {
                    lines.add(END);
                    lines.notifyAll();
                }
            }
        }, "jar-output-reader");
        reader.setDaemon(true);
        reader.start();
        return lines;
    }

    /** Waits for the reader of {@code lines} to reach the end of its stream; returns the lines it read. */
    private static List<String> drained(List<String> lines) throws InterruptedException {
        synchronized (lines) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!lines.contains(END)) {
                long left = deadline - System.nanoTime();
                assertThat(left).as("the process's output ends; read so far: %s", lines).isPositive();
                TimeUnit.NANOSECONDS.timedWait(lines, left);
            }
            return List.copyOf(lines.subList(0, lines.indexOf(END)));
        }
    }

    private static Optional<Path> java25() throws IOException {
        String home = System.getenv("JAVA25_HOME");
        if (home != null && !home.isBlank()) {
            return Optional.of(Path.of(home, "bin", "java")).filter(Files::isExecutable);
        }
        Path jvms = Path.of("/usr/lib/jvm");
        if (!Files.isDirectory(jvms)) {
            return Optional.empty();
        }
        try (Stream<Path> installed = Files.list(jvms)) {
            return installed.sorted()
                    .filter(jdk -> releaseVersion(jdk).startsWith("25"))
                    .map(jdk -> jdk.resolve("bin").resolve("java"))
                    .filter(Files::isExecutable)
                    .findFirst();
        }
    }

    /** The {@code JAVA_VERSION} of a JDK's {@code release} file, or "" when it has none. */
    private static String releaseVersion(Path jdk) {
        try (Stream<String> lines = Files.lines(jdk.resolve("release"))) {
            return lines.filter(line -> line.startsWith("JAVA_VERSION="))
                    .map(line -> line.substring("JAVA_VERSION=".length()).replace("\"", ""))
                    .findFirst().orElse("");
        } catch (IOException | UncheckedIOException e) {
            return "";
        }
    }
}
