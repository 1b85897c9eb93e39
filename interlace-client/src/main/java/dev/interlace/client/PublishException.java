package dev.interlace.client;

import java.util.Optional;

/**
 * A publish the server refused for good (not retried): bad input, unknown stream, too large; or retries that ran out
 * of time. {@link #code()} is the server's error code (e.g. {@code schema_violation}).
 */
public final class PublishException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int status;
    private final String code;

    public PublishException(ErrorCode code, String message) {
        this(code.status(), code.code(), message);
    }

    public PublishException(int status, String code, String message) {
        super(status + " " + code + ": " + message);
        this.status = status;
        this.code = code;
    }

    /** The HTTP status, or 0 when the server could not be reached. */
    public int status() {
        return status;
    }

    /** The server's error code as it sent it (or one the client decided, e.g. {@code tls_failed}). */
    public String code() {
        return code;
    }

    /** {@link #code()} as a constant; empty for a code of the client's own or one newer than this client. */
    public Optional<ErrorCode> errorCode() {
        return ErrorCode.of(code);
    }
}
