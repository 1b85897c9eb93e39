package dev.interlace.runtime.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import dev.interlace.runtime.flush.FlushLease;
import dev.interlace.runtime.log.Leases;
import dev.interlace.runtime.log.LogEntry;
import dev.interlace.runtime.log.StreamHead;
import dev.interlace.runtime.stream.StoredJson;
import dev.interlace.runtime.log.StreamLog;
import dev.interlace.runtime.ops.EpochMicros;
import dev.interlace.runtime.records.SysRecord;
import dev.interlace.runtime.records.SystemRecords;
import jakarta.inject.Inject;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Reading a stream over HTTP and consumer groups with leases and fencing tokens (DESIGN.md §4): at-least-once
 * consumption for services other than the warehouse.
 */
final class ConsumerRoutes {

    static final int MAX_EVENTS = 1000;
    static final long MAX_WAIT_MS = 30_000;
    static final long DEFAULT_TTL_MS = 30_000;
    static final long MAX_TTL_MS = 3_600_000;
    private static final Pattern GROUP = Pattern.compile("[A-Za-z0-9._:-]{1,128}");

    private final StreamLog log;
    private final SystemRecords records;
    private final java.time.Clock clock;

    @Inject
    ConsumerRoutes(StreamLog log, SystemRecords records, java.time.Clock clock) {
        this.log = log;
        this.records = records;
        this.clock = clock;
    }

    void register(List<Route> routes) {
        routes.add(new Route("GET", "/streams/{name}/events", this::events));
        routes.add(new Route("GET", "/streams/{name}/consumers", this::consumers));
        routes.add(new Route("POST", "/streams/{name}/consumers/{group}/lease", this::lease));
        routes.add(new Route("POST", "/streams/{name}/consumers/{group}/commit", this::commit));
        routes.add(new Route("POST", "/streams/{name}/consumers/{group}/release", this::release));
    }

    private StreamHead head(HttpExchange exchange, String stream, String requestId) throws IOException {
        StreamHead head = log.heads().get(stream);
        if (head == null) {
            HttpResponses.error(exchange, 404, "unknown_stream", "no stream is named \"" + stream
                    + "\"; GET /streams lists them", requestId);
        }
        return head;
    }

    private void events(HttpExchange exchange, List<String> path, String requestId) throws IOException {
        StreamHead head = head(exchange, path.get(0), requestId);
        if (head == null) {
            return;
        }
        Map<String, String> query = QueryParameters.parse(exchange.getRequestURI());
        long after;
        int limit;
        long waitMillis;
        try {
            after = number(query, "after", 0, 0, Long.MAX_VALUE);
            limit = (int) number(query, "limit", 100, 1, MAX_EVENTS);
            waitMillis = number(query, "wait_ms", 0, 0, MAX_WAIT_MS);
        } catch (IllegalArgumentException e) {
            HttpResponses.error(exchange, 400, "invalid_parameter", e.getMessage(), requestId);
            return;
        }
        if (after + 1 < head.earliest()) {
            ObjectNode body = HttpResponses.error("trimmed", "events after " + after + " were trimmed by retention;"
                    + " the earliest available offset is " + head.earliest(), requestId);
            body.put("earliest", head.earliest());
            HttpResponses.json(exchange, 410, body);
            return;
        }
        List<LogEntry> entries;
        try {
            entries = log.read(path.get(0), after, limit, Duration.ofMillis(waitMillis));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            HttpResponses.error(exchange, 503, "shutting_down", "interrupted while waiting", requestId);
            return;
        }
        StreamHead now = log.heads().get(path.get(0));
        ObjectNode body = HttpResponses.JSON.createObjectNode();
        ArrayNode events = body.putArray("events");
        long next = after;
        for (LogEntry entry : entries) {
            ObjectNode item = events.addObject();
            item.put("offset", entry.offset());
            item.put("request_id", entry.requestId());
            item.put("ingested_at", HttpResponses.time(entry.ingestedAtMicros()));
            item.set("event", StoredJson.value(entry.payload()));
            next = entry.offset();
        }
        body.put("next_after", next);
        body.put("head", now.head());
        body.put("earliest", now.earliest());
        body.put("count", entries.size());
        // Offsets are dense and nothing after `after` is trimmed (that was answered 410): the rest is all there.
        body.put("total", Math.max(0, now.head() - after));
        body.put("completeness", "store");
        HttpResponses.json(exchange, 200, body);
    }

