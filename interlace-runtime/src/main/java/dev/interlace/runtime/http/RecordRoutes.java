package dev.interlace.runtime.http;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.interlace.runtime.config.InterlaceConfig;
import dev.interlace.runtime.flush.FlushRecord;
import dev.interlace.runtime.flush.Warehouse;
import dev.interlace.runtime.log.LogEntry;
import dev.interlace.runtime.log.PublishRecord;
import dev.interlace.runtime.log.QuarantineEntry;
import dev.interlace.runtime.log.EventLog;
import dev.interlace.runtime.log.PublishRecords;
import dev.interlace.runtime.log.Watermarks;
import dev.interlace.runtime.model.ModelRunner;
import dev.interlace.runtime.model.RunRecord;
import dev.interlace.runtime.records.ApiRecord;
import dev.interlace.runtime.records.RefusedRequests;
import dev.interlace.runtime.records.SysRecord;
import dev.interlace.runtime.records.SystemRecords;
import dev.interlace.runtime.stream.Column;
import dev.interlace.runtime.stream.FieldErrors;
import dev.interlace.runtime.stream.StreamCatalog;
import dev.interlace.runtime.stream.StoredJson;
import dev.interlace.runtime.stream.StreamDescriptor;
import dev.interlace.runtime.stream.Values;
import jakarta.inject.Inject;
import java.io.IOException;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * "Where is my event?" ({@code GET /correlate}) and the record lists {@code GET /logs/api} and {@code GET /logs/sys}
 * (docs/operations.md, "Where is my event?"). Every list reports {@code count}, {@code total} and
 * {@code completeness}: {@code store} when it comes from durable records (complete within the record retention),
 * {@code ring} when any of it comes from the in-memory ring of refused requests (only since start-up, oldest dropped
 * when full).
 */
final class RecordRoutes {

    static final int DEFAULT_LIMIT = 100;
    static final int MAX_LIMIT = 1000;
    /** Most items listed per section of a correlation; {@code total} says how many there are. */
    static final int SECTION_LIMIT = 100;

    private final StreamCatalog catalog;
    private final EventLog log;
    private final PublishRecords publishRecords;
    private final Watermarks watermarks;
    private final Optional<Warehouse> warehouse;
    private final Optional<ModelRunner> runner;
    private final SystemRecords system;
    private final RefusedRequests refused;
    private final InterlaceConfig config;

    @Inject
    RecordRoutes(StreamCatalog catalog, EventLog log, PublishRecords publishRecords, Watermarks watermarks,
            Optional<Warehouse> warehouse, Optional<ModelRunner> runner, SystemRecords system, RefusedRequests refused,
            InterlaceConfig config) {
        this.catalog = catalog;
        this.log = log;
        this.publishRecords = publishRecords;
        this.watermarks = watermarks;
        this.warehouse = warehouse;
        this.runner = runner;
        this.system = system;
        this.refused = refused;
        this.config = config;
    }

    void register(List<Route> routes) {
        routes.add(Route.blocking("GET", "/correlate", Access.READ, this::correlate));
        routes.add(Route.blocking("GET", "/logs/api", Access.READ, this::apiLog));
        routes.add(Route.blocking("GET", "/logs/sys", Access.READ, this::sysLog));
    }

    // ---------------------------------------------------------------------------------------------- /correlate

