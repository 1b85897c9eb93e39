package dev.interlace.runtime.http;

import dev.interlace.client.ErrorCode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.interlace.runtime.auth.Caller;
import dev.interlace.runtime.log.LogUnavailableException;
import dev.interlace.runtime.log.NoSequencerException;
import dev.interlace.runtime.ops.EpochMicros;
import dev.interlace.runtime.ops.FatalErrors;
import dev.interlace.runtime.ops.RequestIds;
import dev.interlace.runtime.ops.Workers;
import dev.interlace.runtime.records.ApiRecord;
import dev.interlace.runtime.records.RefusedRequests;
import jakarta.inject.Inject;
import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The HTTP API: one router for every route, request ids on every answer, a JSON error for every failure, and the
 * refused-requests ring. It knows nothing of sockets; an {@link HttpTransport} reads requests and writes answers.
 */
public final class HttpApi implements HttpDispatcher {

    private static final Logger LOG = Logger.getLogger(HttpApi.class.getName());

    /** Largest error body sent; a longer one (a route's bug) is replaced by its error code and a cut message. */
    static final int MAX_ERROR_BODY_BYTES = 64 * 1024;

    private final List<Route> routes = new ArrayList<>();
    private final RequestIds requestIds;
    private final RefusedRequests refused;
    private final Clock clock;
    private final Workers workers;
    private final HttpTransport transport;
    private final ConsumerRoutes consumers;
    private final SqlRoutes sql;
    private final Gate gate;
    private final Forwarding forwarding;
    private final ReadAfter readAfter;
    private final AtomicInteger inFlight = new AtomicInteger();
    private volatile boolean draining;
    private boolean started;

    private final PartitionParameter partitionParameter;

    @Inject
    HttpApi(RequestIds requestIds, RefusedRequests refused, Clock clock, Workers workers, HttpTransport transport,
            Gate gate, Set<RouteSet> routeSets, ConsumerRoutes consumers, SqlRoutes sql, Forwarding forwarding,
            ReadAfter readAfter, PartitionParameter partitionParameter) {
        this.partitionParameter = partitionParameter;
        this.readAfter = readAfter;
        this.requestIds = requestIds;
        this.refused = refused;
        this.clock = clock;
        this.workers = workers;
        this.transport = transport;
        this.consumers = consumers;
        this.sql = sql;
        this.gate = gate;
        this.forwarding = forwarding;
        routeSets.forEach(set -> set.register(routes));
    }

    /** Starts listening; returns the bound port (useful with port 0). */
    public int start(String bind, int port) throws IOException {
        int bound = transport.start(bind, port, this);
        started = true;
        LOG.info("HTTP on " + transport.description() + ", request work on " + workers.description());
        return bound;
    }

    /** What serves requests, e.g. {@code netty (nio, 2 event loops); workers: virtual threads}. */
    public String executorDescription() {
        return transport.description() + "; workers: " + workers.description();
    }

