package dev.interlace.runtime.http;

import dev.interlace.client.ErrorCode;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.interlace.runtime.config.InterlaceConfig;
import dev.interlace.runtime.log.PublishRecord;
import dev.interlace.runtime.status.Correlator;
import dev.interlace.runtime.status.Correlator.Correlation;
import dev.interlace.runtime.ops.TraceParent;
import dev.interlace.runtime.log.QuarantineEntry;
import dev.interlace.runtime.log.PublishRecords;
import dev.interlace.runtime.warehouse.RunRecord;
import dev.interlace.runtime.records.ApiRecord;
import dev.interlace.runtime.records.RefusedRequests;
import dev.interlace.runtime.records.SysEvent;
import dev.interlace.runtime.records.SysRecord;
import dev.interlace.runtime.records.SystemRecords;
import dev.interlace.runtime.stream.StoredJson;
import jakarta.inject.Inject;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * "Where is my event?" ({@code GET /correlate}) and the record lists {@code GET /logs/api} and {@code GET /logs/sys}
 * (docs/operations.md, "Where is my event?"). Every list reports {@code count}, {@code total} and
 * {@code completeness}: {@code store} when it comes from durable records (complete within the record retention),
 * {@code ring} when any of it comes from the in-memory ring of refused requests (only since start-up, oldest dropped
 * when full). What {@code /correlate} finds is the {@link Correlator}'s; this class only renders it.
 *
 * <p>In a cluster each node keeps its own system records and refused requests (the publish records are the cluster's,
 * copied on every node): the lists and {@code /correlate} ask the other nodes for theirs ({@link FanOut}) and merge
 * them, naming each item's node and the nodes that did not answer; {@code ?node=} asks one node only.
 */
final class RecordRoutes implements RouteSet {

    private static final Set<String> CORRELATE_FILTERS = Set.of("request_id", "stream", "key", "trace_id");
    private static final Set<String> API_FILTERS = Set.of("stream", "status", "request_id", "since", "until",
            "limit", "source", FanOut.NODE);
    private static final Set<String> SYS_FILTERS = Set.of("event", "stream", "id", "since", "until", "limit",
            FanOut.NODE);

    private final Correlator correlator;
    private final PublishRecords publishRecords;
    private final SystemRecords system;
    private final RefusedRequests refused;
    private final FanOut fanOut;
    /** How long records are kept, as answers say it: {@code 7d}, {@code 12h}, {@code 90s} or {@code off}. */
    private final String retention;

    @Inject
    RecordRoutes(Correlator correlator, PublishRecords publishRecords, SystemRecords system, RefusedRequests refused,
            InterlaceConfig config, FanOut fanOut) {
        this.fanOut = fanOut;
        this.correlator = correlator;
        this.publishRecords = publishRecords;
        this.system = system;
        this.refused = refused;
        this.retention = retentionText(config.recordRetentionMicros());
    }

    @Override
    public void register(List<Route> routes) {
        routes.add(Route.blocking("GET", "/correlate", Access.READ, this::correlate)
                .placedOn(Route.Placement.WAREHOUSE));
        routes.add(Route.blocking("GET", "/logs/api", Access.READ, this::apiLog));
        routes.add(Route.blocking("GET", "/logs/sys", Access.READ, this::sysLog));
    }

    // ---------------------------------------------------------------------------------------------- /correlate