    private HttpAnswer correlate(HttpRequest request, List<String> path, String requestId) throws IOException {
        Map<String, String> query = request.query();
        String unknown = unknownParameter(query, Set.of("request_id", "stream", "key"));
        if (unknown != null) {
            return HttpResponses.error(400, "invalid_filter", unknown, requestId);
        }
        String wanted = query.get("request_id");
        ObjectNode keySection = null;
        if (wanted == null) {
            String streamName = query.get("stream");
            String key = query.get("key");
            if (streamName == null || key == null) {
                return HttpResponses.error(400, "invalid_filter", "give ?request_id=<id>, or ?stream=<name>&key="
                        + "<idempotency key> for an event's key", requestId);
            }
            Optional<StreamDescriptor> stream = catalog.find(streamName);
            if (stream.isEmpty() || stream.get().idempotencyKey() == null) {
                return HttpResponses.error(stream.isEmpty() ? 404 : 400, stream.isEmpty() ? "unknown_stream"
                        : "no_idempotency_key", stream.isEmpty() ? "no stream named " + streamName
                        : "stream " + streamName + " has no idempotency key", requestId);
            }
            String canonical;
            try {
                canonical = canonicalKey(stream.get(), key);
            } catch (IllegalArgumentException e) {
                return HttpResponses.error(400, "invalid_key", e.getMessage(), requestId);
            }
            long offset = log.offsetOfKey(streamName, canonical);
            List<LogEntry> entries = offset == 0 ? List.of() : readQuietly(streamName, offset - 1, 1);
            if (entries.isEmpty()) {
                return HttpResponses.error(404, "unknown_key", "no stored event of " + streamName + " has key "
                        + canonical + " (events trimmed by the retention sweep are no longer in the log)",
                        requestId);
            }
            wanted = entries.get(0).requestId();
            keySection = HttpResponses.JSON.createObjectNode();
            keySection.put("stream", streamName);
            keySection.put("key", canonical);
            keySection.put("offset", offset);
            keySection.put("request_id", wanted);
        }

        PublishRecord.Page publishes = publishRecords.publishes(new PublishRecord.Filter(null, wanted, null, null,
                SECTION_LIMIT));
        RefusedRequests.Page refusals = refused.list(new ApiRecord.Filter(null, null, wanted, null, null, 10));
        if (publishes.records().isEmpty() && refusals.records().isEmpty()) {
            return HttpResponses.error(404, "unknown_request", "nothing is recorded for request " + wanted
                    + ": no publish record (kept " + retentionText() + ") and not among the refused requests kept"
                    + " in memory since " + HttpResponses.time(refused.since()) + " (" + refused.capacity()
                    + " at most)", requestId);
        }
        ObjectNode body = HttpResponses.JSON.createObjectNode();
        body.put("request_id", wanted);
        if (keySection != null) {
            body.set("key", keySection);
        }
        if (publishes.records().isEmpty()) {
            // Only refused: nothing of it was stored.
            ApiRecord refusal = refusals.records().get(0);
            body.putNull("publish");
            body.set("refused", apiItem(refusal));
            body.put("completeness", "ring");
            ringDetails(body);
            return HttpResponses.json(200, body);
        }
        // A client may reuse a request id (a retry with the same X-Request-Id, or another stream): every record is
        // listed; the story below follows the first one.
        PublishRecord publish = publishes.records().get(publishes.records().size() - 1);
        body.set("publish", publishItem(publish));
        ObjectNode allPublishes = body.putObject("publishes");
        ArrayNode publishItems = allPublishes.putArray("items");
        publishes.records().forEach(record -> publishItems.add(publishItem(record)));
        section(allPublishes, publishes.records().size(), publishes.total());
        if (!refusals.records().isEmpty()) {
            body.set("refused", apiItem(refusals.records().get(0)));
        }
        String stream = publish.stream();

        // Events: the accepted ones, and for duplicates the events (and requests) that first carried their keys.
        ObjectNode events = body.putObject("events");
        events.put("stream", stream);
        if (publish.accepted() > 0) {
            events.put("first_offset", publish.firstOffset());
            events.put("last_offset", publish.lastOffset());
        } else {
            events.putNull("first_offset");
            events.putNull("last_offset");
        }
        events.put("count", publish.accepted());
        long watermark = watermarks.events(stream);
        long materialised = publish.accepted() == 0 ? 0
                : Math.max(0, Math.min(watermark, publish.lastOffset()) - publish.firstOffset() + 1);
        events.put("materialised", materialised);
        events.put("pending", publish.accepted() - materialised);
        ObjectNode duplicates = body.putObject("deduplicated");
        duplicates.put("count", publish.deduplicated());
        ArrayNode originals = duplicates.putArray("first_written_by");
        Map<String, TreeSet<Long>> byRequest = new LinkedHashMap<>();
        TreeSet<Long> trimmed = originalRequests(stream, publish.duplicateOffsets(), byRequest);
        byRequest.forEach((original, offsets) -> {
            ObjectNode item = originals.addObject();
            item.put("request_id", original);
            ArrayNode list = item.putArray("offsets");
            offsets.forEach(list::add);
        });
        ArrayNode trimmedList = duplicates.putArray("trimmed_offsets");
        trimmed.forEach(trimmedList::add);
        // The originals of trimmed offsets are no longer in the log: the list is only complete without them.
        duplicates.put("completeness", trimmed.isEmpty() ? "store" : "partial");

        // Flushes covering the request's offsets (its own and, for duplicates, the originals'), one contiguous run of
        // offsets at a time so that far-apart originals do not pull in every flush between them.
        List<long[]> ranges = ranges(publish.duplicateOffsets());
        if (publish.accepted() > 0) {
            ranges.add(new long[] {publish.firstOffset(), publish.lastOffset()});
        }
        Map<String, FlushRecord> flushById = new LinkedHashMap<>();
        long flushTotal = 0;
        if (warehouse.isPresent()) {
            for (long[] range : ranges) {
                flushTotal += collect(flushById, warehouse.get().flushes(new FlushRecord.Filter(stream, "events",
                        range[0], range[1], SECTION_LIMIT)));
            }
            if (publish.quarantined() > 0) {
                flushTotal += collect(flushById, warehouse.get().flushes(new FlushRecord.Filter(stream, "quarantine",
                        publish.firstSeq(), publish.lastSeq(), SECTION_LIMIT)));
            }
        }
        List<FlushRecord> flushList = new ArrayList<>(flushById.values());
        flushList.sort(Comparator.comparingLong(FlushRecord::startedAtMicros));
        if (flushList.size() > SECTION_LIMIT) {
            flushList = new ArrayList<>(flushList.subList(0, SECTION_LIMIT));
        }
        ObjectNode flushes = body.putObject("flushes");
        ArrayNode flushItems = flushes.putArray("items");
        flushList.forEach(flush -> flushItems.add(flushItem(flush)));
        section(flushes, flushList.size(), flushTotal);

        // Model runs triggered by those flushes (a run's trigger stream:<name>:<offset> names the flush's last offset).
        List<RunRecord> runList = new ArrayList<>();
        Set<String> seen = new java.util.HashSet<>();
        long runTotal = 0;
        if (runner.isPresent()) {
            for (FlushRecord flush : flushList) {
                if (!flush.target().equals("events") || flush.committedAtMicros() == 0) {
                    continue;
                }
                ModelRunner.RunPage page = runner.get().runs(new ModelRunner.RunFilter(null, null,
                        "stream:" + stream + ":" + flush.lastOffset(), null, null, SECTION_LIMIT));
                for (RunRecord run : page.runs()) {
                    if (seen.add(run.id())) {
                        runList.add(run);
                        runTotal++;
                    }
                }
            }
        }
        runList.sort(Comparator.comparingLong(RunRecord::queuedAtMicros));
        ObjectNode runs = body.putObject("runs");
        ArrayNode runItems = runs.putArray("items");
        for (RunRecord run : runList.subList(0, Math.min(runList.size(), SECTION_LIMIT))) {
            ObjectNode item = runItems.addObject();
            item.put("run_id", run.id());
            item.put("trigger", run.trigger());
            item.put("status", run.status());
            item.put("queued_at", HttpResponses.time(run.queuedAtMicros()));
            item.put("triggered_by", flushIdFor(flushList, run));
        }
        section(runs, runItems.size(), runTotal);

        // Quarantined events of the request, with their errors.
        ObjectNode quarantine = body.putObject("quarantine");
        ArrayNode quarantineItems = quarantine.putArray("items");
        if (publish.quarantined() > 0) {
            for (QuarantineEntry entry : log.readQuarantine(stream, publish.firstSeq() - 1,
                    (int) Math.min(SECTION_LIMIT, publish.lastSeq() - publish.firstSeq() + 1))) {
                ObjectNode item = quarantineItems.addObject();
                item.put("seq", entry.seq());
                item.set("event", StoredJson.value(entry.payload()));
                item.set("errors", StoredJson.value(entry.errorsJson()));
                item.put("ingested_at", HttpResponses.time(entry.ingestedAtMicros()));
            }
        }
        section(quarantine, quarantineItems.size(), publish.quarantined());

        ObjectNode counts = body.putObject("counts");
        ObjectNode totals = body.putObject("totals");
        for (String name : List.of("flushes", "runs", "quarantine")) {
            counts.put(name, body.get(name).get("count").asLong());
            totals.put(name, body.get(name).get("total").asLong());
        }
        body.put("completeness", "store");
        return HttpResponses.json(200, body);
    }

