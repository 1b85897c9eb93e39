package dev.interlace.runtime.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.interlace.client.ExactJson;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;

/**
 * The HTTP calls the CLI makes to a running server, with errors turned into exit-code-1 messages. Sends
 * {@code Authorization: Bearer <key>} when it has a key; trusts the given certificates (else the JDK's default
 * authorities) for {@code https://}.
 */
final class ServerClient {

    static final String DEFAULT_SERVER = "http://127.0.0.1:8000";
    static final ObjectMapper JSON = ExactJson.mapper();

    private final String server;
    private final String apiKey;
    private final boolean keyFromFile;
    private final HttpClient client;

    /**
     * @param apiKey the key to send, or null
     * @param sslContext the TLS trust to use, or null for the JDK's default
     * @param keyFromFile whether the key came from {@code --api-key-file} (for messages)
     */
    ServerClient(String server, String apiKey, SSLContext sslContext, boolean keyFromFile) {
        this.server = server.endsWith("/") ? server.substring(0, server.length() - 1) : server;
        this.apiKey = apiKey;
        this.keyFromFile = keyFromFile;
        HttpClient.Builder http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10));
        if (sslContext != null) {
            http.sslContext(sslContext);
        }
        this.client = http.build();
    }

    /** Sends a request; returns the JSON body of a 2xx answer, or fails with the server's error. */
    JsonNode send(String method, String path, String contentType, String body) {
        URI uri;
        try {
            uri = URI.create(server + path);
        } catch (IllegalArgumentException e) {
            throw new UsageException("--server is not a URL: " + server);
        }
        HttpRequest.Builder request = HttpRequest.newBuilder(uri);
        if (apiKey != null) {
            request.header("Authorization", "Bearer " + apiKey);
        }
        if (body != null) {
            request.header("Content-Type", contentType).method(method, HttpRequest.BodyPublishers.ofString(body));
        } else {
            request.method(method, HttpRequest.BodyPublishers.noBody());
        }
        HttpResponse<String> response;
        try {
            response = client.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (ConnectException e) {
            throw new CommandFailedException("cannot reach " + server + " (is `interlace serve` running there?)");
        } catch (IOException e) {
            SSLException tls = tlsFailure(e);
            if (tls != null) {
                throw new CommandFailedException("TLS with " + server + " failed: " + tls.getMessage() + " (if the"
                        + " server's certificate comes from a private CA or is self-signed, pass it with --tls-ca FILE)");
            }
            throw new CommandFailedException("request to " + uri + " failed: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CommandFailedException("interrupted");
        }
        if (response.statusCode() == 401 || response.statusCode() == 403) {
            throw new CommandFailedException(refusal(response));
        }
        JsonNode json;
        try {
            json = JSON.readTree(response.body());
        } catch (IOException e) {
            throw new CommandFailedException("the server answered " + response.statusCode()
                    + " with a body that is not JSON");
        }
        if (response.statusCode() / 100 != 2) {
            throw new CommandFailedException(json.path("error").asText("error") + ": "
                    + json.path("message").asText(response.body()));
        }
        return json;
    }

    /** What to tell the user when the server refuses the key (401) or its scopes (403). */
    private String refusal(HttpResponse<String> response) {
        String detail;
        try {
            JsonNode json = JSON.readTree(response.body());
            detail = json.path("error").asText("error") + ": " + json.path("message").asText("");
        } catch (IOException e) {
            detail = response.statusCode() + " " + response.body();
        }
        if (response.statusCode() == 403) {
            return "the API key does not allow this (" + detail + "); create a key with the scope it names";
        }
        if (apiKey == null) {
            return "the server needs an API key: set " + ServerOptions.API_KEY_VARIABLE + " or pass --api-key-file"
                    + " FILE (" + detail + ")";
        }
        return "the server refused the API key from " + (keyFromFile ? "--api-key-file" : ServerOptions.API_KEY_VARIABLE)
                + ": unknown or revoked (" + detail + ")";
    }

    private static SSLException tlsFailure(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof SSLException tls) {
                return tls;
            }
        }
        return null;
    }
}
