package dev.interlace.runtime.http;

import dev.interlace.runtime.auth.Caller;
import dev.interlace.runtime.cluster.ForwardSignature;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A request as routes see it: method, raw path and query, headers, and the whole body, which the transport has
 * already read within its size limit. Transports build it; nothing in it refers to a server library.
 */
public final class HttpRequest {

    private final String method;
    private final String rawPath;
    private final String rawQuery;
    private final Map<String, List<String>> headers;
    private final Map<String, List<String>> forwardHeaders;
    private final byte[] body;
    private final InflightBytes.Hold hold;
    private volatile Caller caller = Caller.NONE;
    private volatile boolean forwardedByNode;
    private final PeerSession session;

    /**
     * The headers starting with {@code Interlace-Forward} are set apart at once: no route sees them as headers, and
     * only the internal route of forwarded requests reads them, to check their signature.
     *
     * @param target the request target as sent, e.g. {@code /streams/orders?verbose=true}
     * @param headers header values by name (looked up case-insensitively)
     */
    public HttpRequest(String method, String target, Map<String, List<String>> headers, byte[] body) {
        this(method, target, headers, body, InflightBytes.UNLIMITED.hold());
    }

    /**
     * A request whose memory counts against an in-flight budget: {@code hold} has its body reserved already, routes
     * add what they build for its answer ({@link #reserve}), and the transport releases it once the answer is written.
     */
    public HttpRequest(String method, String target, Map<String, List<String>> headers, byte[] body,
            InflightBytes.Hold hold) {
        this(method, target, headers, body, hold, new PeerSession());
    }

    /** A request read on a connection whose {@link PeerSession} the transport keeps across its requests. */
    public HttpRequest(String method, String target, Map<String, List<String>> headers, byte[] body,
            InflightBytes.Hold hold, PeerSession session) {
        this.session = session;
        this.hold = hold;
        this.method = method;
        int question = target.indexOf('?');
        this.rawPath = question < 0 ? target : target.substring(0, question);
        this.rawQuery = question < 0 ? null : target.substring(question + 1);
        // Keyed by the lower-case name: one hash lookup per header read (a name sent twice in different cases is
        // merged, first spelling first, as a case-insensitive map would).
        Map<String, List<String>> byName = new HashMap<>();
        Map<String, List<String>> forwarding = new HashMap<>();
        headers.forEach((name, values) -> (isForwardHeader(name) ? forwarding : byName)
                .merge(name.toLowerCase(Locale.ROOT), values, HttpRequest::concat));
        this.headers = byName;
        this.forwardHeaders = forwarding;
        this.body = body;
    }

    /** Header names as the code asks for them ("Content-Type"), lower-cased once each rather than on every read. */
    private static final Map<String, String> LOWER_CASE_NAMES = new java.util.concurrent.ConcurrentHashMap<>();

    private static String lowerCase(String name) {
        String lower = LOWER_CASE_NAMES.get(name);
        if (lower == null) {
            lower = name.toLowerCase(Locale.ROOT);
            if (LOWER_CASE_NAMES.size() < 256) { // names come from the code, but stay bounded whatever a caller passes
                LOWER_CASE_NAMES.put(name, lower);
            }
        }
        return lower;
    }

    private static List<String> concat(List<String> first, List<String> then) {
        List<String> both = new ArrayList<>(first);
        both.addAll(then);
        return both;
    }

    private static boolean isForwardHeader(String name) {
        String prefix = ForwardSignature.HEADER_PREFIX;
        return name.regionMatches(true, 0, prefix, 0, prefix.length());
    }

    public String method() {
        return method;
    }

    /** The path, still percent-encoded, without the query. */
    public String rawPath() {
        return rawPath;
    }

    /** The query string, still percent-encoded, or null. */
    public String rawQuery() {
        return rawQuery;
    }

    /** The first value of a header, or null. */
    public String header(String name) {
        List<String> values = headers.get(lowerCase(name));
        return values == null || values.isEmpty() ? null : values.get(0);
    }

    /** The first value of an {@code Interlace-Forward-*} header, which only a signature makes worth believing. */
    String forwardHeader(String name) {
        List<String> values = forwardHeaders.get(lowerCase(name));
        return values == null || values.isEmpty() ? null : values.get(0);
    }

    /** The decoded query parameters; the first value of a repeated parameter wins. */
    public Map<String, String> query() {
        return QueryParameters.parse(rawQuery);
    }

    public byte[] body() {
        return body;
    }

    /**
     * Reserves {@code bytes} of the in-flight budget for this request's answer, until the transport has written it;
     * false when they do not fit now (the route answers {@code 503 overloaded}, or less).
     */
    public boolean reserve(long bytes) {
        return hold.reserve(bytes);
    }

    /**
     * Marks this request as one another node of the cluster forwarded here, its signature checked: that node keeps
     * it among its refused requests, not this one.
     */
    void markForwardedByNode() {
        forwardedByNode = true;
    }

    /** Whether another node forwarded this request here ({@link #markForwardedByNode}). */
    boolean forwardedByNode() {
        return forwardedByNode;
    }

    /** What the connection this request came on has proved of the cluster secret. */
    PeerSession session() {
        return session;
    }

    /** What this request holds reserved: a request served on its behalf (a forwarded one) reserves into it too. */
    InflightBytes.Hold hold() {
        return hold;
    }

    /** Who sent it, once the router has checked its key ({@link Caller#NONE} until then, or without a key). */
    public Caller caller() {
        return caller;
    }

    void caller(Caller who) {
        this.caller = who;
    }

    /** The request target as a URI, for code that wants one; null when the target is not a valid URI. */
    URI uri() {
        try {
            return new URI(rawQuery == null ? rawPath : rawPath + "?" + rawQuery);
        } catch (java.net.URISyntaxException e) {
            return null;
        }
    }
}
