package dev.interlace.runtime.ops;

import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Pattern;

/**
 * A W3C Trace Context {@code traceparent} header: the trace a request belongs to and the span that sent it.
 *
 * <p>Only what the recommendation calls valid is taken: version {@code 00} exactly as long as it must be, a later
 * version with any further fields after a dash (never {@code ff}), lowercase hex, a trace id and a parent id that are
 * not all zeros. Anything else is ignored, never an error: the request then starts a trace of its own
 * ({@link #newTraceId}), as a tracer receiving it would.
 *
 * @param traceId 32 lowercase hex digits
 * @param parentId the sending span's id, 16 lowercase hex digits
 * @param sampled the sampled flag of the sender
 */
public record TraceParent(String traceId, String parentId, boolean sampled) {

    private static final Pattern FIELDS = Pattern.compile(
            "([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?");
    private static final Pattern TRACE_ID = Pattern.compile("[0-9a-f]{32}");
    private static final String ZERO_TRACE = "0".repeat(32);
    private static final String ZERO_SPAN = "0".repeat(16);

    /** The header's trace context, or empty when there is none or it is not valid. */
    public static Optional<TraceParent> parse(String header) {
        if (header == null || header.length() > 512) {
            return Optional.empty();
        }
        var fields = FIELDS.matcher(header.strip());
        if (!fields.matches()) {
            return Optional.empty();
        }
        String version = fields.group(1);
        if (version.equals("ff") || version.equals("00") && fields.group(5) != null
                || fields.group(2).equals(ZERO_TRACE) || fields.group(3).equals(ZERO_SPAN)) {
            return Optional.empty();
        }
        boolean sampled = (Integer.parseInt(fields.group(4), 16) & 1) == 1;
        return Optional.of(new TraceParent(fields.group(2), fields.group(3), sampled));
    }

    /** The trace id of a request carrying {@code header}: the sender's, or a new one when it sent none valid. */
    public static String traceIdOf(String header) {
        return parse(header).map(TraceParent::traceId).orElseGet(TraceParent::newTraceId);
    }

    /**
     * A new trace id: the current time in milliseconds (16 hex digits), then 64 random bits. The random half makes it
     * unique as a tracer's would be; the time half makes the ids the server makes ascend, so that the log's index of
     * trace ids (a B-tree) takes each at its end, as it takes request ids, rather than rewriting pages all over it for
     * every publish (fully random ids halved the publishes a 64-client load got through the SQLite writer).
     */
    public static String newTraceId() {
        long random;
        do {
            random = ThreadLocalRandom.current().nextLong();
        } while (random == 0);
        return hex16(System.currentTimeMillis()) + hex16(random);
    }

    private static String hex16(long value) {
        String digits = Long.toHexString(value);
        return "0".repeat(16 - digits.length()) + digits;
    }

    /** Whether {@code text} is a trace id as this class writes them: 32 lowercase hex digits, not all zeros. */
    public static boolean isTraceId(String text) {
        return text != null && TRACE_ID.matcher(text).matches() && !text.equals(ZERO_TRACE);
    }
}
