package dev.interlace.test;

import java.util.List;

/**
 * One event a {@code QUARANTINE} stream kept aside, as {@code GET /streams/{name}/quarantine} lists it.
 *
 * @param seq its quarantine sequence number, dense from 1 per stream
 * @param requestId the request that sent it
 * @param event the event exactly as it was sent
 * @param errors each field error as {@code "field: reason"}
 * @param replayedOffset the offset a replay gave it in the stream, null while it was not replayed
 */
public record QuarantinedEvent(long seq, String requestId, String event, List<String> errors, Long replayedOffset) {}