    /**
     * Fills {@code byRequest} with the request that first wrote each of {@code offsets}, in offset order.
     *
     * @return the offsets no longer in the log (trimmed by the retention sweep), whose writers are unknown
     */
    private TreeSet<Long> originalRequests(String stream, List<Long> offsets, Map<String, TreeSet<Long>> byRequest) {
        TreeSet<Long> missing = new TreeSet<>(offsets);
        for (long[] range : ranges(offsets)) {
            for (long from = range[0]; from <= range[1]; from += 1_000) {
                int length = (int) Math.min(1_000, range[1] - from + 1);
                for (LogEntry entry : readQuietly(stream, from - 1, length)) {
                    // A read after a trimmed offset returns later entries: keep only the offsets asked for.
                    if (missing.remove(entry.offset())) {
                        byRequest.computeIfAbsent(entry.requestId(), id -> new TreeSet<>()).add(entry.offset());
                    }
                }
            }
        }
        return missing;
    }

    /** Contiguous runs of {@code offsets} as {@code [first, last]} pairs, ascending. */
    private static List<long[]> ranges(List<Long> offsets) {
        List<long[]> ranges = new ArrayList<>();
        for (long offset : new TreeSet<>(offsets)) {
            long[] last = ranges.isEmpty() ? null : ranges.get(ranges.size() - 1);
            if (last != null && offset == last[1] + 1) {
                last[1] = offset;
            } else {
                ranges.add(new long[] {offset, offset});
            }
        }
        return ranges;
    }

