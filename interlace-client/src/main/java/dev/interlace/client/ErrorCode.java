package dev.interlace.client;

import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Every error the server answers: the code in the {@code "error"} field of its JSON body, with the HTTP status it
 * always comes with. The server builds its errors from these constants and clients match on them, so both speak the
 * same vocabulary; {@code docs/rest-api.md} documents each one (a test holds the two together).
 */
public enum ErrorCode {

    BAD_REQUEST(400, "the request is not valid HTTP/1.1"),
    MALFORMED_JSON(400, "the body is not valid JSON (or gzip)"),
    NOT_AN_OBJECT(400, "an event is not a JSON object"),
    DUPLICATE_FIELD(400, "an object names a field twice"),
    INVALID_PARAMETER(400, "a query parameter is unknown or has a bad value"),
    INVALID_REPLAY(400, "a quarantine replay request is malformed"),
    INVALID_SQL(400, "the SQL does not parse, or is more than one statement"),
    QUERY_FAILED(400, "the query failed in the warehouse"),
    MISSING_SQL(400, "no SQL was sent"),
    NO_IDEMPOTENCY_KEY(400, "the stream declares no idempotency key"),
    INVALID_KEY(400, "an API key request is malformed"),
    INVALID_GRANT(400, "a consumer group grant is malformed"),
    INVALID_GROUP(400, "a consumer group name is not valid"),
    RESERVED_GROUP(400, "the consumer group name is reserved"),
    INVALID_LEASE(400, "a lease request is malformed"),
    INVALID_COMMIT(400, "a commit request is malformed"),
    INVALID_POSITION(400, "an Interlace-After header is not a list of positions"),
    PARTITION_REQUIRED(400, "the stream has several partitions and the request names none"),
    WRONG_PARTITION(400, "an event published (or replayed) to one partition belongs to another"),
    INVALID_BACKUP(400, "a backup request is malformed, or names a directory that is not empty"),
    BACKUP_OUTSIDE_ROOT(400, "a backup request names a directory outside the server's --backup-root"),
    UNAUTHORIZED(401, "no valid API key"),
    CLUSTER_AUTH_FAILED(401, "a forwarded request's signature is not valid"),
    FORBIDDEN(403, "the key lacks the scope the route needs"),
    GROUP_FORBIDDEN(403, "the key may not use the consumer group"),
    READ_ONLY(403, "the SQL would change something"),
    ORIGIN_NOT_ALLOWED(403, "a browser request from an origin not allowed"),
    NOT_FOUND(404, "no such route or resource"),
    UNKNOWN_STREAM(404, "no stream has that name"),
    UNKNOWN_KEY(404, "no API key has that id"),
    UNKNOWN_MODEL(404, "no model has that name"),
    UNKNOWN_REQUEST(404, "no request with that id is known"),
    UNKNOWN_RUN(404, "no model run has that id"),
    UNKNOWN_SEQ(404, "no quarantine entry has that sequence number"),
    UNKNOWN_TRACE(404, "no request of that trace is known"),
    UNKNOWN_GROUP(404, "no consumer group has that name"),
    METHOD_NOT_ALLOWED(405, "the route does not take that method"),
    REQUEST_TIMEOUT(408, "the request did not arrive in time"),
    QUERY_TIMEOUT(408, "the query ran past its deadline"),
    LEASE_HELD(409, "another consumer holds the group's lease"),
    LEASE_EXPIRED(409, "the lease expired"),
    STALE_TOKEN(409, "the lease's token was superseded"),
    BACKUP_RUNNING(409, "another backup is being taken"),
    TRIMMED(410, "the events asked for were trimmed by retention"),
    PAYLOAD_TOO_LARGE(413, "the body is larger than allowed"),
    TOO_MANY_EVENTS(413, "the request has more events than allowed"),
    URI_TOO_LONG(414, "the request line is too long"),
    UNSUPPORTED_MEDIA_TYPE(415, "the content type or encoding is not supported"),
    HOST_NOT_ALLOWED(421, "the Host header names another server"),
    SCHEMA_VIOLATION(422, "events do not match the stream's schema"),
    OFFSET_BEYOND_HEAD(422, "a commit names an offset past the stream's head"),
    OFFSET_REGRESSED(409, "a commit names an offset below the group's"),
    BACKPRESSURE(429, "the stream's backlog is full"),
    RATE_LIMITED(429, "the key's publish quota is used up"),
    TOO_MANY_PIPELINED(429, "too many pipelined requests wait on the connection"),
    HEADERS_TOO_LARGE(431, "the headers are too large"),
    INTERNAL(500, "the server failed unexpectedly"),
    BACKUP_FAILED(500, "the backup could not be written"),
    LOG_UNAVAILABLE(503, "the stream log cannot take writes now"),
    NO_SEQUENCER(503, "no node that can sequence the stream is reachable"),
    NO_WAREHOUSE(503, "no warehouse can answer now"),
    NOT_MATERIALISED(503, "the positions asked for were not materialised in time"),
    PEER_UNAVAILABLE(503, "the node that serves the request could not be reached"),
    OVERLOADED(503, "requests in flight hold as much memory as allowed"),
    BUSY(503, "every query slot is taken"),
    TOO_MANY_CONNECTIONS(503, "the connection limits are reached"),
    SHUTTING_DOWN(503, "the server is shutting down"),
    HTTP_VERSION_NOT_SUPPORTED(505, "the request is not HTTP/1.0 or 1.1");

    private static final Map<String, ErrorCode> BY_CODE = Arrays.stream(values())
            .collect(Collectors.toUnmodifiableMap(ErrorCode::code, Function.identity()));

    private final int status;
    private final String code;
    private final String summary;

    ErrorCode(int status, String summary) {
        this.status = status;
        this.code = name().toLowerCase(Locale.ROOT);
        this.summary = summary;
    }

    /** The HTTP status the error always comes with. */
    public int status() {
        return status;
    }

    /** The code as the JSON body's {@code "error"} field carries it, e.g. {@code schema_violation}. */
    public String code() {
        return code;
    }

    /** What the error means in one line; the answer's {@code "message"} says what happened in this request. */
    public String summary() {
        return summary;
    }

    /** Whether the same request may succeed later: the server answered 429 or 503, with {@code Retry-After}. */
    public boolean retryable() {
        return status == 429 || status == 503;
    }

    /** The constant for a code as the server sent it; empty for a code this client does not know (a newer server). */
    public static Optional<ErrorCode> of(String code) {
        return Optional.ofNullable(code == null ? null : BY_CODE.get(code));
    }

    @Override
    public String toString() {
        return status + " " + code;
    }
}