    private HttpAnswer correlate(HttpRequest request, List<String> path, String requestId) throws IOException {
        ListQuery query = ListQuery.of(request, requestId, CORRELATE_FILTERS);
        Correlation correlation;
        if (query.has("request_id")) {
            correlation = correlator.byRequestId(query.text("request_id"));
        } else if (query.has("stream") && query.has("key")) {
            correlation = correlator.byKey(query.text("stream"), query.text("key"));
        } else if (query.has("trace_id")) {
            String traceId = query.text("trace_id");
            if (!TraceParent.isTraceId(traceId)) {
                throw ListQuery.invalid("trace_id", "a trace id is 32 lowercase hex digits, not all zeros (the second"
                        + " field of a traceparent header)", requestId);
            }
            correlation = correlator.byTraceId(traceId);
        } else {
            throw ListQuery.invalid("give ?request_id=<id>, ?stream=<name>&key=<idempotency key> for an event's"
                    + " key, or ?trace_id=<W3C trace id>", requestId);
        }
        if (correlation instanceof Correlator.UnknownTrace unknown) {
            return HttpResponses.error(ErrorCode.UNKNOWN_TRACE, "no publish record kept (" + retention
                    + ") has trace id " + unknown.traceId(), requestId);
        }
        Optional<Correlator.Traced> traced = Optional.empty();
        if (correlation instanceof Correlator.Traced trace) {
            traced = Optional.of(trace);
            correlation = trace.newest();
        }
        String correlated = correlation instanceof Correlator.Stored stored ? stored.requestId()
                : correlation instanceof Correlator.Refused only ? only.requestId()
                : correlation instanceof Correlator.UnknownRequest unknown ? unknown.requestId() : null;
        // The other nodes' refused requests with this id (the publish records are every node's already).
        List<String> others = correlated == null ? List.of() : fanOut.others();
        List<FanOut.Part> parts = others.isEmpty() ? List.of() : fanOut.ask(others, "/logs/api",
                Map.of("request_id", correlated, "source", "ring", "limit", "10"), request, requestId);
        List<ObjectNode> elsewhere = MergedRecords.items(parts, "requests");
        if (correlation instanceof Correlator.UnknownStream unknown) {
            return HttpResponses.error(ErrorCode.UNKNOWN_STREAM, "no stream named " + unknown.stream(), requestId);
        }
        if (correlation instanceof Correlator.NoIdempotencyKey none) {
            return HttpResponses.error(ErrorCode.NO_IDEMPOTENCY_KEY, "stream " + none.stream()
                    + " has no idempotency key", requestId);
        }
        if (correlation instanceof Correlator.InvalidKey invalid) {
            return HttpResponses.error(ErrorCode.INVALID_KEY, invalid.message(), requestId);
        }
        if (correlation instanceof Correlator.UnknownKey unknown) {
            return HttpResponses.error(ErrorCode.UNKNOWN_KEY, "no stored event of " + unknown.stream() + " has key "
                    + unknown.canonicalKey() + " (events trimmed by the retention sweep are no longer in the log)",
                    requestId);
        }
        if (correlation instanceof Correlator.UnknownRequest unknown && elsewhere.isEmpty()) {
            List<String> silent = parts.stream().filter(part -> !part.answered()).map(FanOut.Part::node).toList();
            return HttpResponses.error(ErrorCode.UNKNOWN_REQUEST, "nothing is recorded for request "
                    + unknown.requestId() + ": no publish record (kept " + retention + ") and not among the"
                    + " refused requests kept in memory since " + HttpResponses.time(refused.since()) + " ("
                    + refused.capacity() + " at most)" + (parts.isEmpty() ? "" : " on any node that answered")
                    + (silent.isEmpty() ? "" : "; not answered: " + String.join(", ", silent) + ", which may hold"
                    + " it"), requestId);
        }
        ObjectNode body;
        if (correlation instanceof Correlator.UnknownRequest unknown) {
            body = refusedBody(unknown.requestId(), Optional.empty(), elsewhere.get(0));
        } else if (correlation instanceof Correlator.Refused only) {
            body = refusedBody(only.requestId(), only.key(), apiItem(only.refusal()));
        } else {
            body = storedBody((Correlator.Stored) correlation);
            if (!body.has("refused") && !elsewhere.isEmpty()) {
                body.set("refused", elsewhere.get(0));
            }
        }
        if (!parts.isEmpty()) {
            fanOut.report(body, parts);
        }
        if (correlation instanceof Correlator.Refused || correlation instanceof Correlator.UnknownRequest) {
            return HttpResponses.json(200, body);
        }
        traced.ifPresent(trace -> {
            ObjectNode section = body.putObject("trace");
            section.put("trace_id", trace.traceId());
            section(section, trace.requests(), RecordRoutes::publishItem);
        });
        return HttpResponses.json(200, body);
    }

