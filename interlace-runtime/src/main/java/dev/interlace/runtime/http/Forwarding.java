package dev.interlace.runtime.http;

import dev.interlace.client.ErrorCode;
import com.fasterxml.jackson.databind.JsonNode;
import dev.interlace.runtime.cluster.ForwardSignature;
import dev.interlace.runtime.cluster.Peers;
import dev.interlace.runtime.cluster.WarehouseNode;
import dev.interlace.runtime.config.InterlaceConfig;
import dev.interlace.runtime.log.Sequencers;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.inject.Inject;
import java.io.IOException;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.logging.Logger;

/**
 * Where a request is served, in a cluster: the one place that decides, from a route's {@link Route.Placement},
 * whether this node serves it or sends it to the node that can (the stream's sequencer, the warehouse's node), and
 * relays that node's answer as it is — status, body and headers such as {@code Retry-After}, under the same request
 * id, naming that node in {@value #SERVED_BY} (the request is then kept among this node's refused requests, if it was
 * refused, and not among that node's: once in the cluster).
 *
 * <p>A request goes one hop at most: a forwarded request is served by the router without asking this class. A node
 * without a cluster secret forwards nothing: the route is served here, and a publish to a stream another node
 * sequences gets {@code 503 no_sequencer} naming that node.
 *
 * <p>Warehouse routes go to a node whose warehouse is being flushed: an ingest node has no warehouse, and a node whose
 * flusher stands by for every stream holds a stale prefix of the tables. Among the live warehouses (the replicas of
 * {@code --role warehouse} nodes, the one the {@code --role all} nodes share) the most caught-up is asked first, and
 * the next when it cannot be connected to. A node with a warehouse of its own serves them itself when it flushes any
 * stream (a replica flushes them all; the shared warehouse's leases may be split between nodes, and then no node is
 * current for all), when no node flushes, or when it cannot forward (no secret); an answer from its warehouse while it
 * lags says so in {@value WarehouseStandings#LAG_HEADER}.
 */
final class Forwarding {

    private static final Logger LOG = Logger.getLogger(Forwarding.class.getName());
    /** The header of a relayed answer naming the node that served the request. */
    static final String SERVED_BY = "Interlace-Served-By";
    /** Headers of a relayed answer that the router sets itself. */
    private static final List<String> OWN_HEADERS = List.of("content-type", "x-request-id",
            SERVED_BY.toLowerCase(Locale.ROOT));

    /**
     * The answer header naming the node that sequences the stream (its advertised URL), on every successful answer
     * of a route served by a stream's sequencer: a client sends that stream's next requests there, and forwarding is
     * the fallback rather than the path.
     */
    static final String SEQUENCER_HEADER = "Interlace-Sequencer";

    private final String self;
    private final String advertised;
    private final Optional<Sequencers> sequencers;
    private final Optional<WarehouseNode> warehouse;
    /** Whether this node runs a warehouse of its own, which can answer when the flushing node's cannot. */
    private final boolean ownWarehouse;
    private final WarehouseStandings standings;
    private final boolean enabled;
    private final Peers peers;
    private final dev.interlace.runtime.stream.StreamCatalog catalog;

    /** Requests sent on to another node, per placement: how much of the traffic takes the fallback path. */
    private final java.util.Map<Route.Placement, Counter> forwards = new java.util.EnumMap<>(Route.Placement.class);

    @Inject
    Forwarding(InterlaceConfig config, ClusterRoles roles, WarehouseStandings standings,
            Optional<ForwardSignature> signature, Peers peers, MeterRegistry registry,
            dev.interlace.runtime.stream.StreamCatalog catalog) {
        this.catalog = catalog;
        for (Route.Placement placement : List.of(Route.Placement.SEQUENCER, Route.Placement.WAREHOUSE)) {
            forwards.put(placement, forwarded(registry, placement));
        }
        this.self = WarehouseStandings.normalised(config.advertisedUrl());
        this.advertised = config.advertisedUrl();
        this.sequencers = roles.sequencers();
        this.warehouse = roles.warehouses();
        this.ownWarehouse = config.role().runsWarehouse();
        this.standings = standings;
        this.enabled = signature.isPresent();
        this.peers = peers;
    }

