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
 * ({@link #traceIdOf(String, String)}), as a tracer receiving it would.
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

    /**
     * The trace id of request {@code requestId} carrying {@code header}: the sender's; else, when the request id is
     * time-ordered as the server mints them, {@link #ofRequestId that id's own}; else a new one.
     */
    public static String traceIdOf(String header, String requestId) {
        Optional<TraceParent> sent = parse(header);
        if (sent.isPresent()) {
            return sent.get().traceId();
        }
        String own = ofRequestId(requestId);
        return own != null ? own : newTraceId();
    }

    /**
     * The trace id that is {@code requestId} itself, or null when it is not shaped as the server mints request ids
     * (26 characters of Crockford base32, uppercase, the first at most {@code 7}: 48 bits of milliseconds and 80
     * random bits). Those 128 bits, as 32 hex digits, are a trace id as {@link #newTraceId} makes them (time first,
     * then random), and one that a store can leave out: {@link #requestIdOf} gives the request id back, so a lookup
     * by trace id goes through the request-id index.
     */
    public static String ofRequestId(String requestId) {
        if (requestId == null || requestId.length() != 26 || requestId.charAt(0) > '7') {
            return null;
        }
        long high = 0; // bits 127-64 of the 130 the 26 digits spell; the first digit's top 2 bits are 0
        long low = 0;
        for (int i = 0; i < 26; i++) {
            char c = requestId.charAt(i);
            int digit = c < DIGITS.length ? DIGITS[c] : -1;
            if (digit < 0) {
                return null;
            }
            high = high << 5 | low >>> 59;
            low = low << 5 | digit;
        }
        return high == 0 && low == 0 ? null : hex16(high) + hex16(low);
    }

    /** The request id whose {@link #ofRequestId own trace id} {@code traceId} is (any valid trace id has one). */
    public static String requestIdOf(String traceId) {
        long high = Long.parseUnsignedLong(traceId.substring(0, 16), 16);
        long low = Long.parseUnsignedLong(traceId.substring(16), 16);
        char[] id = new char[26];
        for (int i = 25; i >= 0; i--) {
            id[i] = CROCKFORD.charAt((int) (low & 31));
            low = low >>> 5 | high << 59;
            high >>>= 5;
        }
        return new String(id);
    }

    /** The digits of time-ordered request ids (see {@link RequestIds}), and each character's value or -1. */
    private static final String CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
    private static final byte[] DIGITS = new byte[128];

    static {
        java.util.Arrays.fill(DIGITS, (byte) -1);
        for (int i = 0; i < CROCKFORD.length(); i++) {
            DIGITS[CROCKFORD.charAt(i)] = (byte) i;
        }
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
