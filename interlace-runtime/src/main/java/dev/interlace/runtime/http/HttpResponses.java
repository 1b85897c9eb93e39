package dev.interlace.runtime.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.interlace.client.ErrorCode;
import dev.interlace.runtime.ingest.Backpressured;
import dev.interlace.runtime.ops.EpochMicros;
import dev.interlace.runtime.ops.TraceIds;

/** Builds JSON answers and errors in the one shape every route uses. */
final class HttpResponses {

    static final ObjectMapper JSON = new ObjectMapper();

    private HttpResponses() {}

    /**
     * {@code body} as a JSON answer (the router adds {@code request_id} if it has none); a 4xx/5xx keeps its
     * {@code error} and {@code message} for the ring.
     */
    static HttpAnswer json(int status, ObjectNode body) {
        return json(status, body, JSON);
    }

    /** {@code body} as a JSON answer written by {@code mapper}, e.g. one that writes decimals exactly. */
    static HttpAnswer json(int status, ObjectNode body, ObjectMapper mapper) {
        return status >= 400
                ? HttpAnswer.json(status, body, mapper, body.path("error").asText(null),
                        body.path("message").asText(null))
                : HttpAnswer.json(status, body, mapper, null, null);
    }

    /**
     * An error body: {@code {"error", "message", "request_id"}}, for callers to add details to and answer with
     * {@link #error(ErrorCode, ObjectNode)}.
     */
    static ObjectNode errorBody(ErrorCode code, String message, String requestId) {
        return relayedErrorBody(code.code(), message, requestId);
    }

    /** An error body whose code came from another answer (one relayed from a node, or cut to size) as it was. */
    static ObjectNode relayedErrorBody(String code, String message, String requestId) {
        ObjectNode body = JSON.createObjectNode();
        body.put("error", code);
        body.put("message", message);
        body.put("request_id", requestId);
        return body;
    }

    /** An error answer with the code's status. */
    static HttpAnswer error(ErrorCode code, String message, String requestId) {
        return json(code.status(), errorBody(code, message, requestId));
    }

    /**
     * The answer to a publish or a replay its stream's backlog refused: 429 {@code backpressure} with the backlog, the
     * limit and {@code Retry-After}; {@code undone} says what nothing was ("stored", "replayed").
     */
    static HttpAnswer backpressured(Backpressured refused, String undone) {
        ObjectNode body = errorBody(ErrorCode.BACKPRESSURE, "stream " + refused.stream() + " has " + refused.pending()
                + " events waiting to be materialised (limit " + refused.maxPending() + "); nothing was " + undone
                + ", retry later", refused.requestId());
        body.put("pending", refused.pending());
        body.put("max_pending", refused.maxPending());
        return error(ErrorCode.BACKPRESSURE, body).header("Retry-After", Integer.toString(refused.retryAfterSeconds()));
    }

    /**
     * The answer to a publish or a replay the log could not make durable: 503 {@code log_unavailable} with
     * {@code Retry-After} and {@code may_be_stored}, saying either that nothing was {@code undone} ("stored",
     * "replayed") or, when the write was under way when it failed, that it may or may not be, and what a retry then
     * does ({@code retried}).
     */
    static HttpAnswer logUnavailable(String reason, boolean mayBeStored, int retryAfterSeconds, String undone,
            String retried, String requestId) {
        ObjectNode body = errorBody(ErrorCode.LOG_UNAVAILABLE, reason + (mayBeStored
                ? "; it may or may not be " + undone + " (the write was under way): " + retried
                : "; nothing was " + undone + ", retry later"), requestId);
        body.put("may_be_stored", mayBeStored);
        return error(ErrorCode.LOG_UNAVAILABLE, body).header("Retry-After", Integer.toString(retryAfterSeconds));
    }

    /** An error answer with the code's status and {@code body}, made by {@link #errorBody} and given details. */
    static HttpAnswer error(ErrorCode code, ObjectNode body) {
        return json(code.status(), body);
    }

    /**
     * A flush's or run's trace ids as {@code trace_ids} (at most {@value TraceIds#LIMIT}) and {@code trace_count} (how
     * many there were in all).
     */
    static void putTraces(ObjectNode node, TraceIds traces) {
        ArrayNode ids = node.putArray("trace_ids");
        traces.ids().forEach(ids::add);
        node.put("trace_count", traces.count());
    }

    /** Epoch microseconds as RFC 3339 UTC, e.g. {@code 2026-11-29T08:30:00.123456Z}. */
    static String time(long epochMicros) {
        return EpochMicros.rfc3339(epochMicros);
    }
}