    /**
     * The counter of requests sent on to the node serving {@code placement}: whole requests here, and the parts of a
     * partitioned publish that {@link PartForwarding} sends to their partition's sequencer.
     */
    static Counter forwarded(MeterRegistry registry, Route.Placement placement) {
        return Counter.builder("interlace.forwarded.requests")
                .description("Requests this node sent on to the node that serves them (a stream's sequencer,"
                        + " the warehouse's node)")
                .tag("to", placement.name().toLowerCase(Locale.ROOT)).register(registry);
    }

    /**
     * Whether a request of {@code route} may be served by another node (asking which may wait on the cluster): not
     * a publish to an unpartitioned stream whose sequencer serves on this node right now.
     */
    boolean mayForward(Route route, List<String> parameters) {
        return switch (route.placement()) {
            case ANY -> false;
            case SEQUENCER -> enabled && sequencers.isPresent() && !sequencedHere(parameters.get(0));
            case WAREHOUSE -> warehouse.isPresent();
        };
    }

    /**
     * The answer of the node that serves {@code route}, when that is another node; null when this node serves it.
     *
     * @throws Refusal {@code 503 no_warehouse} for a warehouse route while no node runs the warehouse
     */
    CompletableFuture<HttpAnswer> forward(Route route, List<String> parameters, HttpRequest request,
            String requestId) {
        String node = switch (route.placement()) {
            case ANY -> null;
            case SEQUENCER -> sequenced(parameters.get(0), request).flatMap(stream ->
                            sequencers.flatMap(placed -> placed.holder(stream)))
                    .filter(holder -> !WarehouseStandings.normalised(holder).equals(self)).orElse(null);
            case WAREHOUSE -> warehouseNode(request.header(ReadAfter.HEADER), requestId);
        };
        if (node == null) {
            return null;
        }
        if (!enabled) {
            if (route.placement() == Route.Placement.SEQUENCER) {
                return null; // served here: the log answers no_sequencer, naming the holder
            }
            if (ownWarehouse) {
                return null; // served from this node's warehouse, its lag in the answer (see servedHere)
            }
            throw new Refusal(HttpResponses.error(ErrorCode.NO_WAREHOUSE, "this node runs no warehouse; it runs on "
                    + node + ", but this node has no cluster secret (--cluster-secret-file) to forward the request"
                    + " with; send it to " + node, requestId).header("Retry-After", "5"));
        }
        Peers.Request forwarded = new Peers.Request(request.method(), target(request),
                request.header("Content-Type"), request.body(), requestId, request.caller().keyId(),
                request.caller().keyName(), request.header("Content-Encoding"), request.header("Accept"),
                request.header("traceparent"), request.header("tracestate"), request.header(ReadAfter.HEADER));
        forwards.get(route.placement()).increment();
        return send(node, forwarded, route, request, requestId, new java.util.HashSet<>());
    }

    /**
     * The log stream whose sequencer serves a request naming {@code stream}: itself (a stream of one partition, or a
     * partition's log stream a route was resolved to), the partition {@code partition=} names, or none for a
     * partitioned stream as a whole — served here, where the publisher sends each partition's share to its
     * sequencer ({@link PartForwarding}).
     */
    /**
     * Whether this node sequences {@code stream}, an unpartitioned one, right now (a partitioned stream's request may
     * have parts for other nodes, whose holders a node may have to ask the cluster for).
     */
    private boolean sequencedHere(String stream) {
        java.util.Optional<dev.interlace.runtime.stream.StreamDescriptor> declared = catalog.find(stream);
        return declared.isPresent() && !declared.get().partitioned() && sequencers.get().sequencesHere(stream);
    }

