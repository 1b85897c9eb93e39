package dev.interlace.runtime.http;

import dev.interlace.client.ErrorCode;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.interlace.runtime.ingest.Backpressured;
import dev.interlace.runtime.ingest.IngestLimits;
import dev.interlace.runtime.ingest.QuarantineReplayer;
import dev.interlace.runtime.ingest.ReplayOutcome;
import dev.interlace.runtime.log.QuarantineEntry;
import dev.interlace.runtime.log.StreamHead;
import dev.interlace.runtime.stream.FieldError;
import dev.interlace.runtime.stream.StoredJson;
import jakarta.inject.Inject;
import java.io.IOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;

/**
 * {@code GET /streams/{name}/quarantine} and {@code POST /streams/{name}/quarantine/replay}: the events a
 * {@code QUARANTINE} stream kept aside, and moving them into the stream once the schema accepts them.
 */
final class QuarantineRoutes implements RouteSet {

    private static final Set<String> LIST_FILTERS = Set.of("after", "limit");
    private static final Set<String> REPLAY_FIELDS = Set.of("seqs", "all", "after", "dry_run");
    /** Room for {@link QuarantineReplayer#MAX_ENTRIES} sequence numbers and the rest, with margin. */
    private static final int MAX_REPLAY_BODY_BYTES = 64 * 1024;

    private final EventPages pages;
    private final QuarantineReplayer replayer;
    private final Clock clock;
    private final IngestLimits limits;

    @Inject
    QuarantineRoutes(EventPages pages, QuarantineReplayer replayer, Clock clock, IngestLimits limits) {
        this.limits = limits;
        this.pages = pages;
        this.replayer = replayer;
        this.clock = clock;
    }

    @Override
    public void register(List<Route> routes) {
        routes.add(Route.blocking("GET", "/streams/{name}/quarantine", Access.READ, (request, path, requestId) ->
                pages.slots().render("the quarantine of " + path.get(0), requestId,
                        () -> list(request, path, requestId))));
        routes.add(Route.async("POST", "/streams/{name}/quarantine/replay", Access.OPERATE, this::replay)
                .placedOn(Route.Placement.SEQUENCER));
    }

    private HttpAnswer list(HttpRequest request, List<String> path, String requestId) throws IOException {
        String stream = path.get(0);
        StreamHead head = pages.log().heads().get(stream);
        if (head == null) {
            return unknownStream(stream, requestId);
        }
        ListQuery query = ListQuery.of(request, requestId, LIST_FILTERS);
        long after = query.number("after", 0, 0, Long.MAX_VALUE);
        int limit = query.limit();
        AnswerBudget budget = new AnswerBudget(request, InflightBytes.STREAMED_COPIES);
        List<QuarantineEntry> first = pages.log().readQuarantine(stream, after, limit, StreamedPage.BATCH_BYTES,
                budget);
        if (first.isEmpty() && budget.refused()) {
            throw AnswerBudget.overloaded("the next quarantined event of " + stream, requestId);
        }
        // The rest of the page is read batch by batch as the reader takes it, as a page of events is.
        int[] count = {first.size()};
        long[] bytes = {StreamedPage.payloadBytes(first, ENTRIES)};
        StreamedPage.Batches<QuarantineEntry> batches = (last, next) -> {
            if (count[0] >= limit || bytes[0] >= ListQuery.PAGE_BYTES) {
                return List.of();
            }
            List<QuarantineEntry> entries = pages.slots().run("read the quarantine of " + stream, requestId, () ->
                    pages.log().readQuarantine(stream, last.seq(), limit - count[0],
                            Math.min(StreamedPage.BATCH_BYTES, ListQuery.PAGE_BYTES - bytes[0]), next));
            count[0] += entries.size();
            bytes[0] += StreamedPage.payloadBytes(entries, ENTRIES);
            return entries;
        };
        boolean firstIsAll = bytes[0] < StreamedPage.BATCH_BYTES; // the read ended before a batch's bytes
        return new StreamedPage<>(request, HttpResponses.JSON.createObjectNode(), "items", ENTRIES, first, firstIsAll,
                budget, batches, (written, last) -> {
                    ObjectNode body = HttpResponses.JSON.createObjectNode();
                    body.put("next_after", last == null ? after : last.seq());
                    body.put("count", written);
                    // Sequence numbers are dense from 1 and the quarantine is never trimmed: the head is how many
                    // there are.
                    body.put("total", head.quarantineHead());
                    body.put("completeness", "store");
                    return body;
                }, pages.workers().executor()).answer();
    }

