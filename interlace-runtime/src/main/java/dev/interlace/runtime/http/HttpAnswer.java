package dev.interlace.runtime.http;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a route answers: a status, headers and a body held whole in memory (every body is bounded). A refusal
 * (4xx/5xx) also carries its error code and message, which the router keeps in the refused-requests ring.
 */
public final class HttpAnswer {

    private final int status;
    private final String contentType;
    private final byte[] body;
    private final Map<String, String> headers = new LinkedHashMap<>();
    private final String error;
    private final String message;

    HttpAnswer(int status, String contentType, byte[] body, String error, String message) {
        this.status = status;
        this.contentType = contentType;
        this.body = body;
        this.error = error;
        this.message = message;
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
