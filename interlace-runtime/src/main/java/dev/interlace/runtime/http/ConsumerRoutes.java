package dev.interlace.runtime.http;

import dev.interlace.client.ErrorCode;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.interlace.runtime.auth.ApiKey;
import dev.interlace.runtime.auth.ApiKeys;
import dev.interlace.runtime.auth.Caller;
import dev.interlace.runtime.auth.Scope;
import dev.interlace.runtime.flush.FlushLease;
import dev.interlace.runtime.log.Leases;
import dev.interlace.runtime.log.LogEntry;
import dev.interlace.runtime.log.StreamHead;
import dev.interlace.runtime.log.ConsumerGroups;
import dev.interlace.runtime.ops.EpochMicros;
import dev.interlace.runtime.records.SysEvent;
import dev.interlace.runtime.records.SysRecord;
import dev.interlace.runtime.records.SystemRecords;
import jakarta.inject.Inject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Reading a stream over HTTP and consumer groups with leases and fencing tokens (docs/consumers.md): at-least-once
 * consumption for services other than the warehouse.
 *
 * <p>A group belongs to the key that created it and to the keys an admin granted it to ({@code POST .../grant}):
 * any other key is refused {@code 403 group_forbidden} on the routes that act on it, whatever the body says, since a
 * consume key is otherwise a credential for every group of its streams. Positions are readable by every read or
 * consume key; tokens are shown only in the lease answer, to the holder.
 */
final class ConsumerRoutes implements RouteSet {

    static final int MAX_EVENTS = 1000;
    private static final Set<String> EVENT_FILTERS = Set.of("after", "limit", "wait_ms", PartitionParameter.NAME);
    static final long MAX_WAIT_MS = 30_000;
    static final long DEFAULT_TTL_MS = 30_000;
    static final long MAX_TTL_MS = 3_600_000;
    private static final int MAX_COMMAND_BYTES = 64 * 1024;
    private static final Pattern GROUP = Pattern.compile("[A-Za-z0-9._:-]{1,128}");

    private final EventPages pages;
    private final ConsumerGroups consumerGroups;
    private final SystemRecords records;
    private final java.time.Clock clock;
    private final ApiKeys keys;
    /** The waits of parked long polls by stream: completed when the stream advances, or at shutdown. */
    private final Map<String, Set<CompletableFuture<Void>>> parked = new ConcurrentHashMap<>();
    private volatile boolean stopping;

    @Inject
    ConsumerRoutes(EventPages pages, ConsumerGroups consumerGroups, SystemRecords records, java.time.Clock clock,
            ApiKeys keys) {
        this.keys = keys;
        pages.log().addAppendListener(this::appended);
        this.pages = pages;
        this.consumerGroups = consumerGroups;
        this.records = records;
        this.clock = clock;
    }

    @Override
    public void register(List<Route> routes) {
        // Every route serves one partition of a partitioned stream; the group commands are served by its sequencer.
        Stream.of(
                Route.async("GET", "/streams/{name}/events", Access.READ_OR_CONSUME_STREAM, this::events),
                Route.blocking("GET", "/streams/{name}/consumers", Access.READ_OR_CONSUME_STREAM, this::consumers),
                Route.blocking("GET", "/streams/{name}/consumers/{group}", Access.READ_OR_CONSUME_STREAM,
                        this::position),
                groupCommand("lease", Access.CONSUME_STREAM, this::lease),
                groupCommand("commit", Access.CONSUME_STREAM, this::commit),
                groupCommand("release", Access.CONSUME_STREAM, this::release),
                groupCommand("grant", Access.ADMIN, this::grant))
                .map(route -> route.partitions(Route.Partitions.EACH))
                .forEach(routes::add);
    }

    /** {@code POST /streams/{name}/consumers/{group}/<command>}, served by the stream's sequencer. */
    private static Route groupCommand(String command, Access access, Route.BlockingHandler handler) {
        return Route.blocking("POST", "/streams/{name}/consumers/{group}/" + command, access, handler)
                .placedOn(Route.Placement.SEQUENCER);
    }

    /** The stream's head; refuses 404 when there is no such stream. */
    private StreamHead head(String stream, String requestId) {
        StreamHead head = pages.log().heads().get(stream);
        if (head == null) {
            throw new Refusal(HttpResponses.error(ErrorCode.UNKNOWN_STREAM, "no stream is named \"" + stream
                    + "\"; GET /streams lists them", requestId));
        }
        return head;
    }

