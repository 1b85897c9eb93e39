package dev.interlace.runtime.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import dev.interlace.runtime.ops.EpochMicros;
import java.io.IOException;
import java.io.OutputStream;

/** Writes JSON responses and errors in the one shape every route uses. */
final class HttpResponses {

    static final ObjectMapper JSON = new ObjectMapper();

    private HttpResponses() {}

    /**
     * Exchange attribute holding what to do with a refusal (4xx/5xx) before it is answered: the router keeps it in
     * the refused-requests ring, so that a client that got the answer finds it in {@code GET /logs/api} at once.
     */
    static final String REFUSAL_ATTRIBUTE = "interlace.refusal";

    /** Told of a refusal: its status, error code and message. */
    @FunctionalInterface
    interface Refusal {
        void refused(int status, String error, String message);
    }

    static void json(HttpExchange exchange, int status, ObjectNode body) throws IOException {
        if (status >= 400 && exchange.getAttribute(REFUSAL_ATTRIBUTE) instanceof Refusal refusal) {
            refusal.refused(status, body.path("error").asText(null), body.path("message").asText(null));
        }
        byte[] bytes = JSON.writeValueAsBytes(body);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    /** An error body: {@code {"error", "message", "request_id"}}, for callers to add details to. */
    static ObjectNode error(String code, String message, String requestId) {
        ObjectNode body = JSON.createObjectNode();
        body.put("error", code);
        body.put("message", message);
        body.put("request_id", requestId);
        return body;
    }

    static void error(HttpExchange exchange, int status, String code, String message, String requestId)
            throws IOException {
        json(exchange, status, error(code, message, requestId));
    }

    /** Epoch microseconds as RFC 3339 UTC, e.g. {@code 2026-11-29T08:30:00.123456Z}. */
    static String time(long epochMicros) {
        return EpochMicros.toInstant(epochMicros).toString();
    }
}
