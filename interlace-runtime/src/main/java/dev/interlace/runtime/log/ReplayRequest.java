package dev.interlace.runtime.log;

import java.util.List;
import java.util.Objects;

/**
 * Quarantined entries to move into their stream, now that they are valid: appended like one publish request.
 *
 * @param stream the stream name
 * @param requestId the replay request's id, stored with the appended events, in the publish record and with each
 *     replayed entry
 * @param receivedAtMicros when the replay request arrived, epoch microseconds
 * @param schemaVersion the schema version the entries were validated against now
 * @param entries the entries, each with its event as validated (payload as originally sent, canonical key)
 * @param keyId the public id of the API key that sent the replay, or null; kept in the publish record
 * @param keyName that key's name, or null
 * @param dryRun decide every entry's outcome without writing anything
 */
public record ReplayRequest(String stream, String requestId, long receivedAtMicros, String schemaVersion,
        List<Entry> entries, String keyId, String keyName, boolean dryRun) {

    public ReplayRequest {
        Objects.requireNonNull(stream, "stream");
        Objects.requireNonNull(requestId, "requestId");
        Objects.requireNonNull(schemaVersion, "schemaVersion");
        entries = List.copyOf(entries);
    }

    /**
     * One quarantined entry to replay.
     *
     * @param seq its quarantine sequence number
     * @param event the event to append: its payload as sent and its key as validated against the current schema
     */
    public record Entry(long seq, AppendRequest.Event event) {
        public Entry {
            Objects.requireNonNull(event, "event");
        }
    }

    /** The same entries appended as one publish request. */
    AppendRequest asAppend(List<Entry> appended) {
        return new AppendRequest(stream, requestId, receivedAtMicros, schemaVersion,
                appended.stream().map(entry -> (AppendRequest.Entry) entry.event()).toList(), keyId, keyName);
    }
}