    /** A page of events; with {@code wait_ms} it parks (holding no thread) until one arrives or the wait ends. */
    private CompletableFuture<HttpAnswer> events(HttpRequest request, List<String> path, String requestId) {
        String stream = path.get(0);
        StreamHead head = head(stream, requestId);
        ListQuery query = ListQuery.of(request, requestId, EVENT_FILTERS);
        long after = query.number("after", 0, 0, Long.MAX_VALUE);
        int limit = (int) query.number("limit", 100, 1, MAX_EVENTS);
        long waitMillis = query.number("wait_ms", 0, 0, MAX_WAIT_MS);
        if (after + 1 < head.earliest()) {
            ObjectNode body = HttpResponses.errorBody(ErrorCode.TRIMMED, "events after " + after + " were trimmed by retention;"
                    + " the earliest available offset is " + head.earliest(), requestId);
            body.put("earliest", head.earliest());
            throw new Refusal(HttpResponses.error(ErrorCode.TRIMMED, body));
        }
        return poll(request, stream, after, limit, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMillis),
                new AnswerBudget(request, InflightBytes.STREAMED_COPIES), requestId);
    }

    private CompletableFuture<HttpAnswer> poll(HttpRequest request, String stream, long after, int limit,
            long deadlineNanos, AnswerBudget budget, String requestId) {
        // Parked before reading, so that an append between the read and the wait still wakes it.
        CompletableFuture<Void> wake = new CompletableFuture<>();
        Set<CompletableFuture<Void>> waiting = parked.computeIfAbsent(stream, name -> ConcurrentHashMap.newKeySet());
        waiting.add(wake);
        HttpAnswer answered;
        try {
            answered = pages.slots().render("the next events of " + stream, requestId, () -> {
                List<LogEntry> entries = read(stream, after, limit, StreamedPage.BATCH_BYTES, budget, requestId);
                boolean answerNow = !entries.isEmpty() || deadlineNanos - System.nanoTime() <= 0 || stopping;
                return answerNow ? page(request, stream, after, limit, entries, budget, requestId) : null;
            });
        } catch (IOException e) {
            waiting.remove(wake);
            throw new UncheckedIOException(e);
        } catch (RuntimeException e) {
            waiting.remove(wake);
            throw e;
        }
        if (answered != null) {
            waiting.remove(wake);
            return CompletableFuture.completedFuture(answered);
        }
        long remaining = deadlineNanos - System.nanoTime();
        wake.completeOnTimeout(null, remaining, TimeUnit.NANOSECONDS)
                .whenComplete((ignored, failure) -> waiting.remove(wake));
        return wake.thenComposeAsync(ignored -> poll(request, stream, after, limit, deadlineNanos, budget,
                requestId), pages.workers().executor());
    }

    /** Told by the log (on its writer thread) that {@code stream} advanced: wakes its parked long polls. */
    private void appended(String stream) {
        Set<CompletableFuture<Void>> waiting = parked.get(stream);
        if (waiting != null) {
            waiting.forEach(wake -> wake.complete(null));
        }
    }

    /** Answers every parked long poll now (with what there is), so that shutdown does not wait out their waits. */
    void wakeParked() {
        stopping = true;
        parked.values().forEach(waiting -> waiting.forEach(wake -> wake.complete(null)));
    }

    /** A page within what the answer may hold: the entries that fit, or a 503 overloaded when not even one does. */
    private List<LogEntry> read(String stream, long after, int limit, long maxBytes, AnswerBudget budget,
            String requestId) {
        try {
            List<LogEntry> entries = pages.log().read(stream, after, limit, maxBytes, budget);
            if (entries.isEmpty() && budget.refused()) {
                throw AnswerBudget.overloaded("the next event of " + stream, requestId);
            }
            return entries;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted reading " + stream, e);
        }
    }

    /**
     * The page whose first batch is {@code first}, streamed: the next batches are read as the reader takes the parts,
     * up to {@code limit} events and {@link ListQuery#PAGE_BYTES} of them, as a page built whole.
     */
    private HttpAnswer page(HttpRequest request, String stream, long after, int limit, List<LogEntry> first,
            AnswerBudget budget, String requestId) {
        int[] count = {first.size()};
        long[] bytes = {StreamedPage.payloadBytes(first, StreamedPage.LOG_ENTRIES)};
        StreamedPage.Batches<LogEntry> batches = (last, next) -> {
            if (count[0] >= limit || bytes[0] >= ListQuery.PAGE_BYTES) {
                return List.of();
            }
            List<LogEntry> entries = pages.slots().run("read the next events of " + stream, requestId, () -> {
                try {
                    return pages.log().read(stream, last.offset(), limit - count[0],
                            Math.min(StreamedPage.BATCH_BYTES, ListQuery.PAGE_BYTES - bytes[0]), next);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted reading " + stream, e);
                }
            });
            count[0] += entries.size();
            bytes[0] += StreamedPage.payloadBytes(entries, StreamedPage.LOG_ENTRIES);
            return entries;
        };
        boolean firstIsAll = bytes[0] < StreamedPage.BATCH_BYTES; // the read ended before a batch's bytes
        return new StreamedPage<>(request, HttpResponses.JSON.createObjectNode(), "events", StreamedPage.LOG_ENTRIES,
                first, firstIsAll, budget, batches,
                (written, last) -> {
                    StreamHead now = pages.log().heads().get(stream);
                    ObjectNode body = HttpResponses.JSON.createObjectNode();
                    body.put("next_after", last == null ? after : last.offset());
                    body.put("head", now.head());
                    body.put("earliest", now.earliest());
                    body.put("count", written);
                    // Offsets are dense and nothing after `after` is trimmed (that was answered 410): the rest is all
                    // there.
                    body.put("total", Math.max(0, now.head() - after));
                    body.put("completeness", "store");
                    return body;
                }, pages.workers().executor()).answer();
    }

    private HttpAnswer consumers(HttpRequest request, List<String> path, String requestId) throws IOException {
        StreamHead head = head(path.get(0), requestId);
        ListQuery.of(request, requestId, Set.of(PartitionParameter.NAME));
        long now = micros();
        ObjectNode body = HttpResponses.JSON.createObjectNode();
        ArrayNode consumers = body.putArray("consumers");
        List<Leases.Group> groups = consumerGroups.groups(path.get(0));
        for (Leases.Group group : groups) {
            describe(consumers.addObject(), group, head, now);
        }
        body.put("count", groups.size());
        body.put("total", groups.size());
        body.put("completeness", "store");
        return HttpResponses.json(200, body);
    }

    /** One group's position, as the listing shows it. */
    private HttpAnswer position(HttpRequest request, List<String> path, String requestId) throws IOException {
        StreamHead head = head(path.get(0), requestId);
        ListQuery.of(request, requestId, Set.of(PartitionParameter.NAME));
        Leases.Group group = group(path.get(0), path.get(1));
        if (group == null) {
            return HttpResponses.error(ErrorCode.UNKNOWN_GROUP, "stream " + path.get(0) + " has no consumer group \""
                    + path.get(1) + "\"; GET /streams/" + path.get(0) + "/consumers lists them", requestId);
        }
        ObjectNode body = HttpResponses.JSON.createObjectNode();
        describe(body, group, head, micros());
        return HttpResponses.json(200, body);
    }

    /** A group as anyone who may read the stream sees it: never its token, which only the holder was given. */
    private static void describe(ObjectNode item, Leases.Group group, StreamHead head, long now) {
        boolean held = group.holder() != null && group.expiresAtMicros() > now;
        item.put("group", group.group());
        item.put("committed_offset", group.committedOffset());
        item.put("lag", head.head() - group.committedOffset());
        item.put("epoch", group.token());
        item.put("holder", held ? group.holder() : null);
        if (held) {
            item.put("expires_at", HttpResponses.time(group.expiresAtMicros()));
        } else {
            item.putNull("expires_at");
        }
        item.put("lapped", group.committedOffset() + 1 < head.earliest());
        ArrayNode owners = item.putArray("keys");
        group.keys().forEach(owners::add);
    }

    private HttpAnswer lease(HttpRequest request, List<String> path, String requestId) throws IOException {
        Leases.Actor actor = actor(request.caller());
        JsonNode command = body(request, path, actor, requestId);
        String owner = command.path("owner").asText("");
        long ttl = command.path("ttl_ms").asLong(DEFAULT_TTL_MS);
        if (owner.isEmpty() || owner.length() > 128 || ttl < 1000 || ttl > MAX_TTL_MS) {
            return HttpResponses.error(ErrorCode.INVALID_LEASE, "send {\"owner\": \"<1-128 characters>\", \"ttl_ms\":"
                    + " 1000.." + MAX_TTL_MS + "}", requestId);
        }
        Leases.Group before = group(path.get(0), path.get(1));
        Leases.LeaseResult result = consumerGroups.lease(path.get(0), path.get(1), owner, Duration.ofMillis(ttl),
                actor);
        if (result instanceof Leases.Granted granted) {
            if (before != null && before.holder() != null && !before.holder().equals(owner)
                    && granted.token().epoch() > before.token()) {
                records.record(SysRecord.of(micros(), SysEvent.LEASE_TAKEOVER, path.get(0), requestId, owner
                        + " took group " + path.get(1) + " over from " + before.holder() + " with epoch "
                        + granted.token().epoch() + " at committed offset " + granted.committedOffset()));
            }
            ObjectNode body = HttpResponses.JSON.createObjectNode();
            body.put("token", granted.token().toString());
            body.put("committed_offset", granted.committedOffset());
            body.put("expires_at", HttpResponses.time(granted.expiresAtMicros()));
            return HttpResponses.json(200, body);
        } else if (result instanceof Leases.Held held) {
            ObjectNode body = HttpResponses.errorBody(ErrorCode.LEASE_HELD, "group " + path.get(1) + " is leased by "
                    + held.holder() + " until " + HttpResponses.time(held.expiresAtMicros()), requestId);
            body.put("holder", held.holder());
            body.put("expires_at", HttpResponses.time(held.expiresAtMicros()));
            return HttpResponses.error(ErrorCode.LEASE_HELD, body);
        } else if (result instanceof Leases.Forbidden) {
            return groupForbidden(path, requestId);
        }
        throw new IllegalStateException("unknown lease result " + result);
    }

    private HttpAnswer commit(HttpRequest request, List<String> path, String requestId) throws IOException {
        Leases.Actor actor = actor(request.caller());
        JsonNode command = body(request, path, actor, requestId);
        if (!command.hasNonNull("token") || !command.path("offset").canConvertToLong()) {
            return HttpResponses.error(ErrorCode.INVALID_COMMIT, "send {\"token\": \"<the lease's token>\", \"offset\":"
                    + " <last processed offset>}", requestId);
        }
        long offset = command.get("offset").asLong();
        Leases.CommitResult result = consumerGroups.commit(path.get(0), path.get(1), token(command), offset, actor);
        if (result instanceof Leases.Committed committed) {
            ObjectNode body = HttpResponses.JSON.createObjectNode();
            body.put("committed_offset", committed.committedOffset());
            return HttpResponses.json(200, body);
        } else if (result instanceof Leases.StaleToken) {
            return staleToken(requestId);
        } else if (result instanceof Leases.LeaseExpired expired) {
            return HttpResponses.error(ErrorCode.LEASE_EXPIRED, "the lease expired at "
                    + HttpResponses.time(expired.expiredAtMicros()) + "; lease again", requestId);
        } else if (result instanceof Leases.OffsetRegressed regressed) {
            ObjectNode body = HttpResponses.errorBody(ErrorCode.OFFSET_REGRESSED, "offset " + offset
                    + " is below the committed offset " + regressed.committedOffset(), requestId);
            body.put("committed_offset", regressed.committedOffset());
            return HttpResponses.error(ErrorCode.OFFSET_REGRESSED, body);
        } else if (result instanceof Leases.BeyondHead beyond) {
            ObjectNode body = HttpResponses.errorBody(ErrorCode.OFFSET_BEYOND_HEAD, "offset " + offset
                    + " is past the head " + beyond.head(), requestId);
            body.put("head", beyond.head());
            return HttpResponses.error(ErrorCode.OFFSET_BEYOND_HEAD, body);
        } else if (result instanceof Leases.Forbidden) {
            return groupForbidden(path, requestId);
        }
        throw new IllegalStateException("unknown commit result " + result);
    }

    private HttpAnswer release(HttpRequest request, List<String> path, String requestId) throws IOException {
        Leases.Actor actor = actor(request.caller());
        JsonNode command = body(request, path, actor, requestId);
        Leases.ReleaseResult result = consumerGroups.release(path.get(0), path.get(1), token(command), actor);
        if (result instanceof Leases.Released) {
            ObjectNode body = HttpResponses.JSON.createObjectNode();
            body.put("released", true);
            return HttpResponses.json(200, body);
        } else if (result instanceof Leases.StaleToken) {
            return staleToken(requestId);
        } else if (result instanceof Leases.Forbidden) {
            return groupForbidden(path, requestId);
        }
        throw new IllegalStateException("unknown release result " + result);
    }

    /** An admin gives a group to one more key (making the group, never leased, when it does not exist). */
    private HttpAnswer grant(HttpRequest request, List<String> path, String requestId) throws IOException {
        JsonNode command = body(request, path, Leases.Actor.SERVER, requestId);
        String keyId = command.path("key").asText("");
        if (keyId.isEmpty()) {
            return HttpResponses.error(ErrorCode.INVALID_GRANT, "send {\"key\": \"<key id>\"} (interlace keys list shows"
                    + " the ids)", requestId);
        }
        if (keys.live(keyId).isEmpty()) {
            return HttpResponses.error(ErrorCode.UNKNOWN_KEY, "no live key has the id \"" + keyId
                    + "\"; interlace keys list shows them", requestId);
        }
        Leases.Group group = consumerGroups.grant(path.get(0), path.get(1), keyId);
        records.record(SysRecord.of(micros(), SysEvent.GROUP_GRANTED, path.get(0), requestId, "group " + path.get(1)
                + " granted to key " + keyId + " by " + request.caller().label() + "; it belongs to "
                + String.join(", ", group.keys())));
        ObjectNode body = HttpResponses.JSON.createObjectNode();
        body.put("group", group.group());
        ArrayNode owners = body.putArray("keys");
        group.keys().forEach(owners::add);
        return HttpResponses.json(200, body);
    }

    /** The token a command carries, or null when it carries none or no token could be this text. */
    private static Leases.Token token(JsonNode command) {
        JsonNode token = command.path("token");
        return token.isTextual() ? Leases.Token.parse(token.asText()).orElse(null) : null;
    }

    /**
     * Who acts, for group ownership: no key is open mode (or a request an open node forwarded), the flusher of
     * another node acts for the server, and a key acts on every group when it is an admin key. A forwarded request
     * names its key by id only, so the key is looked up; one revoked meanwhile acts on its own groups only.
     */
    private Leases.Actor actor(Caller caller) {
        if (caller.keyId() == null || FlushLease.PEER_CALLER.equals(caller.keyId())) {
            return Leases.Actor.SERVER;
        }
        ApiKey key = caller.key() != null ? caller.key() : keys.live(caller.keyId()).orElse(null);
        return new Leases.Actor(caller.keyId(), key != null && key.allows(Scope.of(Scope.Kind.ADMIN)));
    }

    private Leases.Group group(String stream, String group) {
        return consumerGroups.groups(stream).stream().filter(each -> each.group().equals(group)).findFirst()
                .orElse(null);
    }

    private static HttpAnswer groupForbidden(List<String> path, String requestId) {
        return HttpResponses.error(ErrorCode.GROUP_FORBIDDEN, "consumer group " + path.get(1) + " of stream "
                + path.get(0) + " belongs to other keys; an admin key may grant it to this one (POST /streams/"
                + path.get(0) + "/consumers/" + path.get(1) + "/grant)", requestId);
    }

    private static HttpAnswer staleToken(String requestId) {
        return HttpResponses.error(ErrorCode.STALE_TOKEN, "the token is not the current lease's (another consumer took"
                + " over, or it is not a token); lease again", requestId);
    }

    /**
     * The JSON body of a group operation; refuses an unknown stream, a bad or reserved group, a group {@code actor}
     * may not act on (before the body is looked at, so that what it says makes no difference) and a bad body.
     */
    private JsonNode body(HttpRequest request, List<String> path, Leases.Actor actor, String requestId) {
        head(path.get(0), requestId);
        if (!GROUP.matcher(path.get(1)).matches()) {
            throw new Refusal(HttpResponses.error(ErrorCode.INVALID_GROUP, "group names are 1-128 characters of"
                    + " [A-Za-z0-9._:-]", requestId));
        }
        if (path.get(1).startsWith("__") && !flusherOfAnotherNode(request, path.get(1))) {
            throw new Refusal(HttpResponses.error(ErrorCode.RESERVED_GROUP, "group names starting with __ are"
                    + " reserved (" + FlushLease.GROUP + " and its replicas' groups are the flushers' own leases); choose"
                    + " another name",
                    requestId));
        }
        if (!actor.mayActOn(group(path.get(0), path.get(1)))) {
            throw new Refusal(groupForbidden(path, requestId));
        }
        try {
            JsonNode json = request.body().length > MAX_COMMAND_BYTES ? null
                    : HttpResponses.JSON.readTree(request.body());
            if (json == null || !json.isObject()) {
                throw new IOException("not an object");
            }
            return json;
        } catch (IOException e) {
            throw new Refusal(HttpResponses.error(ErrorCode.MALFORMED_JSON, "the body must be a JSON object of at most "
                    + MAX_COMMAND_BYTES + " bytes", requestId));
        }
    }

    /**
     * Whether this is the flusher of another node of the cluster holding its own group: its lease, commit and release
     * come forwarded and signed with the cluster secret, under a caller no API key can be.
     */
    private static boolean flusherOfAnotherNode(HttpRequest request, String group) {
        return FlushLease.isFlusherGroup(group) && FlushLease.PEER_CALLER.equals(request.caller().keyId());
    }

    private long micros() {
        return EpochMicros.now(clock);
    }
}
