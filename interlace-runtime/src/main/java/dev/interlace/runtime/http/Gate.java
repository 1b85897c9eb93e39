package dev.interlace.runtime.http;

import dev.interlace.client.ErrorCode;
import dev.interlace.runtime.auth.ApiKey;
import dev.interlace.runtime.auth.ApiKeys;
import dev.interlace.runtime.auth.Caller;
import dev.interlace.runtime.auth.Scope;
import dev.interlace.runtime.config.Exposure;
import dev.interlace.runtime.config.InterlaceConfig;
import jakarta.inject.Inject;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Decides, before a route runs, whether a request may be served at all: its {@code Host} (DNS rebinding), its
 * {@code Origin} (a web page in a browser is a hostile client even on loopback) and its API key with the route's
 * scope. Open mode (no key needed) holds only while there is no key and the server listens on loopback only.
 */
final class Gate {

    static final String ALLOWED_HEADERS = "Authorization, Content-Type, X-Request-Id, traceparent, tracestate,"
            + " Interlace-After";
    static final String EXPOSED_HEADERS = "X-Request-Id, Retry-After, Interlace-Warehouse-Lag, Interlace-Sequencer";

    private final ApiKeys keys;
    private final boolean loopback;
    private final boolean insecureNoAuth;
    private final Set<String> hosts;
    private final boolean checkHostWithKeys;
    private final Set<String> corsOrigins;
    private final String scheme;

    @Inject
    Gate(ApiKeys keys, InterlaceConfig config) {
        this.keys = keys;
        Exposure exposure = config.exposure();
        this.loopback = Exposure.isLoopback(config.bind());
        this.insecureNoAuth = exposure.insecureNoAuth();
        Set<String> names = new LinkedHashSet<>(List.of("localhost", "127.0.0.1", "::1"));
        String bind = hostPart(config.bind());
        if (!bind.equals("0.0.0.0") && !bind.equals("::")) {
            names.add(bind);
        }
        names.addAll(exposure.allowedHosts());
        // The name other nodes reach this one by, which they send as Host when they forward a request.
        String advertised = config.log().advertiseUrl().isEmpty() ? null
                : java.net.URI.create(config.log().advertiseUrl()).getAuthority();
        if (advertised != null) {
            names.add(hostPart(advertised));
        }
        this.hosts = Set.copyOf(names);
        this.checkHostWithKeys = !exposure.allowedHosts().isEmpty();
        this.corsOrigins = Set.copyOf(exposure.corsOrigins());
        this.scheme = exposure.tls() ? "https" : "http";
    }

    /** Open mode: no live key, and listening on loopback only (or {@code --insecure-no-auth}). */
    boolean open() {
        return (loopback || insecureNoAuth) && keys.isEmpty();
    }

    /** A refusal for a request whose {@code Host} or {@code Origin} is not accepted, or null when both are. */
    HttpAnswer checkHostAndOrigin(HttpRequest request, String requestId) {
        String host = request.header("Host");
        if (host != null && (open() || checkHostWithKeys) && !hosts.contains(hostPart(host))) {
            return HttpResponses.error(ErrorCode.HOST_NOT_ALLOWED, "this server does not answer to Host \""
                    + cut(host) + "\"; add it with --allowed-hosts if it is yours", requestId);
        }
        String origin = request.header("Origin");
        if (origin != null && !sameOrigin(origin, host) && !corsOrigins.contains(origin.toLowerCase(Locale.ROOT))) {
            return HttpResponses.error(ErrorCode.ORIGIN_NOT_ALLOWED, "requests from the web origin \"" + cut(origin)
                    + "\" are refused; add it with --cors-origins if a page there may call this API", requestId);
        }
        return null;
    }

