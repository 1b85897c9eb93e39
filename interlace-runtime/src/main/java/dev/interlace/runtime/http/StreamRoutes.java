package dev.interlace.runtime.http;

import dev.interlace.runtime.stream.StreamPartitions;

import dev.interlace.client.ErrorCode;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.interlace.annotations.SchemaDrift;
import dev.interlace.runtime.log.LogEntry;
import dev.interlace.runtime.log.LogUnavailableException;
import dev.interlace.runtime.log.StreamHead;
import dev.interlace.runtime.stream.StreamDescriptor;
import dev.interlace.runtime.warehouse.StreamTables;
import jakarta.inject.Inject;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/** {@code GET /streams} and {@code GET /streams/{name}}: what each stream is and where it stands. */
final class StreamRoutes implements RouteSet {

    static final int RECENT_EVENTS = 20;

    private final EventPages pages;
    private final Optional<StreamTables> warehouse;
    private final StreamPositions positions;

    @Inject
    StreamRoutes(EventPages pages, Optional<StreamTables> warehouse, StreamPositions positions) {
        this.pages = pages;
        this.warehouse = warehouse;
        this.positions = positions;
    }

    @Override
    public void register(List<Route> routes) {
        routes.add(Route.blocking("GET", "/streams", Access.READ, this::list));
        routes.add(Route.blocking("GET", "/streams/{name}", Access.READ, (request, path, requestId) ->
                pages.slots().render("the recent events of " + path.get(0), requestId,
                        () -> show(request, path, requestId))));
    }

    private HttpAnswer list(HttpRequest request, List<String> path, String requestId) throws IOException {
        ListQuery.of(request, requestId, Set.of());
        Map<String, StreamHead> heads = pages.log().heads();
        TreeSet<String> names = new TreeSet<>(heads.keySet());
        pages.catalog().streams().forEach(stream -> names.add(stream.name()));
        // A declared stream's partitions p >= 1 are listed within it (by_partition), not as streams of their own.
        names.removeIf(name -> StreamPartitions.partitionOf(name) > 0
                && pages.catalog().findLogStream(name).isPresent());
        ObjectNode body = HttpResponses.JSON.createObjectNode();
        ArrayNode streams = body.putArray("streams");
        for (String name : names) {
            streams.add(describe(name, heads.get(name)));
        }
        body.put("count", names.size());
        body.put("total", names.size());
        body.put("completeness", "store");
        return HttpResponses.json(200, body);
    }

    private HttpAnswer show(HttpRequest request, List<String> path, String requestId) throws IOException {
        String name = path.get(0);
        StreamHead head = pages.log().heads().get(name);
        if (head == null && pages.catalog().find(name).isEmpty()) {
            return HttpResponses.error(ErrorCode.UNKNOWN_STREAM, "no stream is named \"" + name
                    + "\"; GET /streams lists them", requestId);
        }
        // The newest events, newest first, one at a time (offsets are dense), each as the in-flight budget lets the
        // answer hold it: fewer, or none, when the server is busy.
        long newest = head == null ? 0 : head.head();
        long oldest = head == null ? 1 : Math.max(head.earliest(), newest - RECENT_EVENTS + 1);
        long[] bytes = {0};
        boolean[] all = {false};
        StreamedPage.Batches<LogEntry> batches = (last, budget) -> {
            List<LogEntry> batch = new ArrayList<>();
            long batchBytes = 0;
            long offset = last == null ? newest : last.offset() - 1;
            while (batchBytes < StreamedPage.BATCH_BYTES) {
                if (offset < oldest || bytes[0] >= ListQuery.PAGE_BYTES) {
                    all[0] = true;
                    break;
                }
                List<LogEntry> entry = pages.log().read(name, offset - 1, 1, ListQuery.PAGE_BYTES, budget);
                if (entry.isEmpty() || entry.get(0).offset() != offset) { // refused, or trimmed by retention meanwhile
                    all[0] = true;
                    break;
                }
                batch.add(entry.get(0));
                batchBytes += entry.get(0).payload().length;
                bytes[0] += entry.get(0).payload().length;
                offset--;
            }
            return batch;
        };
        AnswerBudget budget = new AnswerBudget(request, InflightBytes.STREAMED_COPIES);
        List<LogEntry> first;
        String unavailable = null;
        try {
            first = batches.next(null, budget);
        } catch (LogUnavailableException e) {
            // What this node knows of the stream is still worth answering; only the events could not be read.
            first = List.of();
            unavailable = e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted reading " + name, e);
        }
        if (first.isEmpty() && budget.refused()) {
            throw AnswerBudget.overloaded("the recent events of " + name, requestId);
        }
        String recentUnavailable = unavailable;
        StreamedPage.Batches<LogEntry> rest = (last, next) -> pages.slots().run("read the recent events of " + name,
                requestId, () -> batches.next(last, next));
        boolean firstIsAll = recentUnavailable != null
                || all[0] && StreamedPage.payloadBytes(first, StreamedPage.LOG_ENTRIES) < StreamedPage.BATCH_BYTES;
        return new StreamedPage<>(request, describe(name, head), "recent", StreamedPage.LOG_ENTRIES, first,
                firstIsAll,
                budget,
                recentUnavailable == null ? rest : (last, next) -> List.of(),
                (count, last) -> HttpResponses.JSON.createObjectNode().put("recent_unavailable", recentUnavailable),
                pages.workers().executor()).answer();
    }

    private ObjectNode describe(String name, StreamHead head) {
        Optional<StreamDescriptor> declared = pages.catalog().find(name);
        ObjectNode node = HttpResponses.JSON.createObjectNode();
        node.put("name", name);
        node.put("table", "streams." + name);
        if (declared.isPresent()) {
            declared.get().describeInto(node);
            if (declared.get().onSchemaDrift() == SchemaDrift.EVOLVE) {
                ObjectNode schema = (ObjectNode) node.get("schema");
                ArrayNode evolved = node.putArray("evolved_columns");
                warehouse.ifPresent(w -> w.evolvedColumns(name).forEach((column, type) -> {
                    schema.put(column, type);
                    evolved.add(column);
                }));
            }
        } else {
            node.set("schema", (JsonNode) null);
            node.putNull("idempotency_key");
            node.putNull("retention");
            node.putNull("retention_ms");
            node.putNull("on_schema_drift");
            node.putNull("schema_version");
            node.putNull("partitions");
            node.putNull("partition_key");
        }
        positions.putInto(node, name, head);
        if (declared.isPresent() && declared.get().partitioned()) {
            // The fields above are partition 0's; each partition's, partition 0's included, are listed here.
            ArrayNode partitions = node.putArray("by_partition");
            Map<String, StreamHead> heads = pages.log().heads();
            for (StreamDescriptor partition : declared.get().logStreams()) {
                ObjectNode item = partitions.addObject();
                item.put("partition", partition.partition());
                item.put("log_stream", partition.name());
                positions.putInto(item, partition.name(), heads.get(partition.name()));
            }
        }
        return node;
    }
}
