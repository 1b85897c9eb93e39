package dev.interlace.runtime.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.interlace.client.ErrorCode;
import dev.interlace.runtime.cluster.ClusterNodes;
import dev.interlace.runtime.cluster.Peers;
import dev.interlace.runtime.config.InterlaceConfig;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Asks the other nodes of a cluster for their part of an answer that covers the cluster: each node keeps its own
 * system records and its own ring of refused requests, so {@code /logs/api}, {@code /logs/sys} and
 * {@code /correlate} on one node ask every other node (signed, as {@link Forwarding} sends a request) and merge.
 *
 * <p>Each node is asked with {@value #NODE} set to that node, which makes it answer with its own records only: a
 * sub-request never fans out again. The nodes asked are the members the log knows now ({@link ClusterNodes}) and
 * those seen in the last {@link #FORGOTTEN_AFTER} — a node that stopped or died is still asked, so that the answer
 * names it as not answered rather than leave its records out silently. A node has {@link #NODE_TIMEOUT} to answer,
 * and what it sends counts against the client request's in-flight budget as it arrives.
 */
@Singleton
final class FanOut {

    /** The query parameter naming the one node whose own records are asked for. */
    static final String NODE = "node";
    /** How long one node has to answer its part; a node that takes longer is named as not answered. */
    static final Duration NODE_TIMEOUT = Duration.ofSeconds(3);
    /** How long a node no longer among the members is still asked (and named when it does not answer). */
    static final Duration FORGOTTEN_AFTER = Duration.ofHours(1);

    /** Who answers a list request: the whole cluster, this node alone, or another node alone. */
    sealed interface Scope {
        /** This node's own records (one server, or {@value #NODE} naming this node). */
        record ThisNode() implements Scope {}

        /** Every node's records, merged. */
        record Cluster(List<String> others) implements Scope {}

        /** One other node's own records ({@value #NODE} naming it). */
        record OtherNode(String node) implements Scope {}
    }

    /** One node's part: its answer's body, or why there is none. */
    record Part(String node, JsonNode body, String failure) {
        boolean answered() {
            return body != null;
        }
    }

    private record Seen(String url, long atNanos) {}

    private final String self;
    private final Optional<ClusterNodes> members;
    private final Peers peers;
    private final Map<String, Seen> seen = new ConcurrentHashMap<>();

    @Inject
    FanOut(InterlaceConfig config, ClusterRoles roles, Peers peers) {
        this.self = config.advertisedUrl();
        this.members = roles.members();
        this.peers = peers;
    }

    /** This node's advertised URL, as answers name it. */
    String self() {
        return self;
    }

    /** Whether answers name the nodes they come from: this node is one of a cluster. */
    boolean clustered() {
        return members.isPresent();
    }

    /**
     * Whom {@code query} asks: the node its {@value #NODE} names (which must be a node of the cluster, or this one),
     * else the whole cluster.
     *
     * @throws Refusal {@code 400 invalid_parameter} for a node this node does not know
     */
    Scope scope(ListQuery query, String requestId) {
        String node = query.text(NODE);
        if (node == null) {
            return members.isEmpty() ? new Scope.ThisNode() : new Scope.Cluster(others());
        }
        if (WarehouseStandings.normalised(node).equals(WarehouseStandings.normalised(self))) {
            return new Scope.ThisNode();
        }
        List<String> known = others();
        for (String other : known) {
            if (WarehouseStandings.normalised(other).equals(WarehouseStandings.normalised(node))) {
                return new Scope.OtherNode(other);
            }
        }
        List<String> nodes = new ArrayList<>(List.of(self));
        nodes.addAll(known);
        throw ListQuery.invalid(NODE, "node " + node + " is not a node of this cluster; known nodes: "
                + String.join(", ", nodes), requestId);
    }

    /**
     * The other nodes to ask now: the members, and the nodes seen in the last {@link #FORGOTTEN_AFTER}; none on one
     * server.
     */
    List<String> others() {
        if (members.isEmpty()) {
            return List.of();
        }
        long now = System.nanoTime();
        for (String member : members.get().members()) {
            seen.put(WarehouseStandings.normalised(member), new Seen(member, now));
        }
        seen.values().removeIf(node -> now - node.atNanos() > FORGOTTEN_AFTER.toNanos());
        String own = WarehouseStandings.normalised(self);
        return seen.entrySet().stream().filter(node -> !node.getKey().equals(own)).map(node -> node.getValue().url())
                .sorted().toList();
    }

    /**
     * Each of {@code nodes}' own answer to {@code GET path} with {@code query} (and {@value #NODE} set to that node),
     * asked all at once as the client's caller under the client's request id; a node that cannot be reached, answers
     * anything but 200 or takes longer than {@link #NODE_TIMEOUT} is a part without a body, saying why.
     */
    List<Part> ask(List<String> nodes, String path, Map<String, String> query, HttpRequest client,
            String requestId) {
        List<CompletableFuture<Part>> asked = new ArrayList<>();
        for (String node : nodes) {
            Map<String, String> parameters = new TreeMap<>(query);
            parameters.put(NODE, node);
            StringBuilder target = new StringBuilder(path);
            parameters.forEach((name, value) -> target.append(target.indexOf("?") < 0 ? '?' : '&')
                    .append(URLEncoder.encode(name, StandardCharsets.UTF_8)).append('=')
                    .append(URLEncoder.encode(value, StandardCharsets.UTF_8)));
            Peers.Request request = new Peers.Request("GET", target.toString(), null, new byte[0], requestId,
                    client.caller().keyId(), client.caller().keyName(), null, "application/json");
            Peers.AnswerAllowance allowance = bytes -> client.reserve(bytes * InflightBytes.ANSWER_COPIES);
            asked.add(peers.sendAsync(node, request, allowance)
                    .orTimeout(NODE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                    .handle((answer, failure) -> part(node, answer, failure)));
        }
        return asked.stream().map(CompletableFuture::join).toList();
    }

    /** One other node's own list ({@code ?node=}), or {@code 503 peer_unavailable} when it does not answer. */
    HttpAnswer oneNode(String node, String path, HttpRequest request, String requestId) {
        FanOut.Part part = ask(List.of(node), path, request.query(), request, requestId).get(0);
        if (!part.answered()) {
            return HttpResponses.error(ErrorCode.PEER_UNAVAILABLE, "node " + node + " did not answer: "
                    + part.failure(), requestId).header("Retry-After", "1");
        }
        ObjectNode body = (ObjectNode) part.body();
        body.remove("request_id"); // stamped again with this request's id (the same)
        return HttpResponses.json(200, body);
    }

    private static Part part(String node, Peers.Answer answer, Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
        if (cause instanceof TimeoutException) {
            return new Part(node, null, "did not answer within " + NODE_TIMEOUT.toMillis() + " ms");
        }
        if (cause != null) {
            return new Part(node, null, cause instanceof IOException ? cause.getMessage() : cause.toString());
        }
        JsonNode body;
        try {
            body = HttpResponses.JSON.readTree(answer.body());
        } catch (IOException e) {
            return new Part(node, null, "answered " + answer.status() + " with a body that is not JSON");
        }
        if (answer.status() != 200) {
            return new Part(node, null, "answered " + answer.status() + " " + body.path("error").asText("")
                    + ": " + body.path("message").asText(""));
        }
        return new Part(node, body, null);
    }

    /**
     * Says in {@code body} which nodes answered and which did not ({@code nodes}); when one did not, the answer is
     * {@code completeness: incomplete}.
     */
    void report(ObjectNode body, List<Part> parts) {
        ObjectNode nodes = body.putObject("nodes");
        ArrayNode answered = nodes.putArray("answered");
        answered.add(self);
        ArrayNode missing = nodes.putArray("not_answered");
        for (Part part : parts) {
            if (part.answered()) {
                answered.add(part.node());
            } else {
                missing.addObject().put("node", part.node()).put("reason", part.failure());
            }
        }
        if (!missing.isEmpty()) {
            body.put("completeness", "incomplete");
        }
    }
}
