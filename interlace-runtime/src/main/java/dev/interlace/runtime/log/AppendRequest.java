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
 */
public record AppendRequest(
        String stream, String requestId, long receivedAtMicros, String schemaVersion, List<Entry> entries) {

    public AppendRequest {
        Objects.requireNonNull(stream, "stream");
        Objects.requireNonNull(requestId, "requestId");
        Objects.requireNonNull(schemaVersion, "schemaVersion");
        entries = List.copyOf(entries);
    }

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
