package dev.interlace.integration.consumercrash;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A forwarding HTTP proxy in front of the server, run inside a consumer child, that records every consumer-group
 * operation (lease, commit, release) the consumer makes and what the server answered — the only way to see which
 * commits of an unmodified {@link dev.interlace.client.StreamConsumer} succeeded, and with which token.
 *
 * <p>One line per operation, written and forced to disk before the answer is handed to the consumer:
 * {@code <op> <status> <token> <value> <error> <sentMicros> <receivedMicros>}, where {@code value} is the committed
 * offset a lease returned, or the offset a commit asked for; {@code token} is the granted token for a lease (-1 when
 * refused) and the presented token for a commit or release. The two times bracket the moment the server applied it
 * (wall clock, microseconds, comparable across processes of one machine).
 */
final class RecordingProxy implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final URI target;
    private final HttpServer server;
    private final ExecutorService executor;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final FileChannel log;

    private RecordingProxy(URI target, Path logFile) throws IOException {
        this.target = target;
        this.log = FileChannel.open(logFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.APPEND);
        this.server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
        this.executor = Executors.newCachedThreadPool(runnable -> {
            Thread thread = new Thread(runnable, "recording-proxy");
            thread.setDaemon(true);
            return thread;
        });
        server.setExecutor(executor);
        server.createContext("/", this::forward);
        server.start();
    }

    static RecordingProxy start(URI target, Path logFile) throws IOException {
        return new RecordingProxy(target, logFile);
    }

    URI uri() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    private void forward(HttpExchange exchange) throws IOException {
        try (exchange) {
            byte[] requestBody = exchange.getRequestBody().readAllBytes();
            URI uri = target.resolve(exchange.getRequestURI().getRawPath()
                    + (exchange.getRequestURI().getRawQuery() == null ? "" : "?" + exchange.getRequestURI().getRawQuery()));
            HttpRequest.Builder request = HttpRequest.newBuilder(uri);
            String method = exchange.getRequestMethod();
            if (method.equals("GET")) {
                request.GET();
            } else {
                String type = exchange.getRequestHeaders().getFirst("Content-Type");
                request.header("Content-Type", type == null ? "application/json" : type)
                        .method(method, HttpRequest.BodyPublishers.ofByteArray(requestBody));
            }
            long sent = micros();
            HttpResponse<byte[]> response;
            try {
                response = http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                exchange.sendResponseHeaders(503, -1);
                return;
            } catch (IOException e) {
                exchange.sendResponseHeaders(502, -1);
                return;
            }
            long received = micros();
            String path = exchange.getRequestURI().getPath();
            if (method.equals("POST") && path.contains("/consumers/")) {
                record(path.substring(path.lastIndexOf('/') + 1), requestBody, response, sent, received);
            }
            byte[] body = response.body();
            exchange.getResponseHeaders().set("Content-Type",
                    response.headers().firstValue("Content-Type").orElse("application/json"));
            exchange.sendResponseHeaders(response.statusCode(), body.length == 0 ? -1 : body.length);
            if (body.length > 0) {
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(body);
                }
            }
        }
    }

    /** The fencing epoch of a {@code "<epoch>.<secret>"} token, which is what the oracle orders by; -1 for none. */
    private static long epoch(JsonNode token) {
        String text = token.asText("");
        int dot = text.indexOf('.');
        try {
            return Long.parseLong(dot < 0 ? text : text.substring(0, dot));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private void record(String op, byte[] requestBody, HttpResponse<byte[]> response, long sent, long received)
            throws IOException {
        JsonNode request = read(requestBody);
        JsonNode answer = read(response.body());
        int status = response.statusCode();
        long token;
        long value;
        switch (op) {
            case "lease" -> {
                token = status == 200 ? epoch(answer.path("token")) : -1;
                value = status == 200 ? answer.path("committed_offset").asLong(-1) : -1;
            }
            case "commit" -> {
                token = epoch(request.path("token"));
                value = request.path("offset").asLong(-1);
            }
            default -> {
                token = epoch(request.path("token"));
                value = -1;
            }
        }
        String error = status == 200 ? "-" : answer.path("error").asText("-");
        String line = op + " " + status + " " + token + " " + value + " " + error + " " + sent + " " + received + "\n";
        synchronized (log) {
            ByteBuffer bytes = ByteBuffer.wrap(line.getBytes(StandardCharsets.UTF_8));
            while (bytes.hasRemaining()) {
                log.write(bytes);
            }
            log.force(false);
        }
    }

    private static JsonNode read(byte[] bytes) {
        try {
            JsonNode node = JSON.readTree(bytes);
            return node == null ? JSON.createObjectNode() : node;
        } catch (IOException e) {
            return JSON.createObjectNode();
        }
    }

    static long micros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
    }

    @Override
    public void close() throws IOException {
        server.stop(0);
        executor.shutdownNow();
        log.close();
    }
}