    private java.util.Optional<String> sequenced(String stream, HttpRequest request) {
        java.util.Optional<dev.interlace.runtime.stream.StreamDescriptor> declared = catalog.find(stream);
        if (declared.isEmpty() || !declared.get().partitioned()) {
            return java.util.Optional.of(stream);
        }
        String partition = request.query().get(PartitionParameter.NAME);
        try {
            return partition == null ? java.util.Optional.empty()
                    : java.util.Optional.of(declared.get().logStream(Integer.parseInt(partition)).name());
        } catch (IllegalArgumentException e) {
            return java.util.Optional.empty(); // refused where it is served
        }
    }

    /**
     * Sends {@code forwarded} to {@code node} and relays its answer. A warehouse route whose node cannot be connected
     * to (a replica that died and still seems live until its flush leases expire) goes to the next live replica:
     * nothing was served on a node never connected to.
     */
    private CompletableFuture<HttpAnswer> send(String node, Peers.Request forwarded, Route route, HttpRequest request,
            String requestId, java.util.Set<String> tried) {
        tried.add(node);
        // The other node's answer is held here until it is written: its bytes are reserved as they arrive.
        Peers.AnswerAllowance answerBytes = bytes -> request.reserve(bytes * InflightBytes.ANSWER_COPIES);
        return peers.sendAsync(node, forwarded, answerBytes).handle((answer, failure) -> {
            if (failure != null) {
                Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                        ? failure.getCause() : failure;
                if (cause instanceof Peers.AnswerRefused) {
                    return CompletableFuture.completedFuture(AnswerBudget.overloaded("the answer of node " + node
                            + " to " + request.method() + " " + request.rawPath() + " (it was served there; a retried"
                            + " publish is deduplicated)", requestId).answer());
                }
                if (!(cause instanceof IOException)) {
                    throw new CompletionException(cause);
                }
                LOG.warning("request " + requestId + ": node " + node + " did not answer: " + cause.getMessage());
                String next = route.placement() == Route.Placement.WAREHOUSE && neverConnected(cause)
                        ? warehouse.get().urls().stream().filter(url -> !tried.contains(url)
                                && !WarehouseStandings.normalised(url).equals(self)).findFirst().orElse(null)
                        : null;
                if (next != null) {
                    return send(next, forwarded, route, request, requestId, tried);
                }
                return CompletableFuture.completedFuture(HttpResponses.error(ErrorCode.PEER_UNAVAILABLE,
                        request.method() + " " + request.rawPath() + " is served by node " + node + ", which could"
                        + " not be reached (" + cause.getMessage() + "); it may or may not have been served there:"
                        + " retry (a retried publish is deduplicated)", requestId).header("Retry-After", "1"));
            }
            HttpAnswer relayed = relayed(answer);
            if (ErrorCode.CLUSTER_AUTH_FAILED.code().equals(relayed.error())) {
                // Not the client's doing: the two nodes disagree on the secret (or their clocks do).
                LOG.warning("request " + requestId + ": node " + node + " refused this node's forward: "
                        + relayed.message());
                return CompletableFuture.completedFuture(HttpResponses.error(ErrorCode.PEER_UNAVAILABLE,
                        request.method() + " " + request.rawPath() + " is served by node " + node + ", which refused"
                        + " this node's signature (do the nodes share the same --cluster-secret-file, and are their"
                        + " clocks synchronised?); nothing was done there", requestId).header("Retry-After", "5"));
            }
            return CompletableFuture.completedFuture(relayed.header(SERVED_BY, node));
        }).thenCompose(answer -> answer);
    }