    /** Adds a page's flushes not seen yet; returns how many of its total were new. */
    private static long collect(Map<String, FlushRecord> byId, FlushRecord.Page page) {
        long seenBefore = 0;
        for (FlushRecord flush : page.records()) {
            if (byId.putIfAbsent(flush.id(), flush) != null) {
                seenBefore++;
            }
        }
        return page.total() - seenBefore;
    }

    private List<LogEntry> readQuietly(String stream, long after, int limit) {
        try {
            return log.read(stream, after, limit, Duration.ZERO);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return List.of();
        }
    }

    private static String flushIdFor(List<FlushRecord> flushes, RunRecord run) {
        for (FlushRecord flush : flushes) {
            if (flush.target().equals("events") && flush.committedAtMicros() > 0
                    && run.triggers().contains("stream:" + flush.stream() + ":" + flush.lastOffset())) {
                return flush.id();
            }
        }
        return null;
    }

    /** The canonical text of a key value written as text, the way publishing canonicalises it. */
    private static String canonicalKey(StreamDescriptor stream, String text) {
        Column column = stream.columns().get(stream.idempotencyKeyIndex());
        FieldErrors errors = new FieldErrors();
        Object value;
        try (JsonParser parser = HttpResponses.JSON.getFactory().createParser(switch (column.type()) {
            case BIGINT -> text;
            default -> HttpResponses.JSON.writeValueAsString(text);
        })) {
            parser.nextToken();
            value = switch (column.type()) {
                case STRING -> text;
                case BIGINT -> Values.readBigint(parser, column.name(), true, errors);
                case DECIMAL -> {
                    BigDecimal decimal = Values.readDecimal(parser, column.name(), column.precision(),
                            column.scale(), true, errors);
                    yield decimal == null ? null : decimal.toPlainString();
                }
                case DATE -> Values.readDate(parser, column.name(), true, errors);
                case TIMESTAMP -> Values.readTimestamp(parser, column.name(), true, errors);
                default -> throw new IllegalArgumentException("keys of type " + column.type() + " are not supported");
            };
        } catch (IOException e) {
            throw new IllegalArgumentException("key " + text + " is not a valid " + column.type().canonicalName()
                    + " for column " + column.name());
        }
        if (!errors.isEmpty() || value == null) {
            throw new IllegalArgumentException("key " + text + " is not a valid " + column.type().canonicalName()
                    + " for column " + column.name() + ": " + errors.list());
        }
        return value.toString();
    }

    // ------------------------------------------------------------------------------------------------ /logs/api

