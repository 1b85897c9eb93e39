package dev.interlace.test;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.google.inject.Module;
import dev.interlace.client.ExactJson;
import dev.interlace.runtime.Interlace;
import dev.interlace.runtime.config.ConfigLoader;
import dev.interlace.runtime.flush.FlushStatus;
import dev.interlace.runtime.flush.Flusher;
import dev.interlace.runtime.log.EventLog;
import dev.interlace.runtime.log.StreamHead;
import dev.interlace.runtime.log.Watermarks;
import dev.interlace.runtime.model.ModelDefinition;
import dev.interlace.runtime.model.ModelRunner;
import dev.interlace.runtime.warehouse.RunRecord;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * A running Interlace server for a test, on an ephemeral port over its own temporary data directory, with the
 * streams and models of the test's class path. {@link InterlaceTest} or {@link InterlaceExtension} start one and
 * inject it; {@link #start(Path, List, List)} starts one by hand. Everything goes through the HTTP API a client
 * uses, except {@link #awaitMaterialised()}, which asks the flusher and the model runner directly.
 */
public final class TestInterlace implements AutoCloseable {

    /** How long {@link #awaitMaterialised()} waits. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

    /** Reads numbers exactly, as the Java client does: a decimal column's {@code 49.50} keeps its scale. */
    private static final ObjectMapper JSON = ExactJson.mapper();

    private final Interlace server;
    private final Path dataDirectory;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private TestInterlace(Interlace server, Path dataDirectory) {
        this.server = server;
        this.dataDirectory = dataDirectory;
    }

    /**
     * Starts a server on {@code dataDirectory} (created if missing) with the streams and models of the context
     * class loader, listening on an ephemeral port of 127.0.0.1.
     *
     * @param flags extra {@code serve} flags, e.g. {@code --max-pending 100}; environment variables are not read;
     *     {@code --sql-isolation} is {@code inline} unless given
     * @param overrides Guice modules replacing bindings of the server's (e.g. a fault-injecting listener)
     */
    public static TestInterlace start(Path dataDirectory, List<String> flags, List<Module> overrides) {
        List<String> args = new ArrayList<>(List.of("--port", "0", "--bind", "127.0.0.1",
                "--data-dir", dataDirectory.toString()));
        args.addAll(flags);
        // A test's queries run in its server's warehouse, unless it asks for the query process (a child JVM per
        // server, which a test of the application's streams and models rarely needs).
        if (flags.stream().noneMatch(flag -> flag.equals("--sql-isolation") || flag.startsWith("--sql-isolation="))) {
            args.addAll(List.of("--sql-isolation", "inline"));
        }
        try {
            Files.createDirectories(dataDirectory);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the data directory " + dataDirectory, e);
        }
        Interlace server = Interlace.builder()
                .config(ConfigLoader.load(args.toArray(String[]::new), Map.of()).config())
                .override(overrides.toArray(Module[]::new))
                .start();
        return new TestInterlace(server, dataDirectory);
    }

    /** The API's base URI, e.g. {@code http://127.0.0.1:41234}, for a client of your own. */
    public URI uri() {
        return server.uri();
    }

    /** The server's data directory (the SQLite log, the DuckDB warehouse). */
    public Path dataDirectory() {
        return dataDirectory;
    }

    /** The embedded server, e.g. for {@link Interlace#instance(Class)}. */
    public Interlace server() {
        return server;
    }

    /**
     * Publishes events to {@code stream} in one request and returns what happened to each. An event is a JSON
     * object's text ({@code "{\"order_id\": \"o1\"}"}) or any value Jackson writes as an object (a {@code Map}, a
     * record). A refused publish is returned too (its {@link Publication#status()} says which), not thrown.
     */
    public Publication publish(String stream, Object... events) {
        ArrayNode body = JSON.createArrayNode();
        for (Object event : events) {
            body.add(toJson(event));
        }
        HttpAnswer answer = send(request("/streams/" + encode(stream) + "?verbose=true")
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString())).build());
        String requestId = answer.response.headers().firstValue("X-Request-Id")
                .orElse(answer.body.path("request_id").asText(null));
        if (answer.status() != 200) {
            List<String> errors = new ArrayList<>();
            answer.body.path("errors").forEach(error -> errors.add("event " + error.path("index").asInt() + ", "
                    + error.path("field").asText() + ": " + error.path("reason").asText()));
            return new Publication(answer.status(), requestId, List.of(), answer.body.path("error").asText(null),
                    answer.body.path("message").asText(answer.text()), List.copyOf(errors));
        }
        List<Verdict> verdicts = new ArrayList<>();
        for (JsonNode result : answer.body.path("results")) {
            verdicts.add(new Verdict(result.path("index").asInt(), result.path("status").asText(),
                    result.path("offset").isNumber() ? result.path("offset").asLong() : null,
                    errors(result.path("errors"))));
        }
        return new Publication(200, requestId, List.copyOf(verdicts), null, null, List.of());
    }

    /** {@link #awaitMaterialised(Duration)} for up to {@link #DEFAULT_TIMEOUT}. */
    public void awaitMaterialised() {
        awaitMaterialised(DEFAULT_TIMEOUT);
    }

    /**
     * Waits until every stream's watermark has reached its head (events and quarantine: nothing pending) and the
     * model runs those flushes triggered have finished, flushing now rather than after {@code --flush-delay-ms}.
     *
     * @throws AssertionError when that does not happen within {@code timeout}, naming each stream's head,
     *     watermark, pending count and flush state, and each model's last run
     */
    public void awaitMaterialised(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        Flusher flusher = server.instance(Flusher.class);
        flusher.drain(timeout);
        // The flusher triggers models before it moves a stream's watermark: once every watermark is at its head,
        // every run those flushes queued is counted by the runner.
        while (true) {
            long runs = flusher.runs().count();
            if (pendingEvents() == 0) {
                break;
            }
            if (System.nanoTime() >= deadline) {
                throw notMaterialised(timeout, "the streams still have events pending");
            }
            if (!flusher.runs().awaitAfter(runs, deadline)) {
                throw new IllegalStateException("interrupted while awaiting materialisation");
            }
        }
        Optional<ModelRunner> models = server.models();
        if (models.isPresent()) {
            Duration left = Duration.ofNanos(Math.max(1, deadline - System.nanoTime()));
            if (!models.get().awaitIdle(left)) {
                throw notMaterialised(timeout, "a model run is still queued or running");
            }
        }
    }

    /**
     * Runs a read-only query ({@code POST /sql}) and returns its rows, each a map from column name to value in the
     * columns' order, typed by the column's DuckDB type: {@code DECIMAL} as {@code BigDecimal} (scale kept),
     * {@code BIGINT}, {@code INTEGER}, {@code SMALLINT} and {@code TINYINT} as {@code Long}, {@code HUGEINT} and the
     * unsigned ones as {@code BigInteger}, {@code DOUBLE} and {@code FLOAT} as {@code Double}, {@code BOOLEAN} as
     * {@code Boolean}, text and timestamps (RFC 3339) as {@code String}, {@code JSON} values as their JSON text,
     * {@code NULL} as null.
     *
     * @throws AssertionError when the server refuses the query, with its status and message
     */
    public List<Map<String, Object>> sql(String query) {
        HttpAnswer answer = send(request("/sql").header("Content-Type", "text/plain")
                .POST(HttpRequest.BodyPublishers.ofString(query)).build());
        if (answer.status() != 200) {
            throw new AssertionError("POST /sql answered " + answer.status() + " " + answer.text() + "\nquery: "
                    + query);
        }
        List<String> columns = new ArrayList<>();
        List<String> types = new ArrayList<>();
        answer.body.path("columns").forEach(column -> {
            columns.add(column.path("name").asText());
            types.add(column.path("type").asText());
        });
        List<Map<String, Object>> rows = new ArrayList<>();
        for (JsonNode row : answer.body.path("rows")) {
            Map<String, Object> values = new LinkedHashMap<>();
            for (int i = 0; i < columns.size(); i++) {
                values.put(columns.get(i), value(types.get(i), row.get(i)));
            }
            rows.add(values);
        }
        if (answer.body.path("truncated").asBoolean()) {
            throw new AssertionError("POST /sql cut its answer at " + rows.size() + " rows; add a LIMIT or"
                    + " aggregate\nquery: " + query);
        }
        return rows;
    }

    /**
     * The runs that included {@code model}, newest first (up to 100), each with what happened to every model.
     *
     * @throws AssertionError when there is no such model
     */
    public List<RunRecord> runs(String model) {
        ModelRunner runner = server.models().orElseThrow(() -> new AssertionError(
                "no models run here: there is no warehouse"));
        if (!runner.hasModel(model)) {
            throw new AssertionError("no model is named " + model + "; the models are "
                    + runner.graph().inOrder().stream().map(ModelDefinition::name).toList());
        }
        List<RunRecord> runs = new ArrayList<>();
        for (RunRecord run : runner.runs(new RunRecord.Filter(model, null, null, null, null, 100)).runs()) {
            runs.add(runner.run(run.id()).orElse(run));
        }
        return runs;
    }

    /**
     * "Where is my event?" for a request: {@code GET /correlate?request_id=…}, its JSON answer as documented in
     * docs/rest-api.md (the publish record, its events' offsets and how many are materialised, the flushes and
     * model runs that carried them, its quarantined events).
     *
     * @throws AssertionError when the server does not know the request
     */
    public JsonNode correlate(String requestId) {
        HttpAnswer answer = send(request("/correlate?request_id=" + encode(requestId)).GET().build());
        if (answer.status() != 200) {
            throw new AssertionError("GET /correlate?request_id=" + requestId + " answered " + answer.status()
                    + " " + answer.text());
        }
        return answer.body;
    }

    /**
     * Every event {@code stream} quarantined, oldest first.
     *
     * @throws AssertionError when the server refuses, e.g. for an unknown stream
     */
    public List<QuarantinedEvent> quarantine(String stream) {
        List<QuarantinedEvent> events = new ArrayList<>();
        long after = 0;
        while (true) {
            String path = "/streams/" + encode(stream) + "/quarantine?limit=1000&after=" + after;
            HttpAnswer answer = send(request(path).GET().build());
            if (answer.status() != 200) {
                throw new AssertionError("GET " + path + " answered " + answer.status() + " " + answer.text());
            }
            for (JsonNode item : answer.body.path("items")) {
                events.add(new QuarantinedEvent(item.path("seq").asLong(), item.path("request_id").asText(null),
                        item.path("event").toString(), errors(item.path("errors")),
                        item.path("replayed_offset").isNumber() ? item.path("replayed_offset").asLong() : null));
            }
            if (answer.body.path("count").asInt() == 0 || events.size() >= answer.body.path("total").asLong()) {
                return events;
            }
            after = answer.body.path("next_after").asLong();
        }
    }

    /** Stops the server (draining what it holds) and deletes nothing: the extension owns the data directory. */
    @Override
    public void close() {
        server.close();
    }

    /** Deletes a data directory and everything in it. */
    static void deleteRecursively(Path directory) throws IOException {
        if (!Files.exists(directory)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(directory)) {
            Iterator<Path> deepestFirst = paths.sorted(Comparator.reverseOrder()).iterator();
            while (deepestFirst.hasNext()) {
                Files.deleteIfExists(deepestFirst.next());
            }
        }
    }

    private long pendingEvents() {
        Watermarks watermarks = server.instance(Watermarks.class);
        long pending = 0;
        for (StreamHead head : server.instance(EventLog.class).heads().values()) {
            pending += head.head() - watermarks.events(head.stream());
            pending += head.quarantineHead() - watermarks.quarantine(head.stream());
        }
        return pending;
    }

    private AssertionError notMaterialised(Duration timeout, String reason) {
        StringBuilder message = new StringBuilder("expected every stream's watermark at its head and every model"
                + " run it triggered finished within " + timeout.toMillis() + " ms, but " + reason + ".\nstreams:");
        Watermarks watermarks = server.instance(Watermarks.class);
        Flusher flusher = server.instance(Flusher.class);
        for (StreamHead head : new TreeMap<>(server.instance(EventLog.class).heads()).values()) {
            long watermark = watermarks.events(head.stream());
            long quarantined = head.quarantineHead() - watermarks.quarantine(head.stream());
            FlushStatus status = flusher.status(head.stream());
            message.append("\n  ").append(head.stream()).append(": head ").append(head.head())
                    .append(", watermark ").append(watermark)
                    .append(", pending ").append(head.head() - watermark + quarantined)
                    .append(quarantined > 0 ? " (" + quarantined + " quarantined)" : "")
                    .append(", flush ").append(status.state().wire())
                    .append(status.error() == null ? "" : ": " + status.error());
        }
        server.models().ifPresent(runner -> {
            message.append("\nmodels:");
            for (ModelDefinition model : runner.graph().inOrder()) {
                message.append("\n  ").append(model.name()).append(": ");
                List<RunRecord> last = runner.runs(new RunRecord.Filter(model.name(), null, null, null, null, 1))
                        .runs();
                if (last.isEmpty()) {
                    message.append("never ran");
                    continue;
                }
                RunRecord run = runner.run(last.get(0).id()).orElse(last.get(0));
                message.append("last run ").append(run.id()).append(" (").append(run.trigger()).append(") ")
                        .append(run.status().wire());
                run.models().stream().filter(result -> result.name().equals(model.name())).findFirst()
                        .ifPresent(result -> message.append(", ").append(result.status().wire())
                                .append(result.error() == null ? "" : ": " + result.error()));
            }
        });
        return new AssertionError(message.toString());
    }

    private static JsonNode toJson(Object event) {
        try {
            if (event instanceof CharSequence text) {
                JsonNode node = JSON.readTree(text.toString());
                if (node == null || !node.isObject()) {
                    throw new IllegalArgumentException("an event is a JSON object, not: " + text);
                }
                return node;
            }
            return JSON.valueToTree(event);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("an event is a JSON object; cannot read " + event + ": "
                    + e.getOriginalMessage(), e);
        }
    }

    private static Object value(String type, JsonNode node) {
        if (node == null || node.isNull()) {
            return null;
        }
        if (node.isTextual()) {
            return node.asText();
        }
        if (node.isBoolean()) {
            return node.asBoolean();
        }
        if (!node.isNumber()) {
            return node.toString();
        }
        return switch (type) {
            case "BIGINT", "INTEGER", "SMALLINT", "TINYINT" -> node.longValue();
            case "DOUBLE", "FLOAT" -> node.doubleValue();
            case "HUGEINT", "UBIGINT", "UINTEGER", "USMALLINT", "UTINYINT", "UHUGEINT" -> node.bigIntegerValue();
            default -> type.startsWith("DECIMAL") ? node.decimalValue()
                    : node.isIntegralNumber() ? node.bigIntegerValue() : node.decimalValue();
        };
    }

    private static List<String> errors(JsonNode errors) {
        List<String> texts = new ArrayList<>();
        errors.forEach(error -> texts.add(error.path("field").asText() + ": " + error.path("reason").asText()));
        return List.copyOf(texts);
    }

    private HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(URI.create(server.uri() + path)).timeout(Duration.ofSeconds(60));
    }

    private record HttpAnswer(HttpResponse<String> response, JsonNode body) {
        int status() {
            return response.statusCode();
        }

        String text() {
            return response.body();
        }
    }

    private HttpAnswer send(HttpRequest request) {
        try {
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            JsonNode body;
            try {
                body = response.body().isEmpty() ? JSON.missingNode() : JSON.readTree(response.body());
            } catch (JsonProcessingException notJson) {
                body = JSON.missingNode();
            }
            return new HttpAnswer(response, body);
        } catch (IOException e) {
            throw new UncheckedIOException(request.method() + " " + request.uri() + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted during " + request.method() + " " + request.uri(), e);
        }
    }

    private static String encode(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