    /** The answer to a CORS preflight from an allowed origin, or null when the request is not a preflight. */
    HttpAnswer preflight(HttpRequest request, String requestId) {
        if (!request.method().equals("OPTIONS") || request.header("Origin") == null
                || request.header("Access-Control-Request-Method") == null) {
            return null;
        }
        return HttpAnswer.bytes(204, "text/plain", new byte[0])
                .header("Access-Control-Allow-Methods", "GET, POST")
                .header("Access-Control-Allow-Headers", ALLOWED_HEADERS)
                .header("Access-Control-Max-Age", "600");
    }

    /** Adds the CORS headers an allowed cross-origin caller needs to read {@code answer}. */
    void addCors(HttpRequest request, HttpAnswer answer) {
        String origin = request.header("Origin");
        if (origin != null && corsOrigins.contains(origin.toLowerCase(Locale.ROOT))
                && !sameOrigin(origin, request.header("Host"))) {
            answer.header("Access-Control-Allow-Origin", origin)
                    .header("Vary", "Origin")
                    .header("Access-Control-Expose-Headers", EXPOSED_HEADERS);
        }
    }

    /**
     * Who the caller is, for a route that needs one of {@code anyOf}; refuses 401 without a valid key and 403 for a
     * key without the scope. A route open to all ({@code anyOf} empty: health, the console's page) is served whatever
     * key comes with it, a valid one only naming the caller: a probe or a browser that sends a stale key must still
     * see whether the server lives, and the console must load to ask for a better key.
     */
    Caller admit(HttpRequest request, List<Scope> anyOf, String requestId) {
        String authorization = request.header("Authorization");
        if (anyOf.isEmpty()) {
            return authorization == null || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)
                    ? Caller.NONE
                    : keys.authenticate(authorization.substring(7).strip()).map(Caller::of).orElse(Caller.NONE);
        }
        if (authorization == null) {
            if (open()) {
                return Caller.NONE;
            }
            throw unauthorized("this server needs an API key: send Authorization: Bearer <key> (create one with"
                    + " `interlace keys create`)", requestId);
        }
        if (!authorization.regionMatches(true, 0, "Bearer ", 0, 7) || authorization.length() <= 7) {
            throw unauthorized("the Authorization header must be Bearer <key>", requestId);
        }
        Optional<ApiKey> key = keys.authenticate(authorization.substring(7).strip());
        if (key.isEmpty()) {
            throw unauthorized("the API key is not known to this server, or was revoked", requestId);
        }
        if (anyOf.stream().noneMatch(key.get()::allows)) {
            request.caller(Caller.of(key.get())); // the refusal is recorded with the key that was refused
            String needed = anyOf.stream().map(Scope::toString).collect(Collectors.joining(" or "));
            throw new Refusal(HttpResponses.error(ErrorCode.FORBIDDEN, "key " + key.get().name() + " ("
                    + key.get().id() + ") lacks the scope " + needed + " that " + request.method() + " "
                    + cut(request.rawPath()) + " needs", requestId));
        }
        return Caller.of(key.get());
    }

    private static Refusal unauthorized(String message, String requestId) {
        return new Refusal(HttpResponses.error(ErrorCode.UNAUTHORIZED, message, requestId)
                .header("WWW-Authenticate", "Bearer realm=\"interlace\""));
    }

    private boolean sameOrigin(String origin, String host) {
        return host != null && origin.equalsIgnoreCase(scheme + "://" + host);
    }

    /** The host of a {@code Host} header or bind address, lower case, without port or IPv6 brackets. */
    static String hostPart(String host) {
        String value = host.strip().toLowerCase(Locale.ROOT);
        if (value.startsWith("[")) {
            int close = value.indexOf(']');
            return close < 0 ? value : value.substring(1, close);
        }
        int colon = value.indexOf(':');
        if (colon >= 0 && value.indexOf(':', colon + 1) < 0) {
            return value.substring(0, colon);
        }
        return value;
    }

    private static String cut(String text) {
        return text.length() <= 200 ? text : text.substring(0, 200) + "…";
    }
}