    private ObjectNode correlationHead(String requestId, Optional<Correlator.KeyMatch> key) {
        ObjectNode body = HttpResponses.JSON.createObjectNode();
        body.put("request_id", requestId);
        key.ifPresent(match -> {
            ObjectNode section = body.putObject("key");
            section.put("stream", match.stream());
            section.put("key", match.canonicalKey());
            section.put("offset", match.offset());
            section.put("request_id", match.requestId());
        });
        return body;
    }

    /** A refused request: nothing of it was stored. */
    private ObjectNode refusedBody(String requestId, Optional<Correlator.KeyMatch> key, ObjectNode refusal) {
        ObjectNode body = correlationHead(requestId, key);
        body.putNull("publish");
        body.set("refused", refusal);
        body.put("completeness", "ring");
        ringDetails(body);
        return body;
    }

    private ObjectNode storedBody(Correlator.Stored stored) {
        ObjectNode body = correlationHead(stored.requestId(), stored.key());
        body.set("publish", publishItem(stored.publish()));
        section(body.putObject("publishes"), stored.publishes(), RecordRoutes::publishItem);
        stored.refusal().ifPresent(refusal -> body.set("refused", apiItem(refusal)));

        // What Interlace-After takes to wait for the request's events, as the publish answered it.
        body.put("position", stored.position());
        Correlator.Events found = stored.events();
        ObjectNode events = body.putObject("events");
        RecordItems.events(events, found);

        Correlator.Deduplicated deduplicated = stored.deduplicated();
        ObjectNode duplicates = body.putObject("deduplicated");
        duplicates.put("count", deduplicated.count());
        ArrayNode originals = duplicates.putArray("first_written_by");
        deduplicated.firstWrittenBy().forEach((original, offsets) -> {
            ObjectNode item = originals.addObject();
            item.put("request_id", original);
            ArrayNode list = item.putArray("offsets");
            offsets.forEach(list::add);
        });
        ArrayNode trimmedList = duplicates.putArray("trimmed_offsets");
        deduplicated.trimmedOffsets().forEach(trimmedList::add);
        // The originals of trimmed offsets are no longer in the log: the list is only complete without them.
        duplicates.put("completeness", deduplicated.complete() ? "store" : "partial");

        section(body.putObject("flushes"), stored.flushes(), RecordItems::flush);
        section(body.putObject("runs"), stored.runs(), RecordRoutes::runItem);
        section(body.putObject("quarantine"), stored.quarantine(), RecordRoutes::quarantineItem);
        section(body.putObject("replayed_from"), stored.replayedFrom(), RecordRoutes::replayedItem);

        ObjectNode counts = body.putObject("counts");
        ObjectNode totals = body.putObject("totals");
        for (String name : List.of("flushes", "runs", "quarantine", "replayed_from")) {
            counts.put(name, body.get(name).get("count").asLong());
            totals.put(name, body.get(name).get("total").asLong());
        }
        body.put("completeness", "store");
        return body;
    }

    // ------------------------------------------------------------------------------------------------ /logs/api