    /**
     * Stops taking requests (new ones get 503 {@code shutting_down}), answers parked long polls at once, cancels
     * running {@code /sql} queries (answered 503 {@code shutting_down}), waits up to {@code graceSeconds} for the
     * requests still in flight to be answered, then closes every connection.
     */
    public void stop(int graceSeconds) {
        if (!started) {
            return;
        }
        draining = true;
        consumers.wakeParked();
        sql.stopQueries();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(graceSeconds);
        synchronized (inFlight) {
            long remaining;
            while (inFlight.get() > 0 && (remaining = deadline - System.nanoTime()) > 0) {
                try {
                    TimeUnit.NANOSECONDS.timedWait(inFlight, remaining);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        transport.stop();
        workers.shutdown(graceSeconds + 5);
        started = false;
    }

    @Override
    public CompletableFuture<HttpAnswer> dispatch(HttpRequest request) {
        String requestId = requestIds.resolve(request.header("X-Request-Id"));
        Instant received = clock.instant();
        long startNanos = System.nanoTime();
        inFlight.incrementAndGet();
        CompletableFuture<HttpAnswer> answer;
        try {
            answer = route(request, requestId);
        } catch (Throwable e) { // an answer for everything; the failure is mapped below
            answer = CompletableFuture.failedFuture(e);
        }
        return answer.handle((routed, failure) -> {
            try {
                HttpAnswer sent = finish(request, requestId, routed, failure);
                sent.header("X-Request-Id", requestId);
                gate.addCors(request, sent);
                if (sent.status() >= 400 && !request.forwardedByNode()) {
                    keepRefused(request.method(), request.rawPath(), requestId, sent, received, startNanos,
                            request.caller());
                }
                return sent;
            } finally {
                if (inFlight.decrementAndGet() == 0 && draining) {
                    synchronized (inFlight) {
                        inFlight.notifyAll(); // stop() waits for the last request in flight
                    }
                }
            }
        });
    }

    private CompletableFuture<HttpAnswer> route(HttpRequest request, String requestId) throws IOException {
        HttpAnswer refused = gate.checkHostAndOrigin(request, requestId);
        if (refused != null) {
            return CompletableFuture.completedFuture(refused);
        }
        HttpAnswer preflight = gate.preflight(request, requestId);
        if (preflight != null) {
            return CompletableFuture.completedFuture(preflight);
        }
        if (draining) {
            return CompletableFuture.completedFuture(HttpResponses.error(ErrorCode.SHUTTING_DOWN, "the server is"
                    + " shutting down; nothing was stored, retry against the restarted server", requestId)
                    .header("Retry-After", "1").header("Connection", "close"));
        }
        return matched(request, requestId, (route, parameters) -> {
            request.caller(gate.admit(request, route.access().anyOf(parameters), requestId));
            return run(route, parameters, request, requestId, true);
        });
    }

    /**
     * Serves a request another node forwarded (its signature checked by the caller): as {@code caller}, whose key
     * that node checked, under the request's own id, and here whatever the route's placement — one hop at most.
     */
    CompletableFuture<HttpAnswer> serveForwarded(HttpRequest request, Caller caller, String requestId) {
        try {
            return matched(request, requestId, (route, parameters) -> {
                request.caller(caller);
                return run(route, parameters, request, requestId, false);
            });
        } catch (IOException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** What to do with a request once its route is found. */
    @FunctionalInterface
    private interface Matched {
        CompletableFuture<HttpAnswer> serve(Route route, List<String> parameters) throws IOException;
    }

    /** Finds the request's route and hands it to {@code then}; 404 for no route, 405 for another method. */
    private CompletableFuture<HttpAnswer> matched(HttpRequest request, String requestId, Matched then)
            throws IOException {
        String path = request.rawPath();
        if (path.length() > 1 && path.endsWith("/")) {
            path = path.substring(0, path.length() - 1);
        }
        List<String> allowed = new ArrayList<>();
        String[] segments = Route.segments(path);
        for (Route route : routes) {
            List<String> parameters = route.match(segments);
            if (parameters == null) {
                continue;
            }
            if (route.method().equals(request.method())) {
                try {
                    parameters = partitionParameter.resolve(route, parameters, request, requestId);
                } catch (Refusal refusal) {
                    return CompletableFuture.completedFuture(refusal.answer());
                }
                return then.serve(route, parameters);
            }
            allowed.add(route.method());
        }
        if (allowed.isEmpty()) {
            return CompletableFuture.completedFuture(HttpResponses.error(ErrorCode.NOT_FOUND, "no route for "
                    + request.method() + " " + path, requestId));
        }
        return CompletableFuture.completedFuture(HttpResponses.error(ErrorCode.METHOD_NOT_ALLOWED, request.method()
                + " is not allowed on " + path + "; use " + String.join(" or ", allowed), requestId)
                .header("Allow", String.join(", ", allowed)));
    }

    /**
     * Runs the route's handler: on the event loop for a request the route serves inline (when no other node may
     * serve it), else on a worker — which first asks {@link Forwarding} whether another node serves the request, when
     * {@code mayForward} (a forwarded request is not: one hop). The question may wait on the cluster, so it is never
     * asked on the event loop. A warehouse request served here with {@value ReadAfter#HEADER} runs once its positions
     * are materialised ({@link ReadAfter}).
     */
    private CompletableFuture<HttpAnswer> run(Route route, List<String> parameters, HttpRequest request,
            String requestId, boolean mayForward) throws IOException {
        boolean waits = route.placement() == Route.Placement.WAREHOUSE && request.header(ReadAfter.HEADER) != null;
        if (route.inline().test(request) && !(mayForward && forwarding.mayForward(route, parameters)) && !waits) {
            return route.handler().handle(request, parameters, requestId)
                    .thenApply(answer -> forwarding.servedHere(route, answer));
        }
        return CompletableFuture.supplyAsync(() -> {
            CompletableFuture<HttpAnswer> forwarded = mayForward
                    ? forwarding.forward(route, parameters, request, requestId) : null;
            if (forwarded != null) {
                return forwarded;
            }
            ReadAfter.Wanted wanted = route.placement() == Route.Placement.WAREHOUSE
                    ? readAfter.parse(request.header(ReadAfter.HEADER), requestId) : null;
            CompletableFuture<Void> materialised = wanted == null ? CompletableFuture.completedFuture(null)
                    : readAfter.await(wanted, requestId);
            return materialised.thenComposeAsync(reached -> {
                try {
                    return route.handler().handle(request, parameters, requestId)
                            .thenApply(answer -> forwarding.servedHere(route, answer));
                } catch (IOException e) {
                    throw new CompletionException(e);
                }
            }, workers.executor());
        }, workers.executor()).thenCompose(answer -> answer);
    }

    /**
     * The answer to send: the route's, its refusal, or a JSON 500 for an unexpected failure; a JSON object body gets
     * the request id here, so that every route's answer carries it.
     */
    private HttpAnswer finish(HttpRequest request, String requestId, HttpAnswer routed, Throwable failure) {
        Throwable cause = failure;
        while (cause instanceof CompletionException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cause instanceof Refusal refusal) {
            refusal.answer().stampRequestId(requestId);
            return bounded(refusal.answer(), requestId);
        }
        if (cause instanceof LogUnavailableException unavailable) {
            return HttpResponses.error(ErrorCode.LOG_UNAVAILABLE, "the stream log cannot be used now: "
                    + unavailable.getMessage() + "; retry later", requestId).header("Retry-After", "5");
        }
        if (cause instanceof NoSequencerException none) {
            return HttpResponses.error(ErrorCode.NO_SEQUENCER, none.getMessage() + "; retry later", requestId)
                    .header("Retry-After", Integer.toString(none.retryAfterSeconds()));
        }
        if (cause != null || routed == null) {
            FatalErrors.exitIfFatal(cause);
            LOG.log(Level.SEVERE, "request " + requestId + " (" + request.method() + " " + request.rawPath()
                    + ") failed", cause);
            return internalError(requestId);
        }
        routed.stampRequestId(requestId);
        try {
            if (routed.parts() == null) { // a streamed body is written by the transport, as the reader takes it
                routed.body(); // written now, so that a body that cannot be written is a 500 rather than an empty reply
            }
        } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, "request " + requestId + " (" + request.method() + " " + request.rawPath()
                    + "): the answer cannot be written", e);
            return internalError(requestId);
        }
        return bounded(routed, requestId);
    }

    private static HttpAnswer internalError(String requestId) {
        return HttpResponses.error(ErrorCode.INTERNAL, "the server failed to answer this request; the failure is"
                + " logged with request id " + requestId, requestId);
    }

    /** An error body over the bound is replaced by its code and the start of its message. */
    private static HttpAnswer bounded(HttpAnswer answer, String requestId) {
        if (answer.status() < 400 || answer.body().length <= MAX_ERROR_BODY_BYTES) {
            return answer;
        }
        LOG.warning("request " + requestId + ": an error body of " + answer.body().length + " bytes was cut");
        String message = answer.message() == null ? "" : answer.message();
        if (message.length() > 1024) {
            message = message.substring(0, 1024) + "…";
        }
        ObjectNode body = HttpResponses.relayedErrorBody(answer.error() == null ? "error" : answer.error(), message
                + " (the full answer was longer than " + MAX_ERROR_BODY_BYTES + " bytes and was cut)", requestId);
        HttpAnswer cut = HttpResponses.json(answer.status(), body);
        answer.headers().forEach(cut::header);
        return cut;
    }

    @Override
    public HttpAnswer refuse(String method, String target, ErrorCode error, String message) {
        String requestId = requestIds.resolve(null);
        HttpAnswer answer = HttpResponses.error(error, message, requestId).header("X-Request-Id", requestId);
        String path = target == null ? null : target.split("\\?", 2)[0];
        keepRefused(method, path, requestId, answer, clock.instant(), System.nanoTime(), Caller.NONE);
        return answer;
    }

    /**
     * Keeps a refused request in the ring that {@code GET /logs/api} lists (before it is answered). A request another
     * node forwarded here is that node's to keep (with this node as the one that served it), so that the cluster's
     * list holds it once.
     */
    private void keepRefused(String method, String path, String requestId, HttpAnswer answer, Instant received,
            long startNanos, Caller caller) {
        String stream = null;
        if (path != null && path.startsWith("/streams/")) {
            int end = path.indexOf('/', "/streams/".length());
            stream = path.substring("/streams/".length(), end < 0 ? path.length() : end);
        }
        refused.add(new ApiRecord("ring", requestId, method, path, stream, answer.status(), answer.error(),
                answer.message(), EpochMicros.of(received), (System.nanoTime() - startNanos) / 1_000, caller.keyId(),
                caller.keyName(), answer.headers().get(Forwarding.SERVED_BY)));
    }
}
