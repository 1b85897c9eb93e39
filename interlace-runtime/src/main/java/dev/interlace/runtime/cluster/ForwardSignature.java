package dev.interlace.runtime.cluster;

import dev.interlace.runtime.config.ClusterSecret;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.UnaryOperator;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Signs a request one node forwards to another, and checks such a signature: an HMAC-SHA256 with the cluster secret
 * over the forwarded request's method, target, content type and encoding, {@code Accept}, request id, caller, trace
 * context ({@code traceparent}, {@code tracestate}), the positions it reads after ({@code Interlace-After}), a timestamp
 * and the SHA-256 of its body, all of which travel in
 * {@code Interlace-Forward-*} headers.
 *
 * <p>A client cannot produce such a request without the secret, so a node that receives one may serve it with the
 * caller the sending node authenticated. Nodes now prove the secret once per connection instead
 * ({@link #sessionProof}), and send the same headers unsigned on it ({@link #unsignedHeaders}); a request signed on
 * its own is what a node from before sessions sends and receives. The timestamp bounds how long a captured request could be replayed
 * ({@link #FRESHNESS}); a replayed publish would still be deduplicated by its idempotency keys.
 */
public final class ForwardSignature {

    /** What every forwarding header's name starts with; a client's headers so named are never believed. */
    public static final String HEADER_PREFIX = "Interlace-Forward";
    public static final String METHOD = "Interlace-Forward-Method";
    public static final String TARGET = "Interlace-Forward-Target";
    public static final String CONTENT_TYPE = "Interlace-Forward-Content-Type";
    public static final String CONTENT_ENCODING = "Interlace-Forward-Content-Encoding";
    public static final String ACCEPT = "Interlace-Forward-Accept";
    public static final String REQUEST_ID = "Interlace-Forward-Request-Id";
    public static final String CALLER_KEY_ID = "Interlace-Forward-Caller-Key-Id";
    public static final String CALLER_KEY_NAME = "Interlace-Forward-Caller-Key-Name";
    public static final String TRACEPARENT = "Interlace-Forward-Traceparent";
    public static final String TRACESTATE = "Interlace-Forward-Tracestate";
    public static final String AFTER = "Interlace-Forward-After";
    public static final String TIMESTAMP = "Interlace-Forward-Timestamp";
    public static final String SIGNATURE = "Interlace-Forward-Signature";
    /** A session's opening: the sender's nonce, then the receiver's ({@link #sessionProof}). */
    public static final String SESSION_NONCE = "Interlace-Forward-Session-Nonce";
    /** A session's opening: the proof of the secret over both nonces. */
    public static final String SESSION_PROOF = "Interlace-Forward-Session-Proof";

    /** How far a forwarded request's timestamp may be from the receiver's clock, either way. */
    public static final Duration FRESHNESS = Duration.ofSeconds(30);

    private static final String ALGORITHM = "HmacSHA256";
    private static final HexFormat HEX = HexFormat.of();
    private static final java.security.SecureRandom RANDOM = new java.security.SecureRandom();

    private final SecretKeySpec key;
    private final Clock clock;

    public ForwardSignature(ClusterSecret secret, Clock clock) {
        this.key = new SecretKeySpec(secret.bytes(), ALGORITHM);
        this.clock = clock;
    }

    /** The outcome of checking a forwarded request: the request, or why it is refused. */
    public sealed interface Verdict {
        /** The signature is valid and fresh: serve {@code request}. */
        record Valid(Peers.Request request) implements Verdict {}

        /** Not signed by a member of the cluster, or too old; {@code reason} says which, for the 401. */
        record Refused(String reason) implements Verdict {}
    }

    /** The headers that carry {@code request} to another node, signed now. */
    public Map<String, String> headers(Peers.Request request) {
        Map<String, String> headers = unsignedHeaders(request);
        headers.put(TIMESTAMP, Long.toString(clock.millis()));
        headers.put(SIGNATURE, sign(headers::get, request.body()));
        return headers;
    }

    /**
     * The headers that carry {@code request} on a connection whose session is authenticated ({@link #sessionProof}):
     * the same as {@link #headers}, without a timestamp and a signature.
     */
    public static Map<String, String> unsignedHeaders(Peers.Request request) {
        Map<String, String> headers = new LinkedHashMap<>();
        put(headers, METHOD, request.method());
        put(headers, TARGET, request.pathAndQuery());
        put(headers, CONTENT_TYPE, request.contentType());
        put(headers, CONTENT_ENCODING, request.contentEncoding());
        put(headers, ACCEPT, request.accept());
        put(headers, REQUEST_ID, request.requestId());
        put(headers, CALLER_KEY_ID, request.callerKeyId());
        put(headers, CALLER_KEY_NAME, request.callerKeyName());
        put(headers, TRACEPARENT, request.traceparent());
        put(headers, TRACESTATE, request.tracestate());
        put(headers, AFTER, request.interlaceAfter());
        return headers;
    }

    /** Which end of a session proves the secret: the two proofs differ, so that neither can be reflected. */
    public enum Side { CONNECTING, ACCEPTING }

    /**
     * The proof, in hex, that {@code side} of a connection holds the cluster secret: an HMAC-SHA256 over both ends'
     * nonces (64 hex digits each). Each end picks its nonce afresh for every connection, so a proof recorded on one
     * connection proves nothing on another.
     */
    public String sessionProof(Side side, String connectingNonce, String acceptingNonce) {
        return hmac("interlace-session-v1\n" + side.name() + "\n" + connectingNonce + "\n" + acceptingNonce);
    }

    /** Whether {@code presented} is the proof {@link #sessionProof} gives, compared in constant time. */
    public boolean provesSession(String presented, Side side, String connectingNonce, String acceptingNonce) {
        if (presented == null || connectingNonce == null || acceptingNonce == null) {
            return false;
        }
        return MessageDigest.isEqual(presented.getBytes(StandardCharsets.US_ASCII),
                sessionProof(side, connectingNonce, acceptingNonce).getBytes(StandardCharsets.US_ASCII));
    }

    /** A fresh nonce: 32 random bytes in hex. */
    public static String nonce() {
        byte[] nonce = new byte[32];
        RANDOM.nextBytes(nonce);
        return HEX.formatHex(nonce);
    }

    /** Whether {@code nonce} looks like one {@link #nonce} makes. */
    public static boolean isNonce(String nonce) {
        return nonce != null && nonce.length() == 64 && nonce.chars().allMatch(c -> Character.digit(c, 16) >= 0);
    }

    /**
     * Checks a received forwarded request: its {@code Interlace-Forward-*} headers (looked up with {@code header},
     * null for a missing one) and its body.
     */
    public Verdict verify(UnaryOperator<String> header, byte[] body) {
        String signature = header.apply(SIGNATURE);
        String timestamp = header.apply(TIMESTAMP);
        if (signature == null || timestamp == null) {
            return new Verdict.Refused("the request carries no cluster signature (" + SIGNATURE + ", " + TIMESTAMP
                    + ")");
        }
        byte[] presented;
        try {
            presented = HEX.parseHex(signature);
        } catch (IllegalArgumentException e) {
            return new Verdict.Refused("the cluster signature is not hexadecimal");
        }
        byte[] expected = HEX.parseHex(sign(header, body));
        if (!MessageDigest.isEqual(presented, expected)) {
            return new Verdict.Refused("the cluster signature does not match the request (another secret, or the"
                    + " request was altered)");
        }
        long sentAt;
        try {
            sentAt = Long.parseLong(timestamp);
        } catch (NumberFormatException e) {
            return new Verdict.Refused("the timestamp is not a number");
        }
        long skew = Math.abs(clock.millis() - sentAt);
        if (skew > FRESHNESS.toMillis()) {
            return new Verdict.Refused("the request was signed " + skew + " ms away from this node's clock; at most "
                    + FRESHNESS.toMillis() + " ms are accepted (are the nodes' clocks synchronised?)");
        }
        return carried(header, body);
    }

    /**
     * The request that {@code Interlace-Forward-*} headers (looked up with {@code header}) carry with {@code body},
     * without a signature: a request on a connection whose session proved the secret.
     */
    public static Verdict carried(UnaryOperator<String> header, byte[] body) {
        String method = header.apply(METHOD);
        String target = header.apply(TARGET);
        String requestId = header.apply(REQUEST_ID);
        if (method == null || target == null || !target.startsWith("/") || requestId == null) {
            return new Verdict.Refused("the request lacks its method, target or request id");
        }
        return new Verdict.Valid(new Peers.Request(method, target, header.apply(CONTENT_TYPE), body, requestId,
                header.apply(CALLER_KEY_ID), header.apply(CALLER_KEY_NAME), header.apply(CONTENT_ENCODING),
                header.apply(ACCEPT), header.apply(TRACEPARENT), header.apply(TRACESTATE), header.apply(AFTER)));
    }

    /** The signature, in hex, of the signed headers as {@code header} gives them and of the body's hash. */
    private String sign(UnaryOperator<String> header, byte[] body) {
        StringBuilder text = new StringBuilder("interlace-forward-v3");
        for (String name : new String[] {METHOD, TARGET, CONTENT_TYPE, CONTENT_ENCODING, ACCEPT, REQUEST_ID,
                CALLER_KEY_ID, CALLER_KEY_NAME, TRACEPARENT, TRACESTATE, AFTER, TIMESTAMP}) {
            String value = header.apply(name);
            text.append('\n').append(value == null ? "" : value);
        }
        try {
            text.append('\n').append(HEX.formatHex(MessageDigest.getInstance("SHA-256").digest(body)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("SHA-256 is not available in this JVM", e);
        }
        return hmac(text.toString());
    }

    private String hmac(String text) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(key);
            return HEX.formatHex(mac.doFinal(text.getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HMAC-SHA256 is not available in this JVM", e);
        }
    }

    private static void put(Map<String, String> headers, String name, String value) {
        if (value == null) {
            return;
        }
        if (value.indexOf('\n') >= 0 || value.indexOf('\r') >= 0) {
            throw new IllegalArgumentException(name + " must not contain a line break");
        }
        headers.put(name, value);
    }
}
