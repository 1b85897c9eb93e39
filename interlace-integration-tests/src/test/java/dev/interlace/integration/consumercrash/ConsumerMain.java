package dev.interlace.integration.consumercrash;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.interlace.client.StreamConsumer;
import dev.interlace.integration.crash.Halt;
import dev.interlace.runtime.testing.Pause;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A consumer of {@code orders} run in a child JVM by {@link ConsumerCrashTest}. Its side effect is a file of the
 * offsets it processed ({@code <offset> <order_id>} per line, forced to disk after each batch); every group operation
 * goes through a {@link RecordingProxy} that logs it.
 *
 * <p>Arguments are {@code key=value}: {@code mode} ({@code stream}: the real {@link StreamConsumer};
 * {@code commit-first}: a broken raw-HTTP loop that commits a batch before processing it — the negative control),
 * {@code server}, {@code group}, {@code owner}, {@code ttl}, {@code batch}, {@code poll} (ms), {@code out},
 * {@code ops}, {@code haltAtBatch} (halt with status 137 in the middle of that batch: after processing and before the
 * commit for {@code stream}, after the commit and before processing for {@code commit-first}), {@code stopAt} (stop
 * once this offset is processed), {@code stallEvery}, {@code stallMs}, {@code maxStalls} (sleep in the handler on
 * every n-th batch, longer than the lease, so another consumer takes over).
 *
 * <p>Prints {@value #STARTED} when running and {@value #STOPPED} when done; the line {@code stop} on standard input
 * stops it; it halts when its standard input closes (the test JVM went away).
 */
public final class ConsumerMain {

    static final String STARTED = "consumer started";
    static final String STOPPED = "consumer stopped";
    static final String HALTING = "halting in batch ";

    private ConsumerMain() {}

    public static void main(String[] args) throws Exception {
        Map<String, String> options = new HashMap<>();
        for (String arg : args) {
            int equals = arg.indexOf('=');
            options.put(arg.substring(0, equals), arg.substring(equals + 1));
        }
        Settings settings = new Settings(options);
        try (FileChannel out = FileChannel.open(settings.out, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.APPEND);
                RecordingProxy proxy = RecordingProxy.start(settings.server, settings.ops)) {
            if (settings.mode.equals("stream")) {
                runStreamConsumer(settings, proxy.uri(), out);
            } else if (settings.mode.equals("commit-first")) {
                runCommitFirst(settings, proxy.uri(), out);
            } else {
                throw new IllegalArgumentException("mode " + settings.mode);
            }
        }
        System.out.println(STOPPED);
        System.out.flush();
        System.exit(0);
    }

    private static void runStreamConsumer(Settings settings, URI proxy, FileChannel out) throws Exception {
        StreamConsumer consumer = StreamConsumer.of(proxy, "orders", settings.group, settings.owner)
                .with(Duration.ofMillis(settings.ttl), settings.batch, Duration.ofMillis(settings.poll));
        watchStandardInput(consumer::stop);
        int[] batches = {0};
        int[] stalls = {0};
        System.out.println(STARTED);
        System.out.flush();
        consumer.run(events -> {
            int batch = ++batches[0];
            write(out, events.stream().map(e -> e.offset()).toList(), events.stream()
                    .map(e -> e.event().path("order_id").asText("?")).toList());
            if (batch == settings.haltAtBatch) {
                // Processed (the offsets are on disk), not committed: StreamConsumer commits after we return.
                halt(batch, events.get(0).offset(), events.get(events.size() - 1).offset());
            }
            if (settings.stallEvery > 0 && batch % settings.stallEvery == 0 && stalls[0] < settings.maxStalls) {
                stalls[0]++;
                Pause.millis(settings.stallMs);
            }
            if (settings.stopAt > 0 && events.get(events.size() - 1).offset() >= settings.stopAt) {
                consumer.stop();
            }
        });
    }

    /** The broken consumer: commits what it read, then processes it — a crash in between skips the batch. */
    private static void runCommitFirst(Settings settings, URI proxy, FileChannel out) throws Exception {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        ObjectMapper json = new ObjectMapper();
        String group = proxy + "/streams/orders/consumers/" + settings.group;
        String lease = "{\"owner\":\"" + settings.owner + "\",\"ttl_ms\":" + settings.ttl + "}";
        watchStandardInput(() -> { });
        System.out.println(STARTED);
        System.out.flush();
        int batch = 0;
        while (true) {
            JsonNode granted = post(http, json, group + "/lease", lease);
            if (granted == null) {
                Pause.millis(Math.min(1000, settings.ttl / 4)); // a consumer's back-off while the lease is held
                continue;
            }
            String token = granted.get("token").toString(); // quoted: "<epoch>.<secret>"
            long committed = granted.get("committed_offset").asLong();
            HttpResponse<byte[]> page = http.send(HttpRequest.newBuilder(URI.create(proxy + "/streams/orders/events?after="
                    + committed + "&limit=" + settings.batch + "&wait_ms=" + settings.poll)).GET().build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            List<JsonNode> events = new java.util.ArrayList<>();
            json.readTree(page.body()).path("events").forEach(events::add);
            if (events.isEmpty()) {
                continue;
            }
            long first = events.get(0).get("offset").asLong();
            long last = events.get(events.size() - 1).get("offset").asLong();
            if (post(http, json, group + "/commit", "{\"token\":" + token + ",\"offset\":" + last + "}") == null) {
                continue; // the lease lapsed (a slow machine): the same batch is read again, and counted once
            }
            batch++;
            if (batch == settings.haltAtBatch) {
                halt(batch, first, last); // committed, never processed
            }
            write(out, events.stream().map(e -> e.get("offset").asLong()).toList(), events.stream()
                    .map(e -> e.path("event").path("order_id").asText("?")).toList());
            if (settings.stopAt > 0 && last >= settings.stopAt) {
                post(http, json, group + "/release", "{\"token\":" + token + "}");
                return;
            }
        }
    }

    private static JsonNode post(HttpClient http, ObjectMapper json, String uri, String body) throws Exception {
        HttpResponse<byte[]> response = http.send(HttpRequest.newBuilder(URI.create(uri))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofByteArray());
        return response.statusCode() == 200 ? json.readTree(response.body()) : null;
    }

    private static void write(FileChannel out, List<Long> offsets, List<String> orderIds) throws IOException {
        StringBuilder lines = new StringBuilder();
        for (int i = 0; i < offsets.size(); i++) {
            lines.append(offsets.get(i)).append(' ').append(orderIds.get(i)).append('\n');
        }
        ByteBuffer bytes = ByteBuffer.wrap(lines.toString().getBytes(StandardCharsets.UTF_8));
        while (bytes.hasRemaining()) {
            out.write(bytes);
        }
        out.force(false);
    }

    private static void halt(int batch, long first, long last) {
        Halt.withMarker(HALTING + batch + " offsets " + first + ".." + last);
    }

    private static void watchStandardInput(Runnable stop) {
        Thread watcher = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    if (line.strip().equals("stop")) {
                        stop.run();
                    }
                }
            } catch (IOException e) {
                // fall through: the parent is gone
            }
            Runtime.getRuntime().halt(3);
        }, "consumer-stdin");
        watcher.setDaemon(true);
        watcher.start();
    }

    private static final class Settings {
        final String mode;
        final URI server;
        final String group;
        final String owner;
        final long ttl;
        final int batch;
        final long poll;
        final Path out;
        final Path ops;
        final int haltAtBatch;
        final long stopAt;
        final int stallEvery;
        final long stallMs;
        final int maxStalls;

        Settings(Map<String, String> options) {
            mode = options.getOrDefault("mode", "stream");
            server = URI.create(options.get("server"));
            group = options.get("group");
            owner = options.get("owner");
            ttl = Long.parseLong(options.getOrDefault("ttl", "3000"));
            batch = Integer.parseInt(options.getOrDefault("batch", "20"));
            poll = Long.parseLong(options.getOrDefault("poll", "500"));
            out = Path.of(options.get("out"));
            ops = Path.of(options.get("ops"));
            haltAtBatch = Integer.parseInt(options.getOrDefault("haltAtBatch", "0"));
            stopAt = Long.parseLong(options.getOrDefault("stopAt", "0"));
            stallEvery = Integer.parseInt(options.getOrDefault("stallEvery", "0"));
            stallMs = Long.parseLong(options.getOrDefault("stallMs", "0"));
            maxStalls = Integer.parseInt(options.getOrDefault("maxStalls", "0"));
        }
    }
}