    /** Quarantined entries as the listing shows them: the event between what arrived and what became of it. */
    private static final StreamedPage.Item<QuarantineEntry> ENTRIES = new StreamedPage.Item<>() {
        @Override
        public ObjectNode before(QuarantineEntry entry) {
            return HttpResponses.JSON.createObjectNode().put("seq", entry.seq())
                    .put("received_at", HttpResponses.time(entry.ingestedAtMicros()))
                    .put("request_id", entry.requestId());
        }

        @Override
        public byte[] payload(QuarantineEntry entry) {
            return entry.payload();
        }

        @Override
        public ObjectNode after(QuarantineEntry entry) {
            ObjectNode item = HttpResponses.JSON.createObjectNode();
            item.set("errors", StoredJson.value(entry.errorsJson()));
            RecordItems.replay(item, entry);
            return item;
        }

        @Override
        public QuarantineEntry withoutPayload(QuarantineEntry entry) {
            return new QuarantineEntry(entry.stream(), entry.seq(), entry.requestId(), entry.ingestedAtMicros(),
                    entry.schemaVersion(), null, null, entry.replay());
        }
    };

    private CompletableFuture<HttpAnswer> replay(HttpRequest request, List<String> path, String requestId) {
        String stream = path.get(0);
        if (pages.log().heads().get(stream) == null || pages.catalog().find(stream).isEmpty()) {
            return CompletableFuture.completedFuture(unknownStream(stream, requestId));
        }
        ReplayCommand command = command(request, requestId);
        Integer partition = partition(request, pages.catalog().find(stream).get(), requestId);
        // A replay reads and appends up to a request body's worth of quarantined events, as a publish of that size.
        if (!request.reserve(limits.maxBodyBytes() * InflightBytes.BODY_COPIES)) {
            throw AnswerBudget.overloaded("a replay of up to " + limits.maxBodyBytes() + " bytes of events", requestId);
        }
        return replayer.replay(stream, requestId, clock.instant(), command.selection(), command.dryRun(),
                request.caller(), partition).thenApply(QuarantineRoutes::respond);
    }

