package dev.interlace.runtime.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * What a route answers: a status, headers and a body held whole in memory (every body is bounded), or a body of
 * {@link Parts} that the transport writes one part at a time (pages of stored events, whose payloads are large). A
 * refusal (4xx/5xx) also carries its error code and message, which the router keeps in the refused-requests ring.
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
    /** The body part by part, or null for a body held whole. */
    private Parts parts;
    /** Whether the route said itself how current its warehouse rows are (see {@link #fromCurrentReplica}). */
    private boolean currentReplica;

    /**
     * A body written part by part: the transport asks for the next part only once the one before is written to the
     * socket, so that an answer to a slow reader holds one part, not the whole body. Each part gives back what it
     * reserved of the in-flight budget once it is written.
     */
    public interface Parts {

        /**
         * The next part, or null after the last one; reading it may take a while (it comes from the log), so it
         * completes on a worker. A failure means the rest cannot be written: the transport then ends the response
         * without its end, so that a client never takes what came for the whole answer.
         */
        CompletableFuture<Part> next();

        /** Gives back whatever the body still holds; called once, when the answer is written or given up. */
        void close();

        /** The request id that the body's last part carries, as {@link #stampRequestId} adds it to a tree. */
        void requestId(String requestId);

        /** Whether every part is at hand already (nothing more to read): such a body is sent whole. */
        boolean whole();
    }

    /**
     * One part of a streamed body: byte slices written as they are (payloads are wrapped, not copied), and what to do
     * once they are written to the socket (give back their reservation).
     */
    public record Part(List<ByteBuffer> bytes, Runnable written) {

        /** Most bytes one part carries: a large payload is cut into parts of this size. */
        public static final int MAX_BYTES = 256 * 1024;
    }

    HttpAnswer(int status, String contentType, byte[] body, String error, String message) {
        this.status = status;
        this.contentType = contentType;
        this.body = body;
        this.json = null;
        this.mapper = null;
        this.error = error;
        this.message = message;
        this.parts = null;
    }

    private HttpAnswer(int status, String contentType, Parts parts) {
        this.status = status;
        this.contentType = contentType;
        this.mapper = null;
        this.error = null;
        this.message = null;
        this.parts = parts;
    }

    private HttpAnswer(int status, ObjectNode json, ObjectMapper mapper, String error, String message) {
        this.status = status;
        this.contentType = "application/json";
        this.json = json;
        this.mapper = mapper;
        this.error = error;
        this.message = message;
        this.parts = null;
    }

    /** A JSON object body written by {@code mapper} when it is first read. */
    static HttpAnswer json(int status, ObjectNode body, ObjectMapper mapper, String error, String message) {
        return new HttpAnswer(status, body, mapper, error, message);
    }

    /** A body written part by part (with {@code Transfer-Encoding: chunked} by the Netty transport). */
    static HttpAnswer streamed(int status, String contentType, Parts parts) {
        return new HttpAnswer(status, contentType, parts);
    }

    /** The body part by part, or null when it is held whole ({@link #body}). */
    public Parts parts() {
        return parts;
    }

    /** Adds {@code request_id} to a JSON object body that has none; other bodies are left as they are. */
    void stampRequestId(String requestId) {
        if (parts != null) {
            parts.requestId(requestId);
            if (parts.whole()) { // small: sent whole, with a Content-Length, as any other answer
                body = gather(parts);
                parts = null;
            }
            return;
        }
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

    /**
     * Marks an answer from a warehouse that was brought up to the furthest the cluster has flushed before it
     * answered (a query process following the log): this node's own warehouse standing does not apply to it.
     */
    HttpAnswer fromCurrentReplica() {
        currentReplica = true;
        return this;
    }

    boolean isFromCurrentReplica() {
        return currentReplica;
    }

    public int status() {
        return status;
    }

    public String contentType() {
        return contentType;
    }

    /**
     * The body whole; a streamed body is gathered here, part by part (for a transport that does not stream, and for
     * a request served on another's behalf, whose answer is relayed whole).
     */
    public byte[] body() {
        if (body == null && parts != null) {
            body = gather(parts);
        }
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

    /**
     * The parts of {@code parts} in one array. What they reserved is not given back here: the body is held whole
     * until the transport writes it and releases the request's hold.
     */
    private static byte[] gather(Parts parts) {
        ByteArrayOutputStream whole = new ByteArrayOutputStream();
        for (Part part = parts.next().join(); part != null; part = parts.next().join()) {
            for (ByteBuffer slice : part.bytes()) {
                ByteBuffer view = slice.duplicate();
                byte[] bytes = new byte[view.remaining()];
                view.get(bytes);
                whole.writeBytes(bytes);
            }
        }
        return whole.toByteArray();
    }
}
