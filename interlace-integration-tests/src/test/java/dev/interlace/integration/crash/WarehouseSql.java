package dev.interlace.integration.crash;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * How the crash oracles read a recovered child's warehouse: {@code POST /sql} (text/plain), whole answers only (an
 * oracle must not judge from a truncated page), long results page by page.
 */
public final class WarehouseSql {

    /** Rows per page (the server caps a response at 10 000 rows). */
    public static final int PAGE = 9_000;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http;
    private final URI server;

    public WarehouseSql(HttpClient http, URI server) {
        this.http = http;
        this.server = server;
    }

    /** The {@code rows} array of {@code query}; fails on any other answer than a whole 200. */
    public JsonNode rows(String query) throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(server.resolve("/sql"))
                .timeout(Duration.ofSeconds(60))
                .header("Content-Type", "text/plain")
                .POST(HttpRequest.BodyPublishers.ofString(query))
                .build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IllegalStateException("POST /sql " + query + " answered " + response.statusCode() + ": "
                    + response.body());
        }
        JsonNode body = JSON.readTree(response.body());
        if (body.path("truncated").asBoolean(false)) {
            throw new IllegalStateException("POST /sql " + query + " was truncated");
        }
        return body.get("rows");
    }

    /**
     * Runs {@code query} (totally ordered, without {@code LIMIT}) a page of {@value #PAGE} rows at a time and gives
     * every row to {@code each}.
     */
    public void forEachRow(String query, Consumer<JsonNode> each) throws IOException, InterruptedException {
        for (long from = 0; ; from += PAGE) {
            JsonNode rows = rows(query + " LIMIT " + PAGE + " OFFSET " + from);
            rows.forEach(each);
            if (rows.size() < PAGE) {
                return;
            }
        }
    }
}
