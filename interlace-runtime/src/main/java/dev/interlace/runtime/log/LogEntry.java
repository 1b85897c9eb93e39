package dev.interlace.runtime.log;

/**
 * An accepted event as stored in the log.
 *
 * @param stream stream name
 * @param offset its offset, dense from 1
 * @param requestId the request that wrote it
 * @param ingestedAtMicros when its request arrived, epoch microseconds
 * @param schemaVersion the schema version it was validated against
 * @param payload the event as sent, UTF-8 JSON
 */
public record LogEntry(
        String stream, long offset, String requestId, long ingestedAtMicros, String schemaVersion, byte[] payload) {}
