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
 */
public record QuarantineEntry(String stream, long seq, String requestId, long ingestedAtMicros, String schemaVersion,
        byte[] payload, String errorsJson) {}
