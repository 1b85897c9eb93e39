package dev.interlace.integration.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.inject.Module;
import dev.interlace.integration.ApiAnswer;
import dev.interlace.integration.ClicksStream;
import dev.interlace.integration.OrdersStream;
import dev.interlace.integration.decoding.EvolvingStream;
import dev.interlace.runtime.Interlace;
import dev.interlace.runtime.config.ConfigLoader;
import dev.interlace.runtime.config.InterlaceConfig;
import dev.interlace.runtime.http.HttpTransport;
import dev.interlace.runtime.http.netty.NettyTransport;
import dev.interlace.runtime.stream.StreamCatalog;
import dev.interlace.runtime.testing.Eventually;
import dev.interlace.runtime.testing.FaultModules;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.IntPredicate;
import java.util.zip.GZIPOutputStream;

/** A real server on an ephemeral port over a temporary data directory, and a small HTTP client for it. */
final class TestServer implements AutoCloseable {

    /** Reads numbers exactly, as a client checking decimals must. */
    static final ObjectMapper JSON = new ObjectMapper()
            .enable(com.fasterxml.jackson.databind.DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .setNodeFactory(com.fasterxml.jackson.databind.node.JsonNodeFactory.withExactBigDecimals(true));
    static final StreamCatalog CATALOG = StreamCatalog.of(List.of(
            OrdersStream.DESCRIPTOR, ClicksStream.DESCRIPTOR, EvolvingStream.DESCRIPTOR));

    final Interlace server;
    final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private TestServer(Interlace server) {
        this.server = server;
    }

    /** Starts on {@code dataDirectory} with extra flags, e.g. {@code "--max-pending", "5"}. */
    static TestServer start(Path dataDirectory, String... flags) {
        return startWith(dataDirectory, CATALOG, List.of(), flags);
    }

    /**
     * Starts a server whose warehouse commits always fail (a test-only fault): nothing is materialised, so the
     * backlog only grows and the flush state is {@code failing}.
     */
    static TestServer stalled(Path dataDirectory, String... flags) {
        Module failingWarehouse = FaultModules.failingWarehouse();
        return startWith(dataDirectory, CATALOG, List.of(failingWarehouse), flags);
    }

    static TestServer startWith(Path dataDirectory, StreamCatalog catalog, String... flags) {
        return startWith(dataDirectory, catalog, List.of(), flags);
    }

    static TestServer startWith(Path dataDirectory, StreamCatalog catalog, List<Module> overrides,
            String... flags) {
        return startOn(0, dataDirectory, catalog, overrides, flags);
    }

    /** Starts on {@code port} (a node restarted where its peers know it). */
    static TestServer startOn(int port, Path dataDirectory, String... flags) {
        return startOn(port, dataDirectory, CATALOG, List.of(), flags);
    }

    private static TestServer startOn(int port, Path dataDirectory, StreamCatalog catalog, List<Module> overrides,
            String... flags) {
        List<String> args = new ArrayList<>(List.of("--port", Integer.toString(port), "--data-dir",
                dataDirectory.toString()));
        args.addAll(List.of(flags));
        InterlaceConfig config = ConfigLoader.load(args.toArray(String[]::new), Map.of()).config();
        return new TestServer(Interlace.builder().config(config).catalog(catalog)
                .override(overrides.toArray(Module[]::new)).start());
    }

    /** A response: status, headers and parsed JSON body. */
    record Response(int status, java.net.http.HttpHeaders headers, JsonNode body) implements ApiAnswer {
    }

    Response post(String path, String contentType, String body) {
        return send(request(path).header("Content-Type", contentType)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build());
    }

    Response postJson(String path, String body) {
        return post(path, "application/json", body);
    }

    Response postGzip(String path, String body) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (GZIPOutputStream gzip = new GZIPOutputStream(bytes)) {
            gzip.write(body.getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return send(request(path).header("Content-Type", "application/json").header("Content-Encoding", "gzip")
                .POST(HttpRequest.BodyPublishers.ofByteArray(bytes.toByteArray())).build());
    }

    Response get(String path) {
        return send(request(path).GET().build());
    }

    HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(URI.create(server.uri() + path));
    }

    Response send(HttpRequest request) {
        return ApiAnswer.send(client, JSON, request, Response::new);
    }

    long head(String stream) {
        return get("/streams/" + stream).body().get("head").asLong();
    }

    /**
     * Waits (up to 20 s) until the number of connections the server counts open is {@code accepted} (an event loop
     * counts one as it takes it up); returns it.
     */
    int awaitOpenConnections(String what, IntPredicate accepted) {
        NettyTransport transport = (NettyTransport) server.instance(HttpTransport.class);
        return Eventually.get("open connections " + what, Duration.ofSeconds(20), transport::openConnections,
                accepted::test);
    }

    /** Waits until the stream has nothing pending (flushed into the warehouse); returns its description. */
    JsonNode awaitFlushed(String stream) {
        return await(stream, body -> body.get("pending").asLong() == 0);
    }

    /** Waits (up to 20 s) until the stream's description satisfies {@code condition}; returns that description. */
    JsonNode await(String stream, java.util.function.Predicate<JsonNode> condition) {
        return Eventually.get("the description of " + stream + " shows what is awaited", Duration.ofSeconds(20),
                () -> get("/streams/" + stream).body(), condition);
    }

    @Override
    public void close() {
        server.close();
    }
}
