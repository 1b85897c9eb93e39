package dev.interlace.runtime.ingest;

import dev.interlace.client.ErrorCode;
import dev.interlace.runtime.auth.Quotas;
import dev.interlace.runtime.log.AppendResult;
import dev.interlace.runtime.tracing.Tracing;
import java.util.List;

/**
 * Every way a publish can end. The HTTP layer maps each to its status code and body in one place; nothing here
 * knows about HTTP.
 */
public sealed interface PublishOutcome permits PublishOutcome.Published, PublishOutcome.UnknownStream,
        PublishOutcome.BadBody, PublishOutcome.SchemaViolation, Backpressured, PublishOutcome.RateLimited,
        PublishOutcome.Unavailable, PublishOutcome.NoSequencer, PublishOutcome.PartlyStored {

    /** The request id the outcome belongs to. */
    String requestId();

    /**
     * The events are durable (200).
     *
     * @param results one per event, in request order
     * @param quarantineErrors for each quarantined event (by index), why it was quarantined
     */
    record Published(String requestId, List<AppendResult.EntryResult> results,
            List<List<dev.interlace.runtime.stream.FieldError>> quarantineErrors, String stream, int[] partitions)
            implements PublishOutcome {

        /** The events of a stream with one partition. */
        public Published(String requestId, List<AppendResult.EntryResult> results,
                List<List<dev.interlace.runtime.stream.FieldError>> quarantineErrors) {
            this(requestId, results, quarantineErrors, null, null);
        }

        /** Whether the stream has several partitions: {@link #partitions} then says each event's. */
        public boolean partitioned() {
            return partitions != null;
        }

        /**
         * Per partition the events of this request fell in (ascending), the highest offset among its accepted and
         * duplicate events (-1 when it has none, e.g. only quarantined events).
         */
        public java.util.SortedMap<Integer, Long> lastOffsets() {
            java.util.SortedMap<Integer, Long> last = new java.util.TreeMap<>();
            for (int i = 0; i < results.size(); i++) {
                AppendResult.EntryResult result = results.get(i);
                long offset = result.status() == AppendResult.Status.QUARANTINED ? -1 : result.offset();
                last.merge(partitions == null ? 0 : partitions[i], offset, Math::max);
            }
            return last;
        }

        public long count(AppendResult.Status status) {
            long count = 0;
            for (int i = 0; i < results.size(); i++) {
                if (results.get(i).status() == status) {
                    count++;
                }
            }
            return count;
        }

        /** How the events fared, as a tracer is told. */
        public Tracing.EventCounts counts() {
            return new Tracing.EventCounts(count(AppendResult.Status.ACCEPTED), count(AppendResult.Status.DUPLICATE),
                    count(AppendResult.Status.QUARANTINED));
        }

        /**
         * The highest offset among accepted and duplicate events, or null when there is none, or when the stream has
         * several partitions (whose offsets are not comparable: see {@link #lastOffsets()}).
         */
        public Long lastOffset() {
            if (partitions != null) {
                return null;
            }
            long last = -1;
            for (int i = 0; i < results.size(); i++) {
                AppendResult.EntryResult result = results.get(i);
                if (result.status() != AppendResult.Status.QUARANTINED && result.offset() > last) {
                    last = result.offset();
                }
            }
            return last < 0 ? null : last;
        }
    }

    /** No stream of that name is declared (404). */
    record UnknownStream(String requestId, String stream) implements PublishOutcome {}

    /**
     * The body cannot be read as events (400, 413 or 415); nothing of it is stored.
     *
     * @param code the error code, e.g. {@code malformed_json}
     * @param index 0-based event index the problem is at, or -1 when it concerns the whole body
     * @param line 1-based NDJSON line, or 0
     * @param field the field concerned, or null
     */
    record BadBody(String requestId, ErrorCode code, String message, int index, int line, String field)
            implements PublishOutcome {

        /** The longest message kept: it may quote the request (a token, a field name). */
        static final int MAX_MESSAGE = 1024;

        public BadBody {
            field = dev.interlace.runtime.stream.FieldError.truncate(field);
            if (message != null && message.length() > MAX_MESSAGE) {
                message = message.substring(0, MAX_MESSAGE - 1) + "\u2026";
            }
        }

        BadBody withRequestId(String id) {
            return new BadBody(id, code, message, index, line, field);
        }

        static BadBody malformed(int index, int line, String message) {
            return new BadBody(null, ErrorCode.MALFORMED_JSON, message, index, line, null);
        }

        static BadBody notAnObject(int index, int line, String message) {
            return new BadBody(null, ErrorCode.NOT_AN_OBJECT, message, index, line, null);
        }

        static BadBody duplicateField(int index, int line, String field) {
            return new BadBody(null, ErrorCode.DUPLICATE_FIELD, "field \"" + field
                    + "\" appears twice in one object; send each field once", index, line, field);
        }

        /** A body (or an NDJSON line) that is in another encoding than UTF-8, e.g. {@code UTF-16LE}. */
        static BadBody notUtf8(int line, String encoding) {
            String what = encoding.startsWith("not ") ? "the body is " + encoding : "the body is " + encoding
                    + ", not UTF-8";
            return new BadBody(null, ErrorCode.UNSUPPORTED_MEDIA_TYPE, what
                    + (line > 0 ? " (line " + line + ")" : "") + "; send it as UTF-8", -1, line, null);
        }

        static BadBody tooManyEvents(int max) {
            return new BadBody(null, ErrorCode.TOO_MANY_EVENTS, "the request has more than " + max
                    + " events; split it into smaller requests", -1, 0, null);
        }
    }

    /**
     * The stream rejects drift and some events do not match its schema (422); nothing is stored.
     *
     * @param errors the failing fields of the failing events, in order: at most {@link #MAX_LISTED}
     * @param errorCount how many failing fields there are in all, listed or not
     * @param rejectedEvents how many events failed
     */
    record SchemaViolation(String requestId, List<EventError> errors, long errorCount, int rejectedEvents)
            implements PublishOutcome {

        /** How many errors of one request are listed; the rest are only counted. */
        public static final int MAX_LISTED = 100;

        /** Whether errors were found beyond those listed. */
        public boolean truncated() {
            return errorCount > errors.size();
        }
    }

    /**
     * One failing field of one event.
     *
     * @param index 0-based event index
     * @param line 1-based NDJSON line, or 0
     */
    record EventError(int index, int line, String field, String reason) {}

    /**
     * The caller's key is over one of its publish quotas, {@code limit} (429); nothing is stored; retry after
     * {@code retryAfterSeconds}.
     */
    record RateLimited(String requestId, String keyName, Quotas.Limit limit, double quotaEventsPerSecond,
            long quotaBytesPerSecond, int retryAfterSeconds) implements PublishOutcome {}

    /**
     * The log cannot make the events durable right now (503): nothing is stored, or, when {@code mayBeStored}, the
     * write was under way and may still be committed (a retry is deduplicated to it).
     */
    record Unavailable(String requestId, String reason, int retryAfterSeconds, boolean mayBeStored)
            implements PublishOutcome {}

    /**
     * No node sequences the stream right now (on a log with one sequencer per stream, during a takeover); nothing
     * was stored (503 {@code no_sequencer}).
     */
    record NoSequencer(String requestId, String stream, String reason, int retryAfterSeconds)
            implements PublishOutcome {}

    /**
     * A request to a partitioned stream whose events fell in several partitions, some of whose parts were committed
     * and some not: answered with {@code refusal}'s status, naming the parts stored. A retry of the whole request is
     * deduplicated part by part (on a stream with an idempotency key).
     *
     * @param refusal why the first part that was not stored was not (backpressure, the log unavailable, no sequencer)
     * @param stored per partition stored, its highest offset (-1 when its events were all quarantined)
     * @param notStored the partitions not stored
     */
    record PartlyStored(String requestId, String stream, PublishOutcome refusal,
            java.util.SortedMap<Integer, Long> stored, List<Integer> notStored) implements PublishOutcome {}
}