    /** Whether {@code failure} happened before a connection was made: the request cannot have been served. */
    private static boolean neverConnected(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof java.net.ConnectException
                    || cause instanceof java.net.http.HttpConnectTimeoutException) {
                return true;
            }
        }
        return false;
    }

    /**
     * {@code answer}, served by this node, as it is sent: an answer from this node's warehouse while another node has
     * flushed streams further carries {@value WarehouseStandings#LAG_HEADER}, naming them and by how much; a stream
     * sequencer's answer on a cluster's node names this node in {@value #SEQUENCER_HEADER} (relayed as it is when
     * the request was forwarded here).
     */
    HttpAnswer servedHere(Route route, HttpAnswer answer) {
        if (answer != null && answer.status() < 300 && route.placement() == Route.Placement.SEQUENCER
                && sequencers.isPresent()) {
            answer.header(SEQUENCER_HEADER, advertised);
        }
        if (answer != null && answer.status() < 300 && route.placement() == Route.Placement.WAREHOUSE
                && warehouse.isPresent() && ownWarehouse && !answer.isFromCurrentReplica()) {
            String lag = standings.lagHeader();
            if (lag != null) {
                answer.header(WarehouseStandings.LAG_HEADER, lag);
            }
        }
        return answer;
    }

    /**
     * The node flushing the warehouse when it is another one; null when this node serves warehouse routes itself
     * (it has a warehouse and flushes some stream, or no node flushes now).
     */
    private String warehouseNode(String after, String requestId) {
        if (warehouse.isEmpty()) {
            return null;
        }
        String flusherOfAfter = after == null || !ownWarehouse ? null : flusherOfAfter(after);
        if (flusherOfAfter != null) {
            return flusherOfAfter;
        }
        if (ownWarehouse && standings.flushesHere()) {
            // The flush leases are split between nodes: no other node's warehouse is current for every stream, so
            // this one answers, naming in the lag header the streams flushed further elsewhere.
            return null;
        }
        Optional<String> node = warehouse.get().url();
        if (node.isEmpty() && ownWarehouse) {
            return null;
        }
        if (node.isEmpty()) {
            throw new Refusal(HttpResponses.error(ErrorCode.NO_WAREHOUSE, "no node of the cluster runs the warehouse"
                    + " now (its node is starting or gone); nothing was done, retry later", requestId)
                    .header("Retry-After", "5"));
        }
        return WarehouseStandings.normalised(node.get()).equals(self) ? null : node.get();
    }

    /**
     * The node flushing the first stream that {@code after} (an {@value ReadAfter#HEADER} value) names and that this
     * node's warehouse stands by for: only there can the request wait for it. Null when this node flushes them all.
     */
    private String flusherOfAfter(String after) {
        for (String element : after.split(",")) {
            int colon = element.lastIndexOf(':');
            if (colon > 0) {
                WarehouseStandings.Standing standing = standings.of(element.substring(0, colon).strip());
                if (standing.kind() == WarehouseStandings.Kind.STANDBY && standing.flushedBy() != null) {
                    return standing.flushedBy();
                }
            }
        }
        return null;
    }

    /** The other node's answer as this node sends it; an error keeps its code and message for the refused ring. */
    private static HttpAnswer relayed(Peers.Answer answer) {
        String contentType = answer.headers().entrySet().stream()
                .filter(header -> header.getKey().equalsIgnoreCase("Content-Type")).map(java.util.Map.Entry::getValue)
                .findFirst().orElse("application/octet-stream");
        String error = null;
        String message = null;
        if (answer.status() >= 400 && contentType.startsWith("application/json")) {
            try {
                JsonNode body = HttpResponses.JSON.readTree(answer.body());
                error = body.path("error").asText(null);
                message = body.path("message").asText(null);
            } catch (IOException e) {
                // Not JSON after all: relayed as it is, without a code for the ring.
            }
        }
        HttpAnswer relayed = new HttpAnswer(answer.status(), contentType, answer.body(), error, message);
        answer.headers().forEach((name, value) -> {
            if (!OWN_HEADERS.contains(name.toLowerCase(Locale.ROOT))) {
                relayed.header(name, value);
            }
        });
        return relayed;
    }

    private static String target(HttpRequest request) {
        return request.rawQuery() == null ? request.rawPath() : request.rawPath() + "?" + request.rawQuery();
    }
}
