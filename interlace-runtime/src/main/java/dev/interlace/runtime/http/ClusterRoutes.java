package dev.interlace.runtime.http;

import dev.interlace.client.ErrorCode;
import dev.interlace.runtime.auth.Caller;
import dev.interlace.runtime.cluster.ForwardSignature;
import dev.interlace.runtime.cluster.PeerClient;
import dev.interlace.runtime.cluster.Peers;
import jakarta.inject.Inject;
import jakarta.inject.Provider;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * {@code POST /_cluster/forward}: a request another node of the cluster forwarded here, on a connection whose session
 * proved the cluster secret ({@code POST /_cluster/session}), or signed with the secret on its own (as nodes before
 * sessions sent them: accepted so that a cluster can be upgraded node by node). Either makes it the request it
 * carries — served with the caller the sending node authenticated (that node checked the key's scopes and quota) and
 * the same request id, and never forwarded again. Anything else is {@code 401 cluster_auth_failed}, and so is every
 * request to a node without a cluster secret.
 *
 * <p>A session opens with two requests on a fresh connection: the connecting node sends its nonce, this node answers
 * its own nonce and its proof of the secret over both ({@link ForwardSignature#sessionProof}); the connecting node
 * checks that proof and sends its own, and from then on the connection's requests carry no signature. Both nonces
 * are new for every connection, so nothing recorded on one connection opens a session on another.
 */
final class ClusterRoutes implements RouteSet {

    private final java.util.Optional<ForwardSignature> signature;
    private final Provider<HttpApi> router;

    @Inject
    ClusterRoutes(java.util.Optional<ForwardSignature> signature, Provider<HttpApi> router) {
        this.signature = signature;
        this.router = router;
    }

    @Override
    public void register(List<Route> routes) {
        routes.add(Route.async("POST", PeerClient.FORWARD_PATH, Access.PUBLIC, this::forwarded));
        routes.add(Route.inline("POST", PeerClient.SESSION_PATH, Access.PUBLIC, this::session));
    }

    /** One step of opening a session: the challenge (a nonce), or the answer to it (a proof). */
    private HttpAnswer session(HttpRequest request, List<String> path, String requestId) {
        if (signature.isEmpty()) {
            throw refused("this node has no cluster secret (--cluster-secret-file), so it opens no session",
                    requestId);
        }
        PeerSession session = request.session();
        String proof = request.forwardHeader(ForwardSignature.SESSION_PROOF);
        if (proof == null) {
            String connecting = request.forwardHeader(ForwardSignature.SESSION_NONCE);
            if (!ForwardSignature.isNonce(connecting)) {
                throw refused("a session opens with " + ForwardSignature.SESSION_NONCE + ", 64 hex digits",
                        requestId);
            }
            String accepting = ForwardSignature.nonce();
            session.challenged(connecting, accepting);
            com.fasterxml.jackson.databind.node.ObjectNode body = HttpResponses.JSON.createObjectNode();
            body.put("nonce", accepting);
            body.put("proof", signature.get().sessionProof(ForwardSignature.Side.ACCEPTING, connecting, accepting));
            return HttpResponses.json(200, body);
        }
        String[] challenge = session.takeChallenge();
        if (challenge == null) {
            throw refused("no session is being opened on this connection (send " + ForwardSignature.SESSION_NONCE
                    + " first, on the same connection)", requestId);
        }
        if (!signature.get().provesSession(proof, ForwardSignature.Side.CONNECTING, challenge[0], challenge[1])) {
            throw refused("the session proof does not match (another secret)", requestId);
        }
        session.authenticate();
        com.fasterxml.jackson.databind.node.ObjectNode body = HttpResponses.JSON.createObjectNode();
        body.put("session", "authenticated");
        return HttpResponses.json(200, body);
    }

    private CompletableFuture<HttpAnswer> forwarded(HttpRequest request, List<String> path, String requestId) {
        if (signature.isEmpty()) {
            throw refused("this node has no cluster secret (--cluster-secret-file), so it accepts no forwarded"
                    + " request", requestId);
        }
        ForwardSignature.Verdict verdict = request.session().authenticated()
                ? ForwardSignature.carried(request::forwardHeader, request.body())
                : signature.get().verify(request::forwardHeader, request.body());
        if (verdict instanceof ForwardSignature.Verdict.Refused refusal) {
            throw refused(refusal.reason(), requestId);
        }
        Peers.Request inner = ((ForwardSignature.Verdict.Valid) verdict).request();
        if (!inner.requestId().equals(requestId)) {
            throw refused("its X-Request-Id is not the signed request id " + inner.requestId(), requestId);
        }
        Caller caller = inner.callerKeyId() == null ? Caller.NONE
                : new Caller(inner.callerKeyId(), inner.callerKeyName(), null);
        request.caller(caller);
        request.markForwardedByNode();
        return router.get().serveForwarded(new HttpRequest(inner.method(), inner.pathAndQuery(), headers(inner),
                inner.body(), request.hold()), caller, inner.requestId());
    }

    /** The headers of the forwarded request that routes read. */
    private static Map<String, List<String>> headers(Peers.Request inner) {
        Map<String, List<String>> headers = new java.util.TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        put(headers, "Content-Type", inner.contentType());
        put(headers, "Content-Encoding", inner.contentEncoding());
        put(headers, "Accept", inner.accept());
        put(headers, "X-Request-Id", inner.requestId());
        put(headers, "traceparent", inner.traceparent());
        put(headers, "tracestate", inner.tracestate());
        put(headers, ReadAfter.HEADER, inner.interlaceAfter());
        return headers;
    }

    private static void put(Map<String, List<String>> headers, String name, String value) {
        if (value != null) {
            headers.put(name, new ArrayList<>(List.of(value)));
        }
    }

    private static Refusal refused(String reason, String requestId) {
        return new Refusal(HttpResponses.error(ErrorCode.CLUSTER_AUTH_FAILED, "this route serves only requests"
                + " forwarded by another node of the cluster, signed with the cluster secret: " + reason, requestId));
    }
}