    private void consumers(HttpExchange exchange, List<String> path, String requestId) throws IOException {
        StreamHead head = head(exchange, path.get(0), requestId);
        if (head == null) {
            return;
        }
        long now = micros();
        ObjectNode body = HttpResponses.JSON.createObjectNode();
        ArrayNode consumers = body.putArray("consumers");
        List<Leases.Group> groups = log.groups(path.get(0));
        for (Leases.Group group : groups) {
            boolean held = group.holder() != null && group.expiresAtMicros() > now;
            ObjectNode item = consumers.addObject();
            item.put("group", group.group());
            item.put("committed_offset", group.committedOffset());
            item.put("lag", head.head() - group.committedOffset());
            item.put("token", group.token());
            item.put("holder", held ? group.holder() : null);
            if (held) {
                item.put("expires_at", HttpResponses.time(group.expiresAtMicros()));
            } else {
                item.putNull("expires_at");
            }
            item.put("lapped", group.committedOffset() + 1 < head.earliest());
        }
        body.put("count", groups.size());
        body.put("total", groups.size());
        body.put("completeness", "store");
        HttpResponses.json(exchange, 200, body);
    }

    private void lease(HttpExchange exchange, List<String> path, String requestId) throws IOException {
        JsonNode request = body(exchange, path, requestId);
        if (request == null) {
            return;
        }
        String owner = request.path("owner").asText("");
        long ttl = request.path("ttl_ms").asLong(DEFAULT_TTL_MS);
        if (owner.isEmpty() || owner.length() > 128 || ttl < 1000 || ttl > MAX_TTL_MS) {
            HttpResponses.error(exchange, 400, "invalid_lease", "send {\"owner\": \"<1-128 characters>\", \"ttl_ms\":"
                    + " 1000.." + MAX_TTL_MS + "}", requestId);
            return;
        }
        Leases.Group before = log.groups(path.get(0)).stream().filter(group -> group.group().equals(path.get(1)))
                .findFirst().orElse(null);
        Leases.LeaseResult result = log.lease(path.get(0), path.get(1), owner, Duration.ofMillis(ttl));
        if (result instanceof Leases.Granted granted) {
            if (before != null && before.holder() != null && !before.holder().equals(owner)
                    && granted.token() > before.token()) {
                records.record(SysRecord.of(micros(), "lease_takeover", path.get(0), requestId, owner
                        + " took group " + path.get(1) + " over from " + before.holder() + " with token "
                        + granted.token() + " at committed offset " + granted.committedOffset()));
            }
            ObjectNode body = HttpResponses.JSON.createObjectNode();
            body.put("token", granted.token());
            body.put("committed_offset", granted.committedOffset());
            body.put("expires_at", HttpResponses.time(granted.expiresAtMicros()));
            HttpResponses.json(exchange, 200, body);
        } else if (result instanceof Leases.Held held) {
            ObjectNode body = HttpResponses.error("lease_held", "group " + path.get(1) + " is leased by "
                    + held.holder() + " until " + HttpResponses.time(held.expiresAtMicros()), requestId);
            body.put("holder", held.holder());
            body.put("expires_at", HttpResponses.time(held.expiresAtMicros()));
            HttpResponses.json(exchange, 409, body);
        }
    }

