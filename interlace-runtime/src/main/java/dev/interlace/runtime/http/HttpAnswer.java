package dev.interlace.runtime.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a route answers: a status, headers and a body held whole in memory (every body is bounded). A refusal
 * (4xx/5xx) also carries its error code and message, which the router keeps in the refused-requests ring.
 *
 * <p>A JSON object body is kept as a tree until it is first read, so that the router can give every such body the
 * request's id ({@link #stampRequestId}) in one place rather than in each route.
 */
public final class HttpAnswer {

    private final int status;
    private final String contentType;
    private byte[] body;
    /** The JSON body as a tree until it is written; dropped then, so that an answer waiting to be sent holds one copy. */
    private ObjectNode json;
    private final ObjectMapper mapper;
    private final Map<String, String> headers = new LinkedHashMap<>();
    private final String error;
    private final String message;

    HttpAnswer(int status, String contentType, byte[] body, String error, String message) {
        this.status = status;
        this.contentType = contentType;
        this.body = body;
        this.json = null;
        this.mapper = null;
        this.error = error;
        this.message = message;
    }

    private HttpAnswer(int status, ObjectNode json, ObjectMapper mapper, String error, String message) {
        this.status = status;
        this.contentType = "application/json";
        this.json = json;
        this.mapper = mapper;
        this.error = error;
        this.message = message;
    }

    /** A JSON object body written by {@code mapper} when it is first read. */
    static HttpAnswer json(int status, ObjectNode body, ObjectMapper mapper, String error, String message) {
        return new HttpAnswer(status, body, mapper, error, message);
    }

    /** Adds {@code request_id} to a JSON object body that has none; other bodies are left as they are. */
    void stampRequestId(String requestId) {
        if (json != null && !json.has("request_id")) {
            json.put("request_id", requestId);
            body = null;
        }
    }

    /** A body of {@code contentType}; for answers that are not JSON (CSV, Prometheus text). */
    public static HttpAnswer bytes(int status, String contentType, byte[] body) {
        return new HttpAnswer(status, contentType, body, null, null);
    }

    /** Adds (or replaces) a header; returns this answer. */
    public HttpAnswer header(String name, String value) {
        headers.put(name, value);
        return this;
    }

    public int status() {
        return status;
    }

    public String contentType() {
        return contentType;
    }

    public byte[] body() {
        if (body == null && json != null) {
            try {
                body = mapper.writeValueAsBytes(json);
                json = null;
            } catch (JsonProcessingException e) {
                throw new IllegalStateException("cannot write a JSON answer: " + e.getMessage(), e);
            }
        }
        return body;
    }

    /** Extra headers, in the order they were added (Content-Type and Content-Length are the transport's). */
    public Map<String, String> headers() {
        return headers;
    }

    /** The error code of a refusal, or null. */
    public String error() {
        return error;
    }

    /** The message of a refusal, or null. */
    public String message() {
        return message;
    }
}
