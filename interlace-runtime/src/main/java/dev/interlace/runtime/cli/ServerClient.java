package dev.interlace.runtime.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.interlace.runtime.stream.StoredJson;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** The HTTP calls the CLI makes to a running server, with errors turned into exit-code-1 messages. */
final class ServerClient {

    static final String DEFAULT_SERVER = "http://127.0.0.1:8000";
    static final ObjectMapper JSON = StoredJson.exactMapper();

    private final String server;
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    ServerClient(String server) {
        this.server = server.endsWith("/") ? server.substring(0, server.length() - 1) : server;
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
            throw new CommandFailedException("request to " + uri + " failed: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CommandFailedException("interrupted");
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
}
