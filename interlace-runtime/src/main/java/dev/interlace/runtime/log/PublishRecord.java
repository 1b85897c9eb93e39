package dev.interlace.runtime.log;

import java.util.List;
import java.util.TreeSet;

/**
 * The durable record of one acknowledged publish, written in the same transaction as its events (a request whose
 * events were all stored before has none to write with it, and may be recorded on its own).
 *
 * @param firstOffset lowest offset the request's accepted events got, 0 when none was accepted
 * @param lastOffset highest offset the request's accepted events got, 0 when none was accepted
 * @param duplicateOffsets for deduplicated events: the offsets of the events that first carried their keys (distinct,
 *     ascending)
 * @param firstSeq lowest quarantine sequence number of the request's quarantined events, 0 when none
 * @param lastSeq highest quarantine sequence number, 0 when none
 * @param keyId the public id of the API key that sent the request, or null (no key, or a record from before keys)
 * @param keyName that key's name, or null
 * @param traceId the W3C trace id the request came with (or was given), or null (a record from before traces)
 */
public record PublishRecord(String requestId, String stream, long accepted, long deduplicated, long quarantined,
        long firstOffset, long lastOffset, List<Long> duplicateOffsets, long firstSeq, long lastSeq,
        long receivedAtMicros, long committedAtMicros, String keyId, String keyName, String traceId) {

    /** A record without a trace id. */
    public PublishRecord(String requestId, String stream, long accepted, long deduplicated, long quarantined,
            long firstOffset, long lastOffset, List<Long> duplicateOffsets, long firstSeq, long lastSeq,
            long receivedAtMicros, long committedAtMicros, String keyId, String keyName) {
        this(requestId, stream, accepted, deduplicated, quarantined, firstOffset, lastOffset, duplicateOffsets,
                firstSeq, lastSeq, receivedAtMicros, committedAtMicros, keyId, keyName, null);
    }

    /** The record of {@code request} to {@code stream}, as {@code committed} decided it. */
    public static PublishRecord of(String stream, AppendRequest request, AppendResult.Committed committed) {
        long firstOffset = 0;
        long lastOffset = 0;
        long firstSeq = 0;
        long lastSeq = 0;
        TreeSet<Long> duplicateOffsets = new TreeSet<>();
        for (AppendResult.EntryResult fate : committed.entries()) {
            switch (fate.status()) {
                case ACCEPTED -> {
                    firstOffset = firstOffset == 0 ? fate.offset() : firstOffset;
                    lastOffset = fate.offset();
                }
                case QUARANTINED -> {
                    firstSeq = firstSeq == 0 ? fate.offset() : firstSeq;
                    lastSeq = fate.offset();
                }
                case DUPLICATE -> duplicateOffsets.add(fate.offset());
            }
        }
        return new PublishRecord(request.requestId(), stream, committed.count(AppendResult.Status.ACCEPTED),
                committed.count(AppendResult.Status.DUPLICATE), committed.count(AppendResult.Status.QUARANTINED),
                firstOffset, lastOffset, List.copyOf(duplicateOffsets), firstSeq, lastSeq, request.receivedAtMicros(),
                committed.committedAtMicros(), request.keyId(), request.keyName(), request.traceId());
    }

    /**
     * Which publish records to list: every non-null field must match exactly; times are a half-open window
     * {@code [sinceMicros, untilMicros)} on {@code received_at}.
     */
    public record Filter(String stream, String requestId, Long sinceMicros, Long untilMicros, int limit,
            String traceId) {

        /** A filter that does not look at trace ids. */
        public Filter(String stream, String requestId, Long sinceMicros, Long untilMicros, int limit) {
            this(stream, requestId, sinceMicros, untilMicros, limit, null);
        }
    }

    /** A page of records, newest first, with how many matched in all. */
    public record Page(List<PublishRecord> records, long total) {}
}
