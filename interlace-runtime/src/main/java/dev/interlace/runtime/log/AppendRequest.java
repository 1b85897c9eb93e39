package dev.interlace.runtime.log;

import dev.interlace.runtime.stream.FieldError;
import java.util.List;
import java.util.Objects;

/**
 * One publish request's entries, appended atomically.
 *
 * @param stream the stream name
 * @param requestId the request id stored with every entry and in the publish record
 * @param receivedAtMicros when the request arrived, epoch microseconds
 * @param schemaVersion the schema version the entries were validated against
 * @param entries the entries in request order
 * @param keyId the public id of the API key that sent the request, or null (no key); kept in the publish record
 * @param keyName that key's name, or null
 * @param traceId the W3C trace id of the request (32 lowercase hex digits), or null; kept in the publish record
 */
public record AppendRequest(String stream, String requestId, long receivedAtMicros, String schemaVersion,
        List<Entry> entries, String keyId, String keyName, String traceId) {

    /** A request sent without an API key. */
    public AppendRequest(String stream, String requestId, long receivedAtMicros, String schemaVersion,
            List<Entry> entries) {
        this(stream, requestId, receivedAtMicros, schemaVersion, entries, null, null, null);
    }

    /** A request outside any trace. */
    public AppendRequest(String stream, String requestId, long receivedAtMicros, String schemaVersion,
            List<Entry> entries, String keyId, String keyName) {
        this(stream, requestId, receivedAtMicros, schemaVersion, entries, keyId, keyName, null);
    }

    public AppendRequest {
        Objects.requireNonNull(stream, "stream");
        Objects.requireNonNull(requestId, "requestId");
        Objects.requireNonNull(schemaVersion, "schemaVersion");
        entries = List.copyOf(entries);
        if (keyId != null && !KEY_TEXT.matcher(keyId).matches() || keyName != null
                && !KEY_TEXT.matcher(keyName).matches()) {
            throw new IllegalArgumentException("a key id or name is 1-64 characters of [A-Za-z0-9._-]");
        }
        if (traceId != null && !TRACE_ID.matcher(traceId).matches()) {
            throw new IllegalArgumentException("a trace id is 32 lowercase hex digits, got " + traceId);
        }
    }

    /** What a W3C trace id is made of (written into the log's records as it is). */
    private static final java.util.regex.Pattern TRACE_ID = java.util.regex.Pattern.compile("[0-9a-f]{32}");

    /** What key ids and names are made of (they are written into the log's records as they are). */
    private static final java.util.regex.Pattern KEY_TEXT = java.util.regex.Pattern.compile("[A-Za-z0-9._-]{1,64}");

    /** How many entries would be new in the log (accepted or quarantined) if none were duplicates. */
    public int size() {
        return entries.size();
    }

    /** One entry of a request. */
    public sealed interface Entry {
        /** The event as sent, UTF-8 JSON. */
        byte[] payload();
    }

    /**
     * A valid event.
     *
     * @param payload the event as sent
     * @param idempotencyKey the canonical text of its key value, or null when the stream has no key or the event's
     *     key is null (such events are never deduplicated)
     */
    public record Event(byte[] payload, String idempotencyKey) implements Entry {
        public Event {
            Objects.requireNonNull(payload, "payload");
        }
    }

    /**
     * An invalid event kept in the stream's quarantine.
     *
     * @param payload the event as sent
     * @param errors why it failed validation
     */
    public record Quarantined(byte[] payload, List<FieldError> errors) implements Entry {
        public Quarantined {
            Objects.requireNonNull(payload, "payload");
            errors = List.copyOf(errors);
        }
    }
}
