package dev.interlace.runtime.log;

import java.util.List;
import java.util.Objects;

/**
 * Quarantined entries to move into their stream, now that they are valid: appended like one publish request.
 *
 * @param stream the log stream whose quarantine holds the entries (for a stream of several partitions, partition 0's,
 *     which keeps its quarantine)
 * @param target the log stream the events are appended to: {@code stream}, or for a stream of several partitions the
 *     partition the entries' keys (or partition key) hash to; the entries are marked replayed to that partition
 * @param requestId the replay request's id, stored with the appended events, in the publish record and with each
 *     replayed entry
 * @param receivedAtMicros when the replay request arrived, epoch microseconds
 * @param schemaVersion the schema version the entries were validated against now
 * @param entries the entries, each with its event as validated (payload as originally sent, canonical key)
 * @param keyId the public id of the API key that sent the replay, or null; kept in the publish record
 * @param keyName that key's name, or null
 * @param dryRun decide every entry's outcome without writing anything
 */
public record ReplayRequest(String stream, String target, String requestId, long receivedAtMicros,
        String schemaVersion, List<Entry> entries, String keyId, String keyName, boolean dryRun) {

    public ReplayRequest {
        Objects.requireNonNull(stream, "stream");
        Objects.requireNonNull(target, "target");
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

    /** A replay into the stream whose quarantine holds the entries (a stream of one partition). */
    public ReplayRequest(String stream, String requestId, long receivedAtMicros, String schemaVersion,
            List<Entry> entries, String keyId, String keyName, boolean dryRun) {
        this(stream, stream, requestId, receivedAtMicros, schemaVersion, entries, keyId, keyName, dryRun);
    }

    /** Whether the events go to another log stream than the quarantine's (another partition of the stream). */
    public boolean elsewhere() {
        return !target.equals(stream);
    }

    /** The same entries appended to {@link #target} as one publish request. */
    AppendRequest asAppend(List<Entry> appended) {
        return new AppendRequest(target, requestId, receivedAtMicros, schemaVersion,
                appended.stream().map(entry -> (AppendRequest.Entry) entry.event()).toList(), keyId, keyName);
    }
}
