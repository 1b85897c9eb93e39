package dev.interlace.client;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A request to the server that did not end in a 2xx JSON answer, as {@link InterlaceClient#call} reports it: why
 * ({@link #failure()}), and for an answer that came, its status, error code, message and body. Callers decide what
 * to retry and what to tell the user from these values, never from the message text.
 */
public final class ServerException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** Why a request failed. */
    public enum Failure {
        /** No connection could be made (nothing listening, host unreachable). */
        UNREACHABLE,
        /** The TLS handshake failed, e.g. the server's certificate is not trusted; {@link #getCause()} says why. */
        TLS,
        /** The connection broke or timed out after it was made. */
        BROKEN,
        /** The calling thread was interrupted; its interrupt flag is set again. */
        INTERRUPTED,
        /** The server answered a status other than 2xx. */
        STATUS,
        /** The server answered 2xx with a body that is not JSON. */
        NOT_JSON
    }

    private final Failure failure;
    private final URI uri;
    private final int status;
    private final String body;
    private final transient JsonNode json;
    private final OptionalLong retryAfterSeconds;

    private ServerException(Failure failure, URI uri, int status, String body, JsonNode json,
            OptionalLong retryAfterSeconds, String message, Throwable cause) {
        super(message, cause);
        this.failure = failure;
        this.uri = uri;
        this.status = status;
        this.body = body;
        this.json = json;
        this.retryAfterSeconds = retryAfterSeconds;
    }

    static ServerException transport(Failure failure, URI uri, Throwable cause) {
        String message = switch (failure) {
            case UNREACHABLE -> "cannot reach " + uri;
            case TLS -> "TLS with " + uri + " failed";
            case INTERRUPTED -> "interrupted while calling " + uri;
            default -> "request to " + uri + " failed";
        };
        return new ServerException(failure, uri, 0, null, null, OptionalLong.empty(),
                cause == null || cause.getMessage() == null ? message : message + ": " + cause.getMessage(), cause);
    }

    static ServerException answered(URI uri, int status, String body, JsonNode json, OptionalLong retryAfterSeconds) {
        Failure failure = status / 100 == 2 ? Failure.NOT_JSON : Failure.STATUS;
        String detail = json == null ? "a body that is not JSON"
                : json.path("error").asText("error") + ": " + json.path("message").asText("");
        return new ServerException(failure, uri, status, body, json, retryAfterSeconds,
                uri + " answered " + status + " (" + detail + ")", null);
    }

    public Failure failure() {
        return failure;
    }

    /** The URI the request went to. */
    public URI uri() {
        return uri;
    }

    /** The HTTP status, or 0 when no answer came. */
    public int status() {
        return status;
    }

    /** The server's error code ({@code "error"} of its JSON answer, e.g. {@code schema_violation}), or null. */
    public String code() {
        return json == null || !json.hasNonNull("error") ? null : json.get("error").asText();
    }

    /** The server's error as a constant; empty when no answer came, it is not JSON, or the code is a newer one. */
    public Optional<ErrorCode> errorCode() {
        return ErrorCode.of(code());
    }

    /** The server's explanation ({@code "message"} of its JSON answer), or null. */
    public String serverMessage() {
        return json == null || !json.hasNonNull("message") ? null : json.get("message").asText();
    }

    /** The body of the answer as text, or null when no answer came. */
    public String body() {
        return body;
    }

    /** The body of the answer as JSON, or null when no answer came or it is not JSON. */
    public JsonNode json() {
        return json;
    }

    /** The answer's {@code Retry-After} in seconds (1 when it is not a number of seconds), if it had one. */
    public OptionalLong retryAfterSeconds() {
        return retryAfterSeconds;
    }
}
