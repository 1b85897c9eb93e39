package dev.interlace.examples.docs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.interlace.runtime.Interlace;
import dev.interlace.runtime.config.ConfigLoader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs every shell example in {@code README.md} and {@code docs/*.md} that talks to a server, as a reader would,
 * against a running example server: each file's examples in order against a fresh server, through {@code bash}
 * with the real {@code curl} and the real CLI. An example that the doc shows succeeding must answer 2xx (a CLI
 * command: exit 0); one marked {@code <!-- expect: 4xx -->} must fail that way. How to mark examples is in
 * {@link DocExamples} and docs/architecture.md.
 */
class DocsExamplesTest {

    /** The project's root: the nearest directory above the working directory holding README.md and docs/. */
    private static final Path ROOT = ProjectRoot.find();
    private static final Pattern STATUS = Pattern.compile("@@docs-check status (\\d{3})@@");
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path temporary;

    private final HttpClient http = HttpClient.newHttpClient();

    @TestFactory
    Stream<DynamicTest> everyServerExampleInTheDocsAnswersAsTheDocShows() throws Exception {
        for (String tool : List.of("bash", "curl")) {
            Process version = new ProcessBuilder(tool, "--version").redirectErrorStream(true).start();
            version.getInputStream().readAllBytes();
            assertThat(version.waitFor(30, TimeUnit.SECONDS) && version.exitValue() == 0)
                    .as("the docs check runs the examples with %s: it must be on the PATH", tool).isTrue();
        }
        List<Path> files = new ArrayList<>();
        files.add(ROOT.resolve("README.md"));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter(path -> path.toString().endsWith(".md")).sorted().forEach(files::add);
        }
        List<DynamicTest> tests = new ArrayList<>();
        for (Path file : files) {
            DocExamples examples = DocExamples.read(file);
            if (!examples.examples().isEmpty()) {
                tests.add(DynamicTest.dynamicTest(ROOT.relativize(file).toString(), () -> check(examples)));
            }
        }
        assertThat(tests).as("files with examples").isNotEmpty();
        return tests.stream();
    }

    private void check(DocExamples doc) throws Exception {
        String name = ROOT.relativize(doc.file()).toString();
        Path data = Files.createDirectories(temporary.resolve(name.replace('/', '_') + "-data"));
        Path work = Files.createDirectories(temporary.resolve(name.replace('/', '_') + "-work"));
        List<String> failures = new ArrayList<>();
        try (Interlace server = Interlace.builder().config(ConfigLoader.load(new String[] {"--port", "0",
                "--data-dir", data.toString()}, Map.of()).config()).start()) {
            for (DocExamples.Example example : doc.examples()) {
                String where = name + ":" + example.line() + ": " + example.command();
                int ampersand = DocExamples.unquotedAmpersand(example.command());
                if (ampersand >= 0) {
                    failures.add(where + "\n    has an & outside quotes (column " + (ampersand + 1) + "): the shell"
                            + " ends the command there; quote the URL");
                    continue;
                }
                String problem = run(example, server.uri(), work);
                if (problem != null) {
                    failures.add(where + "\n    " + problem);
                }
                settle(server.uri());
            }
        }
        assertThat(failures).as("examples in " + name + " that do not answer as the doc shows").isEmpty();
    }

    /** Runs one example through bash; returns what is wrong with its answer, or null. */
    private String run(DocExamples.Example example, URI server, Path work) throws Exception {
        String base = server.toString().replaceAll("/$", "");
        String hostPort = base.replaceFirst("^https?://", "");
        String command = example.command().replace("localhost:8000", hostPort).replace("127.0.0.1:8000", hostPort);
        String script = String.join("\n",
                "set -o pipefail",
                "curl() { command curl --write-out '%{stderr}\\n@@docs-check status %{http_code}@@\\n' \"$@\"; }",
                "interlace() {",
                "  if [[ \" $* \" == *' --server'* ]]; then",
                "    \"$DOCS_JAVA\" -cp \"$DOCS_CLASS_PATH\" dev.interlace.runtime.cli.Main \"$@\"",
                "  else",
                "    \"$DOCS_JAVA\" -cp \"$DOCS_CLASS_PATH\" dev.interlace.runtime.cli.Main \"$@\" --server \"$DOCS_SERVER\"",
                "  fi",
                "}",
                command,
                "");
        ProcessBuilder builder = new ProcessBuilder("bash", "-c", script).directory(work.toFile());
        builder.environment().put("DOCS_JAVA", Path.of(System.getProperty("java.home"), "bin", "java").toString());
        builder.environment().put("DOCS_CLASS_PATH", System.getProperty("java.class.path"));
        builder.environment().put("DOCS_SERVER", base);
        builder.environment().remove("INTERLACE_API_KEY");
        Path stdout = work.resolve("stdout");
        Path stderr = work.resolve("stderr");
        Process process = builder.redirectOutput(stdout.toFile()).redirectError(stderr.toFile()).start();
        if (!process.waitFor(120, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            return "did not finish within 120 s";
        }
        int exit = process.exitValue();
        String out = Files.readString(stdout, StandardCharsets.UTF_8);
        String err = Files.readString(stderr, StandardCharsets.UTF_8);
        List<Integer> statuses = new ArrayList<>();
        Matcher status = STATUS.matcher(err);
        while (status.find()) {
            statuses.add(Integer.parseInt(status.group(1)));
        }
        String shown = "\n    stdout: " + cut(out) + "\n    stderr: " + cut(STATUS.matcher(err).replaceAll(""));
        boolean curl = example.command().startsWith("curl ");
        if (curl && statuses.isEmpty()) {
            return "curl got no answer (exit " + exit + ")" + shown;
        }
        if (example.kind() == DocExamples.Kind.SETUP) {
            return curl || exit == 0 ? null : "set-up exited " + exit + shown;
        }
        for (int answered : statuses) {
            if (!example.accepts(answered)) {
                return "answered " + answered + ", the doc shows " + (example.kind() == DocExamples.Kind.FAILS
                        ? example.expectedStatus() : "success") + shown;
            }
        }
        if (example.kind() == DocExamples.Kind.FAILS && !curl) {
            return exit != 0 ? null : "exited 0, the doc marks it as failing" + shown;
        }
        if (exit != 0 && (example.kind() != DocExamples.Kind.FAILS)) {
            return "exited " + exit + shown;
        }
        return null;
    }

    private static String cut(String text) {
        String oneLine = text.strip().replace("\n", "\n            ");
        return oneLine.length() > 800 ? oneLine.substring(0, 800) + " …" : oneLine;
    }

    /**
     * Waits until what the last example started is done — every stream flushed, no model run queued or running — so
     * that the next example sees the same state whatever the machine's speed.
     */
    private void settle(URI server) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            if (idle(server)) {
                return;
            }
            Thread.onSpinWait();
        }
        throw new AssertionError("the server did not settle within 30 s after an example");
    }

    private boolean idle(URI server) throws Exception {
        for (JsonNode stream : get(server, "/streams").get("streams")) {
            if (stream.get("declared").asBoolean() && stream.get("pending").asLong() > 0
                    && !stream.get("flush_state").asText().equals("failing")) {
                return false;
            }
        }
        return get(server, "/runs?status=queued").get("total").asLong() == 0
                && get(server, "/runs?status=running").get("total").asLong() == 0;
    }

    private JsonNode get(URI server, String path) {
        try {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(server.resolve(path)).build(),
                    HttpResponse.BodyHandlers.ofString());
            return JSON.readTree(response.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
