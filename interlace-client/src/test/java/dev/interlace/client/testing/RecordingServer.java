package dev.interlace.client.testing;

import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.net.ssl.SSLContext;

/**
 * A stand-in for an Interlace server in client tests: answers every request with one fixed status and JSON body and
 * records each request's {@code Authorization} header ({@code "(none)"} when absent). Plain HTTP, or HTTPS with a
 * given certificate. The JDK's built-in server is fine here: it is test code serving one client.
 */
public final class RecordingServer implements AutoCloseable {

    private final HttpServer server;
    private final List<String> authorizations = new CopyOnWriteArrayList<>();
    private final List<String> paths = new CopyOnWriteArrayList<>();
    private volatile int status;
    private volatile String body;
    private final java.util.Map<String, String> headers = new java.util.concurrent.ConcurrentHashMap<>();

    private RecordingServer(HttpServer server, int status, String body) {
        this.server = server;
        this.status = status;
        this.body = body;
        server.createContext("/", exchange -> {
            authorizations.add(exchange.getRequestHeaders().getFirst("Authorization") == null ? "(none)"
                    : exchange.getRequestHeaders().getFirst("Authorization"));
            paths.add(exchange.getRequestURI().toString());
            exchange.getRequestBody().readAllBytes();
            byte[] answer = this.body.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            headers.forEach(exchange.getResponseHeaders()::set);
            exchange.sendResponseHeaders(this.status, answer.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(answer);
            }
        });
        server.start();
    }

    /** A plain HTTP server on 127.0.0.1 and an ephemeral port answering {@code status} and {@code body}. */
    public static RecordingServer http(int status, String body) throws IOException {
        return new RecordingServer(HttpServer.create(address(), 0), status, body);
    }

    /** An HTTPS server presenting the certificate of {@code tls}. */
    public static RecordingServer https(SSLContext tls, int status, String body) throws IOException {
        HttpsServer server = HttpsServer.create(address(), 0);
        server.setHttpsConfigurator(new HttpsConfigurator(tls));
        return new RecordingServer(server, status, body);
    }

    private static InetSocketAddress address() {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    }

    /** Changes the answer to later requests. */
    public void answer(int newStatus, String newBody) {
        this.status = newStatus;
        this.body = newBody;
    }

    /** Sends this header with every later answer (an Interlace server's {@code Interlace-Sequencer}, say). */
    public void header(String name, String value) {
        headers.put(name, value);
    }

    /** {@code http://127.0.0.1:<port>} or {@code https://...}. */
    public URI uri() {
        String scheme = server instanceof HttpsServer ? "https" : "http";
        return URI.create(scheme + "://127.0.0.1:" + server.getAddress().getPort());
    }

    /** The {@code Authorization} header of each request so far, in order. */
    public List<String> authorizations() {
        return List.copyOf(authorizations);
    }

    /** The path and query of each request so far, in order. */
    public List<String> paths() {
        return List.copyOf(paths);
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
