package dev.interlace.client;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A publish the server refused for good (not retried): bad input, unknown stream, too large; or retries that ran out
 * of time. {@link #code()} is the server's error code (e.g. {@code schema_violation}).
 */
public final class PublishException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int status;
    private final String code;
    private final List<PartitionResult> storedPartitions;
    private final List<Integer> notStoredPartitions;

    public PublishException(ErrorCode code, String message) {
        this(code.status(), code.code(), message);
    }

    public PublishException(int status, String code, String message) {
        this(status, code, message, List.of(), List.of());
    }

    /**
     * A refusal of a request to a stream of several partitions whose parts were stored in part.
     *
     * @param storedPartitions the partitions whose events are stored, with their offsets
     * @param notStoredPartitions the partitions whose events are not
     */
    public PublishException(int status, String code, String message, List<PartitionResult> storedPartitions,
            List<Integer> notStoredPartitions) {
        super(status + " " + code + ": " + message);
        this.status = status;
        this.code = code;
        this.storedPartitions = List.copyOf(storedPartitions);
        this.notStoredPartitions = List.copyOf(notStoredPartitions);
    }

    /** A refusal as the server answered it ({@code body} its JSON, or null): with the parts stored, if it names some. */
    static PublishException refused(int status, String code, String message, JsonNode body) {
        if (body == null || !body.path("stored_partitions").isArray()) {
            return new PublishException(status, code, message);
        }
        List<Integer> notStored = new ArrayList<>();
        body.path("not_stored_partitions").forEach(partition -> notStored.add(partition.asInt()));
        return new PublishException(status, code, message, PartitionResult.of(body.get("stored_partitions")),
                notStored);
    }

    /** The HTTP status, or 0 when the server could not be reached. */
    public int status() {
        return status;
    }

    /** The server's error code as it sent it (or one the client decided, e.g. {@code tls_failed}). */
    public String code() {
        return code;
    }

    /**
     * For a stream of several partitions, the partitions of the refused request whose events are stored all the same
     * (each partition's share is stored or not as a whole): a retry of the request is deduplicated there. Empty when
     * nothing of the request was stored.
     */
    public List<PartitionResult> storedPartitions() {
        return storedPartitions;
    }

    /** The partitions of the refused request whose events are not stored (empty unless some others are). */
    public List<Integer> notStoredPartitions() {
        return notStoredPartitions;
    }

    /** {@link #code()} as a constant; empty for a code of the client's own or one newer than this client. */
    public Optional<ErrorCode> errorCode() {
        return ErrorCode.of(code);
    }
}
