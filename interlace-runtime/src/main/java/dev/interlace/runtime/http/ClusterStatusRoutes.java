package dev.interlace.runtime.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.interlace.runtime.cluster.WarehouseNode;
import dev.interlace.runtime.config.InterlaceConfig;
import dev.interlace.runtime.config.Role;
import dev.interlace.runtime.log.EventLog;
import dev.interlace.runtime.log.StreamHead;
import jakarta.inject.Inject;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code GET /cluster} (admin): the nodes of the cluster as this node reads them from the log (its members: the
 * streams' sequencers, the nodes that take publishes with no stream assigned, the warehouses' flushers), their roles, and every warehouse with how far behind each stream's head it is. On the
 * SQLite log: this node and its one warehouse.
 */
final class ClusterStatusRoutes implements RouteSet {

    private final InterlaceConfig config;
    private final EventLog log;
    private final ClusterRoles roles;
    private final WarehouseStandings standings;

    @Inject
    ClusterStatusRoutes(InterlaceConfig config, EventLog log, ClusterRoles roles, WarehouseStandings standings) {
        this.config = config;
        this.log = log;
        this.roles = roles;
        this.standings = standings;
    }

    @Override
    public void register(List<Route> routes) {
        routes.add(Route.blocking("GET", "/cluster", Access.ADMIN, (request, path, requestId) -> cluster(self(request))));
    }

    /**
     * This node's URL: the advertised one, which the log names it by; on a server listening on an ephemeral port
     * (never a node of a cluster, which needs a port of its own) the one the request came to.
     */
    private String self(HttpRequest request) {
        String host = request.header("Host");
        if (config.port() != 0 || host == null) {
            return config.advertisedUrl();
        }
        return (config.exposure().tls() ? "https://" : "http://") + host;
    }

    private HttpAnswer cluster(String self) {
        Map<String, StreamHead> heads = new TreeMap<>(log.heads());
        List<WarehouseNode.Replica> replicas = standings.replicas(self);
        // Every node the log names, with what it was seen doing: sequencing streams, flushing a warehouse.
        Map<String, ObjectNode> nodes = new LinkedHashMap<>();
        node(nodes, self).put("role", config.role().wire()).put("self", true);
        ObjectNode body = HttpResponses.JSON.createObjectNode().put("log", config.log().backend());
        ArrayNode nodeList = body.putArray("nodes");
        ObjectNode streams = body.putObject("streams");
        for (StreamHead head : heads.values()) {
            ObjectNode stream = streams.putObject(head.stream()).put("head", head.head());
            String sequencer = roles.sequencers().isPresent()
                    ? roles.sequencers().get().holder(head.stream()).orElse(null) : self;
            stream.put("sequencer", sequencer);
            if (sequencer != null) {
                ((ArrayNode) node(nodes, sequencer).withArray("sequences")).add(head.stream());
            }
        }
        ArrayNode warehouseList = body.putArray("replicas");
        for (WarehouseNode.Replica replica : replicas) {
            ObjectNode entry = warehouseList.addObject();
            entry.put("replica", replica.id() == null ? "shared" : replica.id());
            entry.put("node", replica.node());
            entry.put("live", replica.live());
            entry.put("dropped", replica.dropped());
            if (replica.seenMicros() > 0) {
                entry.put("seen_until", HttpResponses.time(replica.seenMicros()));
            } else {
                entry.putNull("seen_until");
            }
            ObjectNode lags = entry.putObject("streams");
            for (StreamHead head : heads.values()) {
                long watermark = replica.watermarks().getOrDefault(head.stream(), 0L);
                lags.putObject(head.stream()).put("watermark", watermark)
                        .put("lag", Math.max(0, head.head() - watermark));
            }
            if (replica.live() && replica.node() != null) {
                ObjectNode holder = node(nodes, replica.node());
                holder.put("replica", replica.id() == null ? "shared" : replica.id());
                if (!holder.has("role")) {
                    holder.put("role", replica.id() == null ? Role.ALL.wire() : Role.WAREHOUSE.wire());
                }
            }
        }
        // The members seen doing neither (a node that takes publishes while no stream is assigned to it).
        roles.members().ifPresent(cluster -> cluster.members().forEach(member -> node(nodes, member)));
        nodes.values().forEach(node -> {
            if (!node.has("role")) {
                node.put("role", Role.INGEST.wire()); // a member of the cluster seen sequencing, or nothing
            }
            nodeList.add(node);
        });
        return HttpResponses.json(200, body);
    }

    private static ObjectNode node(Map<String, ObjectNode> nodes, String url) {
        return nodes.computeIfAbsent(WarehouseStandings.normalised(url), key -> {
            ObjectNode node = HttpResponses.JSON.createObjectNode().put("url", url);
            node.putArray("sequences");
            return node;
        });
    }
}