    private HttpAnswer apiLog(HttpRequest request, List<String> path, String requestId) throws IOException {
        Map<String, String> query = request.query();
        ApiRecord.Filter filter;
        try {
            String unknown = unknownParameter(query, Set.of("stream", "status", "request_id", "since", "until",
                    "limit"));
            if (unknown != null) {
                throw new IllegalArgumentException(unknown);
            }
            Integer status = null;
            if (query.containsKey("status")) {
                if (!query.get("status").matches("[1-5]\\d\\d")) {
                    throw new IllegalArgumentException("status must be an HTTP status code, e.g. 200 or 429");
                }
                status = Integer.valueOf(query.get("status"));
            }
            filter = new ApiRecord.Filter(query.get("stream"), status, query.get("request_id"),
                    RunRoutes.time(query.get("since"), "since"), RunRoutes.time(query.get("until"), "until"),
                    limit(query));
        } catch (IllegalArgumentException e) {
            return HttpResponses.error(400, "invalid_filter", e.getMessage(), requestId);
        }
        boolean fromStore = filter.status() == null || filter.status() == 200;
        boolean fromRing = filter.status() == null || filter.status() >= 400;
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
        body.put("record_retention", retentionText());
        return HttpResponses.json(200, body);
    }

    // ------------------------------------------------------------------------------------------------ /logs/sys

    private HttpAnswer sysLog(HttpRequest request, List<String> path, String requestId) throws IOException {
        Map<String, String> query = request.query();
        SysRecord.Filter filter;
        try {
            String unknown = unknownParameter(query, Set.of("event", "stream", "id", "since", "until", "limit"));
            if (unknown != null) {
                throw new IllegalArgumentException(unknown);
            }
            filter = new SysRecord.Filter(query.get("event"), query.get("stream"), query.get("id"),
                    RunRoutes.time(query.get("since"), "since"), RunRoutes.time(query.get("until"), "until"),
                    limit(query));
        } catch (IllegalArgumentException e) {
            return HttpResponses.error(400, "invalid_filter", e.getMessage(), requestId);
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
        }
        body.put("count", page.records().size());
        body.put("total", page.total());
        body.put("completeness", "store");
        body.put("record_retention", retentionText());
        return HttpResponses.json(200, body);
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

    private static ObjectNode apiItem(ApiRecord record) {
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
        return item;
    }

    private static ObjectNode flushItem(FlushRecord flush) {
        ObjectNode item = HttpResponses.JSON.createObjectNode();
        item.put("flush_id", flush.id());
        item.put("target", flush.target());
        item.put("first_offset", flush.firstOffset());
        item.put("last_offset", flush.lastOffset());
        item.put("rows", flush.rows());
        item.put("started_at", HttpResponses.time(flush.startedAtMicros()));
        if (flush.committedAtMicros() > 0) {
            item.put("committed_at", HttpResponses.time(flush.committedAtMicros()));
            item.put("duration_ms", (flush.committedAtMicros() - flush.startedAtMicros()) / 1000.0);
        } else {
            item.putNull("committed_at");
            item.putNull("duration_ms");
        }
        item.put("error", flush.error());
        return item;
    }

    private static void section(ObjectNode section, long count, long total) {
        section.put("count", count);
        section.put("total", total);
        section.put("completeness", "store");
    }

    private void ringDetails(ObjectNode body) {
        ObjectNode ring = body.putObject("ring");
        ring.put("since", HttpResponses.time(refused.since()));
        ring.put("capacity", refused.capacity());
        ring.put("dropped", refused.dropped());
    }

    private String retentionText() {
        long micros = config.recordRetentionMicros();
        if (micros == 0) {
            return "off";
        }
        long seconds = micros / 1_000_000L;
        return seconds % 86_400 == 0 ? seconds / 86_400 + "d" : seconds % 3_600 == 0 ? seconds / 3_600 + "h"
                : seconds + "s";
    }

    private static int limit(Map<String, String> query) {
        if (!query.containsKey("limit")) {
            return DEFAULT_LIMIT;
        }
        int limit;
        try {
            limit = Integer.parseInt(query.get("limit"));
        } catch (NumberFormatException e) {
            limit = 0;
        }
        if (limit < 1 || limit > MAX_LIMIT) {
            throw new IllegalArgumentException("limit must be between 1 and " + MAX_LIMIT);
        }
        return limit;
    }

    /** A message naming the first parameter not in {@code known}, or null. */
    private static String unknownParameter(Map<String, String> query, Set<String> known) {
        for (String name : query.keySet()) {
            if (!known.contains(name)) {
                return "unknown filter " + name + "; filters: " + String.join(", ", new TreeSet<>(known));
            }
        }
        return null;
    }
}