    private void commit(HttpExchange exchange, List<String> path, String requestId) throws IOException {
        JsonNode request = body(exchange, path, requestId);
        if (request == null) {
            return;
        }
        if (!request.path("token").canConvertToLong() || !request.path("offset").canConvertToLong()) {
            HttpResponses.error(exchange, 400, "invalid_commit", "send {\"token\": <lease token>, \"offset\":"
                    + " <last processed offset>}", requestId);
            return;
        }
        Leases.CommitResult result = log.commit(path.get(0), path.get(1), request.get("token").asLong(),
                request.get("offset").asLong());
        if (result instanceof Leases.Committed committed) {
            ObjectNode body = HttpResponses.JSON.createObjectNode();
            body.put("committed_offset", committed.committedOffset());
            HttpResponses.json(exchange, 200, body);
        } else if (result instanceof Leases.StaleToken stale) {
            HttpResponses.error(exchange, 409, "stale_token", "token " + request.get("token").asLong()
                    + " is not current (another consumer took over); lease again", requestId);
        } else if (result instanceof Leases.LeaseExpired expired) {
            HttpResponses.error(exchange, 409, "lease_expired", "the lease expired at "
                    + HttpResponses.time(expired.expiredAtMicros()) + "; lease again", requestId);
        } else if (result instanceof Leases.OffsetRegressed regressed) {
            ObjectNode body = HttpResponses.error("offset_regressed", "offset " + request.get("offset").asLong()
                    + " is below the committed offset " + regressed.committedOffset(), requestId);
            body.put("committed_offset", regressed.committedOffset());
            HttpResponses.json(exchange, 409, body);
        } else if (result instanceof Leases.BeyondHead beyond) {
            ObjectNode body = HttpResponses.error("offset_beyond_head", "offset " + request.get("offset").asLong()
                    + " is past the head " + beyond.head(), requestId);
            body.put("head", beyond.head());
            HttpResponses.json(exchange, 422, body);
        }
    }

    private void release(HttpExchange exchange, List<String> path, String requestId) throws IOException {
        JsonNode request = body(exchange, path, requestId);
        if (request == null) {
            return;
        }
        if (!log.release(path.get(0), path.get(1), request.path("token").asLong(-1))) {
            HttpResponses.error(exchange, 409, "stale_token", "the token is not the current lease's", requestId);
            return;
        }
        ObjectNode body = HttpResponses.JSON.createObjectNode();
        body.put("released", true);
        HttpResponses.json(exchange, 200, body);
    }

    /** The JSON body of a group operation, or null after answering an error (unknown stream, bad group or body). */
    private JsonNode body(HttpExchange exchange, List<String> path, String requestId) throws IOException {
        if (head(exchange, path.get(0), requestId) == null) {
            return null;
        }
        if (!GROUP.matcher(path.get(1)).matches()) {
            HttpResponses.error(exchange, 400, "invalid_group", "group names are 1-128 characters of"
                    + " [A-Za-z0-9._:-]", requestId);
            return null;
        }
        if (path.get(1).startsWith("__")) {
            HttpResponses.error(exchange, 400, "reserved_group", "group names starting with __ are reserved ("
                    + FlushLease.GROUP + " is the flusher's own lease); choose another name", requestId);
            return null;
        }
        try {
            JsonNode json = HttpResponses.JSON.readTree(exchange.getRequestBody().readNBytes(64 * 1024));
            if (json == null || !json.isObject()) {
                throw new IOException("not an object");
            }
            return json;
        } catch (IOException e) {
            HttpResponses.error(exchange, 400, "malformed_json", "the body must be a JSON object", requestId);
            return null;
        }
    }

    private static long number(Map<String, String> query, String name, long fallback, long min, long max) {
        String value = query.get(name);
        if (value == null) {
            return fallback;
        }
        try {
            long number = Long.parseLong(value);
            if (number < min || number > max) {
                throw new IllegalArgumentException(name + " must be between " + min + " and " + max);
            }
            return number;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be a whole number, got " + value);
        }
    }

    private long micros() {
        return EpochMicros.now(clock);
    }
}
