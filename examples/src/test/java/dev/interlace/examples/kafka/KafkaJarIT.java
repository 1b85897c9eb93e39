package dev.interlace.examples.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.interlace.examples.docs.ProjectRoot;
import dev.interlace.log.kafka.testing.KafkaCluster;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The block of docs/kafka.md "Trying it on one machine", run as written against the shaded jar and a broker this
 * test starts: the jar serves the example streams on Kafka, a publish is acknowledged, its retry deduplicated, and
 * the stream names this node as its sequencer; SIGTERM stops it with status 0.
 */
class KafkaJarIT {

    private static final String MARKER = "docs-check: skip run by KafkaJarIT";
    private static final String JAR = "java -jar examples/target/interlace-examples.jar";
    private static final Pattern READY = Pattern.compile("interlace listening on (http://127\\.0\\.0\\.1:(\\d+))");
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path work;

    @Test
    void theDocsCommandsServeTheExampleStreamsOnKafkaFromTheJar() throws Exception {
        List<String> commands = docBlock(ProjectRoot.find().resolve("docs/kafka.md"));
        assertThat(commands).as("the block: serve, then the requests").hasSizeGreaterThanOrEqualTo(3);
        String serve = commands.get(0);
        assertThat(serve).startsWith(JAR + " serve --log kafka").contains("--kafka-bootstrap 127.0.0.1:9092");

        String jar = System.getProperty("interlace.jar", Path.of("target", "interlace-examples.jar").toString());
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String prefix = "docs-" + UUID.randomUUID().toString().substring(0, 8) + ".";
        // The broker of this test instead of the reader's, a free port, topics of this run only.
        String command = serve.replace(JAR, java + " -jar " + jar)
                .replace("127.0.0.1:9092", KafkaCluster.shared().bootstrap())
                + " --port " + freePort() + " --kafka-topic-prefix " + prefix;
        Process server = new ProcessBuilder("bash", "-c", "exec " + command).directory(work.toFile())
                .redirectErrorStream(true).start();
        List<String> printed = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch ready = new CountDownLatch(1);
        String[] url = new String[2];
        Thread reader = new Thread(() -> read(server, printed, ready, url), "kafka-jar-output");
        reader.setDaemon(true);
        reader.start();
        try {
            assertThat(ready.await(120, TimeUnit.SECONDS)).as("ready line; printed: %s", printed).isTrue();
            List<JsonNode> answers = new ArrayList<>();
            for (String request : commands.subList(1, commands.size())) {
                answers.add(curl(request.replace("localhost:8000", "127.0.0.1:" + url[1])));
            }
            assertThat(answers.get(0).get("accepted").asInt()).as("the first publish").isEqualTo(1);
            long offset = answers.get(0).get("last_offset").asLong();
            assertThat(answers.get(1).get("deduplicated").asInt()).as("its retry").isEqualTo(1);
            assertThat(answers.get(1).get("last_offset").asLong()).as("the original offset").isEqualTo(offset);
            assertThat(answers.get(2).get("sequencer").asText()).as("GET /streams/orders").isEqualTo(url[0]);
            assertThat(Files.isDirectory(work.resolve(".interlace-kafka"))).as("the doc's data directory").isTrue();
        } finally {
            server.destroy();
            assertThat(server.waitFor(60, TimeUnit.SECONDS)).as("stopped on SIGTERM; printed: %s", printed).isTrue();
        }
        assertThat(server.exitValue()).as("exit status; printed: %s", printed).isZero();
    }

    /** Runs one curl command of the doc; returns its JSON answer, which must come with a 2xx status. */
    private JsonNode curl(String request) throws IOException, InterruptedException {
        assertThat(request).startsWith("curl ");
        Process curl = new ProcessBuilder("bash", "-c", request.replaceFirst("^curl ", "curl -sS --fail-with-body "))
                .directory(work.toFile()).redirectErrorStream(true).start();
        String answer = new String(curl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(curl.waitFor(60, TimeUnit.SECONDS)).as(request).isTrue();
        assertThat(curl.exitValue()).as("%s answered %s", request, answer).isZero();
        return JSON.readTree(answer);
    }

    private static void read(Process server, List<String> printed, CountDownLatch ready, String[] url) {
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(server.getInputStream(),
                StandardCharsets.UTF_8))) {
            for (String line; (line = lines.readLine()) != null; ) {
                printed.add(line);
                Matcher matcher = READY.matcher(line);
                if (matcher.find()) {
                    url[0] = matcher.group(1);
                    url[1] = matcher.group(2);
                    ready.countDown();
                }
            }
        } catch (IOException e) {
            printed.add("(reading the server's output failed: " + e + ")");
        }
    }

    /** The commands of the shell block after {@link #MARKER}, continuation lines joined. */
    private static List<String> docBlock(Path doc) throws IOException {
        List<String> lines = Files.readAllLines(doc, StandardCharsets.UTF_8);
        int marker = -1;
        for (int i = 0; i < lines.size() && marker < 0; i++) {
            marker = lines.get(i).contains(MARKER) ? i : -1;
        }
        assertThat(marker).as("%s in %s", MARKER, doc).isNotNegative();
        assertThat(lines.get(marker + 1).strip()).isEqualTo("```sh");
        List<String> commands = new ArrayList<>();
        StringBuilder command = new StringBuilder();
        for (int i = marker + 2; !lines.get(i).strip().startsWith("```"); i++) {
            String text = lines.get(i).strip();
            boolean continued = text.endsWith("\\");
            command.append(command.isEmpty() ? "" : " ")
                    .append(continued ? text.substring(0, text.length() - 1).strip() : text);
            if (!continued) {
                commands.add(command.toString());
                command.setLength(0);
            }
        }
        return commands;
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
