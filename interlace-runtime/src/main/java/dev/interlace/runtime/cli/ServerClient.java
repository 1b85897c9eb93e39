package dev.interlace.runtime.cli;

import dev.interlace.client.ErrorCode;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.interlace.client.ExactJson;
import dev.interlace.client.InterlaceClient;
import dev.interlace.client.ServerException;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import javax.net.ssl.SSLContext;

/**
 * The HTTP calls the CLI makes to a running server, with errors turned into exit-code-1 messages. The requests
 * themselves are {@link InterlaceClient#call}: it sends {@code Authorization: Bearer <key>} when it has a key and
 * trusts the given certificates (else the JDK's default authorities) for {@code https://}.
 */
final class ServerClient {

    static final String DEFAULT_SERVER = "http://127.0.0.1:8000";
    static final ObjectMapper JSON = ExactJson.mapper();

    private final String server;
    private final String apiKey;
    private final boolean keyFromFile;
    /** Null when {@code --server} is not a URL; reported by the first {@link #send}, as before any request. */
    private final InterlaceClient client;

    /**
     * @param apiKey the key to send, or null
     * @param sslContext the TLS trust to use, or null for the JDK's default
     * @param keyFromFile whether the key came from {@code --api-key-file} (for messages)
     * @param route whether publishes go to each partition's sequencer ({@code --route})
     */
    ServerClient(String server, String apiKey, SSLContext sslContext, boolean keyFromFile, boolean route) {
        this.server = server.endsWith("/") ? server.substring(0, server.length() - 1) : server;
        this.apiKey = apiKey;
        this.keyFromFile = keyFromFile;
        InterlaceClient client;
        try {
            client = InterlaceClient.builder(URI.create(this.server)).apiKey(apiKey).sslContext(sslContext)
                    .objectMapper(JSON).routeToSequencers(route).build();
        } catch (IllegalArgumentException e) {
            client = null;
        }
        this.client = client;
    }

    /** Sends a request; returns the JSON body of a 2xx answer, or fails with the server's error. */
    JsonNode send(String method, String path, String contentType, String body) {
        return send(method, path, contentType, body, java.util.Map.of());
    }

    /** {@link #send(String, String, String, String)} with extra request headers, e.g. {@code Interlace-After}. */
    JsonNode send(String method, String path, String contentType, String body, java.util.Map<String, String> headers) {
        if (client == null) {
            throw new UsageException("--server is not a URL: " + server);
        }
        try {
            return client.call(method, path, contentType, body == null ? null : body.getBytes(StandardCharsets.UTF_8),
                    headers);
        } catch (IllegalArgumentException e) {
            throw new UsageException("--server is not a URL: " + server);
        } catch (ServerException e) {
            throw new CommandFailedException(message(e));
        }
    }

    /**
     * Sends a request and returns the JSON body of a 2xx answer. Any other answer is thrown as the client's
     * {@link ServerException}, for a caller that decides per status (retry, split, drop an event); a server that
     * cannot be reached, a TLS failure and a refused key (401, 403) are failures of the command, as with {@link #send}.
     */
    JsonNode exchange(String method, String path, String contentType, byte[] body) {
        return exchanged(() -> client.call(method, path, contentType, body));
    }

    /**
     * Publishes one request's body to {@code stream} as {@link #exchange} would, sent to the stream's sequencer once
     * an answer has named it ({@link InterlaceClient#publishRequest}): on a cluster, the node given as
     * {@code --server} forwards only the first request.
     */
    JsonNode publish(String stream, String contentType, byte[] body) {
        return exchanged(() -> client.publishRequest(stream, contentType, body));
    }

    private JsonNode exchanged(java.util.function.Supplier<JsonNode> request) {
        if (client == null) {
            throw new UsageException("--server is not a URL: " + server);
        }
        try {
            return request.get();
        } catch (IllegalArgumentException e) {
            throw new UsageException("--server is not a URL: " + server);
        } catch (ServerException e) {
            boolean answered = e.failure() == ServerException.Failure.STATUS
                    || e.failure() == ServerException.Failure.NOT_JSON;
            if (answered && e.status() != 401 && e.status() != 403) {
                throw e;
            }
            throw new CommandFailedException(message(e));
        }
    }

    /** The message {@link #send} would fail with for this answer. */
    String describe(ServerException failure) {
        return message(failure);
    }

    /** The server, as given (for messages). */
    String server() {
        return server;
    }

    private String message(ServerException failure) {
        return switch (failure.failure()) {
            case UNREACHABLE -> "cannot reach " + server + " (is `interlace serve` running there?)";
            case TLS -> "TLS with " + server + " failed: " + failure.getCause().getMessage() + " (if the server's"
                    + " certificate comes from a private CA or is self-signed, pass it with --tls-ca FILE)";
            case BROKEN -> "request to " + failure.uri() + " failed: " + failure.getCause().getMessage();
            case INTERRUPTED -> "interrupted";
            case STATUS, NOT_JSON -> {
                JsonNode json = failure.json();
                // A 403 is about the key only when it says so (forbidden); read_only and origin_not_allowed are not.
                boolean keyRefused = failure.status() == 401 || (failure.status() == 403
                        && (json == null || failure.errorCode().filter(ErrorCode.FORBIDDEN::equals).isPresent()));
                if (keyRefused) {
                    yield refusal(failure);
                }
                if (json == null) {
                    yield "the server answered " + failure.status() + " with a body that is not JSON";
                }
                yield json.path("error").asText("error") + ": " + json.path("message").asText(failure.body());
            }
        };
    }

    /** What to tell the user when the server refuses the key (401) or its scopes (403). */
    private String refusal(ServerException failure) {
        String detail;
        try {
            JsonNode json = JSON.readTree(failure.body());
            detail = json.path("error").asText("error") + ": " + json.path("message").asText("");
        } catch (IOException e) {
            detail = failure.status() + " " + failure.body();
        }
        if (failure.status() == 403) {
            return "the API key does not allow this (" + detail + "); create a key with the scope it names";
        }
        if (apiKey == null) {
            return "the server needs an API key: set " + ServerOptions.API_KEY_VARIABLE + " or pass --api-key-file"
                    + " FILE (" + detail + ")";
        }
        return "the server refused the API key from " + (keyFromFile ? "--api-key-file" : ServerOptions.API_KEY_VARIABLE)
                + ": unknown or revoked (" + detail + ")";
    }
}