    /**
     * The partition {@code partition=} names, or null: a node sends the sequencer of a partition the entries whose
     * events go there this way (clients need not).
     */
    private static Integer partition(HttpRequest request, dev.interlace.runtime.stream.StreamDescriptor stream,
            String requestId) {
        String given = request.query().get(PartitionParameter.NAME);
        if (given == null) {
            return null;
        }
        try {
            int partition = Integer.parseInt(given);
            if (partition >= 0 && partition < stream.partitions()) {
                return partition;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw new Refusal(HttpResponses.error(ErrorCode.INVALID_PARAMETER, "partition must be an integer from 0 to "
                + (stream.partitions() - 1) + " for stream " + stream.name() + ", got \"" + given + "\"",
                requestId));
    }

    /** A replay body, checked field by field. */
    private record ReplayCommand(QuarantineReplayer.Selection selection, boolean dryRun) {}

    private static ReplayCommand command(HttpRequest request, String requestId) {
        JsonNode json;
        try {
            json = request.body().length > MAX_REPLAY_BODY_BYTES ? null : HttpResponses.JSON.readTree(request.body());
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new Refusal(HttpResponses.error(ErrorCode.MALFORMED_JSON, "the body is not JSON: "
                    + e.getOriginalMessage(), requestId));
        } catch (IOException e) {
            throw new IllegalStateException("unreachable: reading an in-memory body", e);
        }
        if (json == null || !json.isObject()) {
            throw invalid("send a JSON object of at most " + MAX_REPLAY_BODY_BYTES + " bytes:"
                    + " {\"seqs\": [1, 2]} or {\"all\": true}, with \"dry_run\": true to try first", requestId);
        }
        for (Iterator<String> names = json.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!REPLAY_FIELDS.contains(name)) {
                throw invalid("unknown field " + name + "; fields: "
                        + String.join(", ", new TreeSet<>(REPLAY_FIELDS)), requestId);
            }
        }
        JsonNode dryRun = json.get("dry_run");
        if (dryRun != null && !dryRun.isBoolean()) {
            throw invalid("dry_run must be true or false", requestId);
        }
        boolean dry = dryRun != null && dryRun.booleanValue();
        JsonNode seqs = json.get("seqs");
        JsonNode all = json.get("all");
        if ((seqs == null) == (all == null)) {
            throw invalid("send either \"seqs\": [<quarantine sequence numbers>] or \"all\":"
                    + " true", requestId);
        }
        if (all != null) {
            if (!all.isBoolean() || !all.booleanValue()) {
                throw invalid("all must be true; to replay some entries send \"seqs\" instead",
                        requestId);
            }
            JsonNode after = json.get("after");
            if (after != null && !(after.isIntegralNumber() && after.canConvertToLong() && after.asLong() >= 0)) {
                throw invalid("after must be a sequence number, 0 or more", requestId);
            }
            return new ReplayCommand(new QuarantineReplayer.Selection.All(after == null ? 0 : after.asLong()), dry);
        }
        if (json.has("after")) {
            throw invalid("after goes with \"all\" only", requestId);
        }
        if (!seqs.isArray() || seqs.isEmpty()) {
            throw invalid("seqs must be a non-empty array of quarantine sequence numbers",
                    requestId);
        }
        if (seqs.size() > QuarantineReplayer.MAX_ENTRIES) {
            throw invalid("at most " + QuarantineReplayer.MAX_ENTRIES + " seqs per request; send"
                    + " the rest in further requests, or \"all\": true with \"after\"", requestId);
        }
        List<Long> list = new ArrayList<>(seqs.size());
        for (JsonNode seq : seqs) {
            if (!seq.isIntegralNumber() || !seq.canConvertToLong() || seq.asLong() < 1) {
                throw invalid("seqs must be whole numbers, 1 or more; got " + seq, requestId);
            }
            list.add(seq.asLong());
        }
        return new ReplayCommand(new QuarantineReplayer.Selection.Seqs(list), dry);
    }

    /** Maps every replay outcome to its status and body; the only place replay statuses are decided. */
    private static HttpAnswer respond(ReplayOutcome outcome) {
        String requestId = outcome.requestId();
        if (outcome instanceof ReplayOutcome.Replayed replayed) {
            ObjectNode body = HttpResponses.JSON.createObjectNode();
            ArrayNode results = body.putArray("results");
            for (ReplayOutcome.EntryOutcome result : replayed.results()) {
                ObjectNode item = results.addObject();
                item.put("seq", result.seq());
                item.put("status", switch (result.status()) {
                    case ACCEPTED -> "accepted";
                    case DEDUPLICATED -> "deduplicated";
                    case INVALID -> "invalid";
                    case ALREADY_REPLAYED -> "already_replayed";
                });
                item.put("offset", result.offset());
                if (result.partition() != null) {
                    item.put("partition", result.partition());
                }
                ArrayNode errors = item.putArray("errors");
                for (FieldError error : result.errors()) {
                    errors.addObject().put("field", error.field()).put("reason", error.reason());
                }
            }
            body.put("accepted", replayed.count(ReplayOutcome.Status.ACCEPTED));
            body.put("deduplicated", replayed.count(ReplayOutcome.Status.DEDUPLICATED));
            body.put("invalid", replayed.count(ReplayOutcome.Status.INVALID));
            body.put("already_replayed", replayed.count(ReplayOutcome.Status.ALREADY_REPLAYED));
            body.put("dry_run", replayed.dryRun());
            if (replayed.nextAfter() != null) {
                body.put("next_after", replayed.nextAfter());
                body.put("more", replayed.more());
            }
            body.put("request_id", requestId);
            return HttpResponses.json(200, body);
        } else if (outcome instanceof ReplayOutcome.UnknownStream unknown) {
            return unknownStream(unknown.stream(), requestId);
        } else if (outcome instanceof ReplayOutcome.UnknownSeqs unknown) {
            return refusedEntries(ErrorCode.UNKNOWN_SEQ, "the quarantine of " + unknown.stream() + " has no entry "
                    + join(unknown.seqs()) + " (its entries are 1.." + unknown.quarantineHead()
                    + "); nothing was replayed", unknown.seqs(), requestId);
        } else if (outcome instanceof ReplayOutcome.TooLarge tooLarge) {
            return refusedEntries(ErrorCode.PAYLOAD_TOO_LARGE, "the events of the selected entries of "
                    + tooLarge.stream() + " are larger than the limit of " + tooLarge.maxBytes() + " bytes (a"
                    + " publish's); entries from " + tooLarge.seqs().get(0) + " on do not fit: replay them in another"
                    + " request; nothing was replayed", tooLarge.seqs(), requestId);
        } else if (outcome instanceof Backpressured backpressured) {
            return HttpResponses.backpressured(backpressured, "replayed");
        } else if (outcome instanceof ReplayOutcome.WrongPartition wrong) {
            return refusedEntries(ErrorCode.WRONG_PARTITION, "the events of entries " + join(wrong.seqs()) + " of "
                    + wrong.stream() + " go to other partitions than partition " + wrong.partition()
                    + "; nothing was replayed", wrong.seqs(), requestId);
        } else if (outcome instanceof ReplayOutcome.PartlyReplayed partly) {
            return partlyReplayed(partly);
        } else if (outcome instanceof ReplayOutcome.Unavailable unavailable) {
            return HttpResponses.logUnavailable(unavailable.reason(), unavailable.mayBeStored(),
                    unavailable.retryAfterSeconds(), "replayed",
                    "repeating the replay answers entries replayed then already_replayed", requestId);
        }
        throw new IllegalStateException("unknown replay outcome " + outcome);
    }

    /**
     * Some partitions' entries were replayed and the others' were not: the refusal's status and code, with a message
     * and fields naming the partitions of each ({@code replayed_partitions}, {@code not_replayed_partitions}).
     */
    private static HttpAnswer partlyReplayed(ReplayOutcome.PartlyReplayed partly) {
        HttpAnswer refused = respond(partly.refusal());
        ObjectNode body;
        try {
            body = (ObjectNode) HttpResponses.JSON.readTree(refused.body());
        } catch (IOException e) {
            throw new IllegalStateException("an error answer is not JSON", e);
        }
        body.put("message", "the entries of partitions " + partly.replayed() + " were replayed, those of partitions "
                + partly.notReplayed() + (body.path("may_be_stored").asBoolean() ? " may or may not have been: "
                : " were not: ") + body.path("message").asText().replace("nothing was replayed",
                "they were not replayed") + ". A retry answers the replayed entries already_replayed");
        ArrayNode replayed = body.putArray("replayed_partitions");
        partly.replayed().forEach(replayed::add);
        ArrayNode notReplayed = body.putArray("not_replayed_partitions");
        partly.notReplayed().forEach(notReplayed::add);
        HttpAnswer answer = HttpResponses.json(refused.status(), body);
        String retryAfter = refused.headers().get("Retry-After");
        return retryAfter == null ? answer : answer.header("Retry-After", retryAfter);
    }

    /** A replay refused because of some entries: {@code code}, naming them in {@code seqs}; nothing was replayed. */
    private static HttpAnswer refusedEntries(ErrorCode code, String message, List<Long> seqs, String requestId) {
        ObjectNode body = HttpResponses.errorBody(code, message, requestId);
        ArrayNode named = body.putArray("seqs");
        seqs.forEach(named::add);
        return HttpResponses.error(code, body);
    }

    private static String join(List<Long> seqs) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < seqs.size() && i < 20; i++) {
            text.append(i == 0 ? "" : ", ").append(seqs.get(i));
        }
        return seqs.size() > 20 ? text + ", \u2026 (" + seqs.size() + " in all)" : text.toString();
    }

    private static HttpAnswer unknownStream(String stream, String requestId) {
        return HttpResponses.error(ErrorCode.UNKNOWN_STREAM, "no stream is named \"" + stream
                + "\"; GET /streams lists them", requestId);
    }

    private static Refusal invalid(String message, String requestId) {
        return new Refusal(HttpResponses.error(ErrorCode.INVALID_REPLAY, message, requestId));
    }
}