    private HttpAnswer apiLog(HttpRequest request, List<String> path, String requestId) throws IOException {
        ListQuery query = ListQuery.of(request, requestId, API_FILTERS);
        ApiRecord.Filter filter = new ApiRecord.Filter(query.text("stream"), query.status("status"),
                query.text("request_id"), query.time("since"), query.time("until"), query.limit());
        String source = query.oneOf("source", List.of("store", "ring"));
        boolean fromStore = (filter.status() == null || filter.status() == 200) && !"ring".equals(source);
        boolean fromRing = (filter.status() == null || filter.status() >= 400) && !"store".equals(source);
        FanOut.Scope scope = fanOut.scope(query, requestId);
        if (scope instanceof FanOut.Scope.OtherNode other) {
            return fanOut.oneNode(other.node(), "/logs/api", request, requestId);
        }
        List<ObjectNode> items = new ArrayList<>();
        List<Long> times = new ArrayList<>();
        long total = 0;
        if (fromStore) {
            PublishRecord.Page page = publishRecords.publishes(new PublishRecord.Filter(filter.stream(),
                    filter.requestId(), filter.sinceMicros(), filter.untilMicros(), filter.limit()));
            for (PublishRecord record : page.records()) {
                items.add(publishItem(record));
                times.add(record.receivedAtMicros());
            }
            total += page.total();
        }
        if (fromRing) {
            RefusedRequests.Page page = refused.list(filter);
            for (ApiRecord record : page.records()) {
                items.add(apiItem(record));
                times.add(record.receivedAtMicros());
            }
            total += page.total();
        }
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < items.size(); i++) {
            order.add(i);
        }
        order.sort(Comparator.comparing((Integer i) -> times.get(i)).reversed());
        ObjectNode body = HttpResponses.JSON.createObjectNode();
        ArrayNode requests = body.putArray("requests");
        for (int i = 0; i < Math.min(order.size(), filter.limit()); i++) {
            requests.add(items.get(order.get(i)));
        }
        body.put("count", requests.size());
        body.put("total", total);
        body.put("completeness", fromRing ? "ring" : "store");
        if (fromRing) {
            ringDetails(body);
        }
        body.put("record_retention", retention);
        if (scope instanceof FanOut.Scope.Cluster cluster && fromRing) {
            // The publish records are the cluster's already: the other nodes are asked for their rings only.
            List<FanOut.Part> parts = fanOut.ask(cluster.others(), "/logs/api", withParameter(request, "source",
                    "ring"), request, requestId);
            MergedRecords.merge(body, "requests", "received_at", parts, filter.limit());
            fanOut.report(body, parts);
        }
        return HttpResponses.json(200, body);
    }

    // ------------------------------------------------------------------------------------------------ /logs/sys

    private HttpAnswer sysLog(HttpRequest request, List<String> path, String requestId) throws IOException {
        ListQuery query = ListQuery.of(request, requestId, SYS_FILTERS);
        SysRecord.Filter filter = new SysRecord.Filter(query.oneOf("event", SysEvent.wireNames()), query.text("stream"),
                query.text("id"),
                query.time("since"), query.time("until"), query.limit());
        FanOut.Scope scope = fanOut.scope(query, requestId);
        if (scope instanceof FanOut.Scope.OtherNode other) {
            return fanOut.oneNode(other.node(), "/logs/sys", request, requestId);
        }
        SysRecord.Page page = system.list(filter);
        ObjectNode body = HttpResponses.JSON.createObjectNode();
        ArrayNode records = body.putArray("records");
        for (SysRecord record : page.records()) {
            ObjectNode item = records.addObject();
            item.put("seq", record.seq());
            item.put("at", HttpResponses.time(record.atMicros()));
            item.put("event", record.event());
            item.put("stream", record.stream());
            item.put("id", record.id());
            item.put("message", record.message());
            if (fanOut.clustered()) {
                item.put("node", fanOut.self());
            }
        }
        body.put("count", page.records().size());
        body.put("total", page.total());
        body.put("completeness", "store");
        body.put("record_retention", retention);
        if (scope instanceof FanOut.Scope.Cluster cluster) {
            List<FanOut.Part> parts = fanOut.ask(cluster.others(), "/logs/sys", request.query(), request, requestId);
            MergedRecords.merge(body, "records", "at", parts, filter.limit());
            fanOut.report(body, parts);
        }
        return HttpResponses.json(200, body);
    }

    private static Map<String, String> withParameter(HttpRequest request, String name, String value) {
        Map<String, String> query = new TreeMap<>(request.query());
        query.put(name, value);
        return query;
    }

    // ---------------------------------------------------------------------------------------------- rendering

    private static ObjectNode publishItem(PublishRecord record) {
        ObjectNode item = HttpResponses.JSON.createObjectNode();
        item.put("source", "store");
        item.put("request_id", record.requestId());
        item.put("method", "POST");
        item.put("path", "/streams/" + record.stream());
        item.put("stream", record.stream());
        item.put("status", 200);
        item.put("accepted", record.accepted());
        item.put("deduplicated", record.deduplicated());
        item.put("quarantined", record.quarantined());
        if (record.accepted() > 0) {
            item.put("first_offset", record.firstOffset());
            item.put("last_offset", record.lastOffset());
        } else {
            item.putNull("first_offset");
            item.putNull("last_offset");
        }
        item.put("received_at", HttpResponses.time(record.receivedAtMicros()));
        item.put("committed_at", HttpResponses.time(record.committedAtMicros()));
        item.put("duration_ms", (record.committedAtMicros() - record.receivedAtMicros()) / 1000.0);
        putKey(item, record.keyId(), record.keyName());
        if (record.traceId() != null) {
            item.put("trace_id", record.traceId());
        }
        return item;
    }

    /** The key a request was made with, {@code {"id", "name"}}, or null: never its secret. */
    static void putKey(ObjectNode item, String keyId, String keyName) {
        if (keyId == null) {
            item.putNull("key");
        } else {
            item.putObject("key").put("id", keyId).put("name", keyName);
        }
    }

    private ObjectNode apiItem(ApiRecord record) {
        ObjectNode item = HttpResponses.JSON.createObjectNode();
        item.put("source", record.source());
        item.put("request_id", record.requestId());
        item.put("method", record.method());
        item.put("path", record.path());
        item.put("stream", record.stream());
        item.put("status", record.status());
        item.put("error", record.error());
        item.put("message", record.message());
        item.put("received_at", HttpResponses.time(record.receivedAtMicros()));
        item.put("duration_ms", record.durationMicros() / 1000.0);
        putKey(item, record.keyId(), record.keyName());
        if (record.servedBy() != null) {
            item.put("served_by", record.servedBy());
        }
        if (fanOut.clustered()) {
            item.put("node", fanOut.self());
        }
        return item;
    }

    private static ObjectNode runItem(Correlator.TriggeredRun triggered) {
        RunRecord run = triggered.run();
        ObjectNode item = HttpResponses.JSON.createObjectNode();
        item.put("run_id", run.id());
        item.put("trigger", run.trigger().toString());
        item.put("status", run.status().wire());
        item.put("queued_at", HttpResponses.time(run.queuedAtMicros()));
        item.put("triggered_by", triggered.triggeredBy());
        HttpResponses.putTraces(item, run.traces());
        return item;
    }

    private static ObjectNode quarantineItem(QuarantineEntry entry) {
        ObjectNode item = HttpResponses.JSON.createObjectNode();
        item.put("seq", entry.seq());
        item.set("event", StoredJson.value(entry.payload()));
        item.set("errors", StoredJson.value(entry.errorsJson()));
        item.put("ingested_at", HttpResponses.time(entry.ingestedAtMicros()));
        RecordItems.replay(item, entry);
        return item;
    }

    /** A quarantine entry replayed by the request: where it came from. */
    private static ObjectNode replayedItem(QuarantineEntry entry) {
        ObjectNode item = HttpResponses.JSON.createObjectNode();
        item.put("seq", entry.seq());
        item.put("request_id", entry.requestId());
        item.put("received_at", HttpResponses.time(entry.ingestedAtMicros()));
        RecordItems.replay(item, entry);
        return item;
    }

    /** A section of a stored correlation: its items as {@code render} shows them, their count and total. */
    private static <T> void section(ObjectNode section, Correlator.Section<T> items,
            Function<? super T, ? extends JsonNode> render) {
        ArrayNode list = section.putArray("items");
        items.items().forEach(item -> list.add(render.apply(item)));
        section.put("count", items.count());
        section.put("total", items.total());
        section.put("completeness", "store");
    }

    private void ringDetails(ObjectNode body) {
        ObjectNode ring = body.putObject("ring");
        ring.put("since", HttpResponses.time(refused.since()));
        ring.put("capacity", refused.capacity());
        ring.put("dropped", refused.dropped());
    }

    private static String retentionText(long micros) {
        if (micros == 0) {
            return "off";
        }
        long seconds = micros / 1_000_000L;
        return seconds % 86_400 == 0 ? seconds / 86_400 + "d" : seconds % 3_600 == 0 ? seconds / 3_600 + "h"
                : seconds + "s";
    }
}
