package dev.interlace.runtime.log;

/**
 * An event kept in a stream's quarantine.
 *
 * @param stream stream name
 * @param seq its quarantine sequence number, dense from 1
 * @param requestId the request that sent it
 * @param ingestedAtMicros when its request arrived, epoch microseconds
 * @param schemaVersion the schema version it failed against
 * @param payload the event as sent
 * @param errorsJson every error, {@code [{"field", "reason"}]}
 * @param replay where it was replayed to, or null while it was not
 */
public record QuarantineEntry(String stream, long seq, String requestId, long ingestedAtMicros, String schemaVersion,
        byte[] payload, String errorsJson, Replay replay) {

    /** An entry not replayed (yet). */
    public QuarantineEntry(String stream, long seq, String requestId, long ingestedAtMicros, String schemaVersion,
            byte[] payload, String errorsJson) {
        this(stream, seq, requestId, ingestedAtMicros, schemaVersion, payload, errorsJson, null);
    }

    /**
     * How an entry left the quarantine.
     *
     * @param offset the offset of its event in the stream (the original's when it was a duplicate)
     * @param requestId the replay request that moved it
     * @param atMicros when that replay was committed, epoch microseconds
     * @param partition the partition the event went to (0 for a stream of one partition), whose offset it is
     */
    public record Replay(long offset, String requestId, long atMicros, int partition) {

        /** An entry replayed into a stream of one partition. */
        public Replay(long offset, String requestId, long atMicros) {
            this(offset, requestId, atMicros, 0);
        }
    }
}
