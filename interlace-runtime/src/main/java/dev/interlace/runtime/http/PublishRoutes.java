package dev.interlace.runtime.http;

import dev.interlace.runtime.stream.StreamPartitions;

import dev.interlace.client.ErrorCode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.interlace.runtime.auth.Quotas;
import dev.interlace.runtime.ingest.Backpressured;
import dev.interlace.runtime.ingest.IngestLimits;
import dev.interlace.runtime.ingest.PublishOutcome;
import dev.interlace.runtime.ingest.Publisher;
import dev.interlace.runtime.log.AppendResult;
import dev.interlace.runtime.ops.EpochMicros;
import dev.interlace.runtime.tracing.Tracing;
import dev.interlace.runtime.stream.FieldError;
import jakarta.inject.Inject;
import java.io.IOException;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/** {@code POST /streams/{name}}: the publish endpoint (docs/rest-api.md). */
final class PublishRoutes implements RouteSet {

    /** Bytes of listed errors in a 422 body, leaving room for the rest within 64 KiB. */
    private static final int MAX_LISTED_ERROR_BYTES = 60 * 1024;

    /** The query parameters publish takes. */
    private static final Set<String> PARAMETERS = Set.of("verbose", PartitionParameter.NAME);

    private final Publisher publisher;
    private final IngestLimits limits;
    private final PublishMetrics metrics;
    private final PageSlots slots;
    private final Tracing tracing;

    @Inject
    PublishRoutes(Publisher publisher, IngestLimits limits, PublishMetrics metrics, PageSlots slots, Tracing tracing) {
        this.tracing = tracing;
        this.publisher = publisher;
        this.limits = limits;
        this.metrics = metrics;
        this.slots = slots;
    }

    /**
     * Uncompressed bodies up to this size (a few dozen events, parsed in microseconds) are published from the I/O
     * thread that read them when the log only queues appends; larger or compressed ones on a worker.
     */
    static final int INLINE_BODY_BYTES = 16 * 1024;

    @Override
    public void register(List<Route> routes) {
        routes.add(Route.async("POST", "/streams/{name}", Access.PUBLISH_TO_STREAM, this::publish)
                .placedOn(Route.Placement.SEQUENCER).inlineWhen(this::servedInline));
    }

    private boolean servedInline(HttpRequest request) {
        byte[] body = request.body();
        return body != null && body.length <= INLINE_BODY_BYTES && request.header("Content-Encoding") == null
                && publisher.publishesWithoutWaiting();
    }

    private CompletableFuture<HttpAnswer> publish(HttpRequest request, List<String> path, String requestId) {
        long startedNanos = System.nanoTime();
        String stream = path.get(0);
        CompletableFuture<HttpAnswer> answer;
        try {
            answer = receive(request, stream, requestId);
        } catch (RuntimeException e) {
            answer = CompletableFuture.failedFuture(e);
        }
        return answer.whenComplete((sent, failure) -> {
            int status = sent == null ? 500 : sent.status();
            metrics.answered(stream, status, System.nanoTime() - startedNanos);
            metrics.answeredBy(stream, request.caller().label(), status);
        });
    }

    private CompletableFuture<HttpAnswer> receive(HttpRequest request, String stream, String requestId) {
        Instant receivedAt = publisher.now();
        if (publisher.stream(stream).isEmpty()) {
            return done(respond(stream, new PublishOutcome.UnknownStream(requestId, stream), false));
        }
        ListQuery query = ListQuery.of(request, requestId, PARAMETERS);
        boolean verbose = query.flag("verbose", false);
        // partition=: these events go to that partition (a node sends its share of a request to the partition's
        // sequencer this way); without it the request is split by partition.
        int partition = (int) query.number(PartitionParameter.NAME, -1, 0,
                publisher.stream(stream).get().partitions() - 1);
        MediaType mediaType = MediaType.parse(request.header("Content-Type"));
        if (mediaType.format() == null) {
            return done(HttpResponses.error(ErrorCode.UNSUPPORTED_MEDIA_TYPE, mediaType.problem(), requestId));
        }
        String encoding = request.header("Content-Encoding");
        boolean gzip = encoding != null && encoding.strip().equalsIgnoreCase("gzip");
        if (encoding != null && !gzip && !encoding.strip().equalsIgnoreCase("identity")) {
            return done(HttpResponses.error(ErrorCode.UNSUPPORTED_MEDIA_TYPE, "Content-Encoding \"" + encoding
                    + "\" is not supported; send the body uncompressed or with Content-Encoding: gzip", requestId));
        }
        byte[] body = request.body();
        if (gzip) {
            try {
                byte[] compressed = body;
                body = slots.run("decompress this body", requestId,
                        () -> GzipBody.decompress(compressed, limits.maxBodyBytes(), request::reserve));
            } catch (IOException e) {
                return done(HttpResponses.error(ErrorCode.MALFORMED_JSON, "the body is not valid gzip: "
                        + e.getMessage(), requestId));
            } catch (Refusal busy) {
                return done(busy.answer());
            } catch (GzipBody.OverBudget e) {
                return done(AnswerBudget.overloaded("this body once decompressed (" + e.getMessage() + " so far)",
                        requestId).answer());
            }
        }
        if (body == null || body.length > limits.maxBodyBytes()) {
            return done(HttpResponses.error(ErrorCode.PAYLOAD_TOO_LARGE, "the body is larger than the limit of "
                    + limits.maxBodyBytes() + " bytes" + (gzip ? " once decompressed" : ""), requestId));
        }
        Tracing.PublishTrace trace = tracing.publishStarted(stream, requestId, EpochMicros.of(receivedAt),
                request.header("traceparent"), request.header("tracestate"));
        return publisher.publish(stream, partition, requestId, receivedAt, body, mediaType.format(),
                request.caller(), trace)
                .thenApply(outcome -> {
            metrics.decided(stream, outcome);
            HttpAnswer answer = respond(stream, outcome, verbose);
            trace.answered(answer.status(),
                    outcome instanceof PublishOutcome.Published published ? published.counts() : null);
            return answer;
        }).whenComplete((answer, failure) -> {
            if (failure != null) {
                trace.answered(500, null);
            }
        });
    }

    private static int encodedLength(ObjectNode item) {
        try {
            return HttpResponses.JSON.writeValueAsBytes(item).length;
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("an error item cannot be written as JSON", e);
        }
    }

    private static CompletableFuture<HttpAnswer> done(HttpAnswer answer) {
        return CompletableFuture.completedFuture(answer);
    }

    /** Maps every outcome to its status and body; the only place publish statuses are decided. */
    private static HttpAnswer respond(String stream, PublishOutcome outcome, boolean verbose) {
        String requestId = outcome.requestId();
        if (outcome instanceof PublishOutcome.Published published) {
            ObjectNode body = HttpResponses.JSON.createObjectNode();
            body.put("accepted", published.count(AppendResult.Status.ACCEPTED));
            body.put("deduplicated", published.count(AppendResult.Status.DUPLICATE));
            body.put("quarantined", published.count(AppendResult.Status.QUARANTINED));
            body.put("last_offset", published.lastOffset());
            // What a warehouse request passes back in Interlace-After to see these events (ReadAfter).
            if (published.partitioned()) {
                body.put("position", positions(stream, published.lastOffsets()));
                putPartitions(body.putArray("partitions"), stream, published.lastOffsets());
            } else {
                body.put("position", published.lastOffset() == null ? null : stream + ":" + published.lastOffset());
            }
            body.put("request_id", requestId);
            if (verbose) {
                ArrayNode results = body.putArray("results");
                for (int i = 0; i < published.results().size(); i++) {
                    AppendResult.EntryResult result = published.results().get(i);
                    ObjectNode item = results.addObject();
                    item.put("index", i);
                    item.put("status", switch (result.status()) {
                        case ACCEPTED -> "accepted";
                        case DUPLICATE -> "duplicate";
                        case QUARANTINED -> "quarantined";
                    });
                    if (published.partitioned()) {
                        item.put("partition", published.partitions()[i]);
                    }
                    ArrayNode errors;
                    if (result.status() == AppendResult.Status.QUARANTINED) {
                        item.putNull("offset");
                        item.put("quarantine_seq", result.offset());
                        errors = item.putArray("errors");
                        for (FieldError error : published.quarantineErrors().get(i)) {
                            errors.addObject().put("field", error.field()).put("reason", error.reason());
                        }
                    } else {
                        item.put("offset", result.offset());
                        item.putArray("errors");
                    }
                }
            }
            return HttpResponses.json(200, body);
        } else if (outcome instanceof PublishOutcome.PartlyStored partly) {
            return partlyStored(stream, partly);
        } else if (outcome instanceof PublishOutcome.UnknownStream unknown) {
            return HttpResponses.error(ErrorCode.UNKNOWN_STREAM, "no stream is named \"" + unknown.stream()
                    + "\"; GET /streams lists them", requestId);
        } else if (outcome instanceof PublishOutcome.BadBody bad) {
            ObjectNode body = HttpResponses.errorBody(bad.code(), bad.message(), requestId);
            if (bad.index() >= 0) {
                body.put("index", bad.index());
            }
            if (bad.line() > 0) {
                body.put("line", bad.line());
            }
            if (bad.field() != null) {
                body.put("field", bad.field());
            }
            return HttpResponses.error(bad.code(), body);
        } else if (outcome instanceof PublishOutcome.SchemaViolation violation) {
            ArrayNode errors = HttpResponses.JSON.createArrayNode();
            int listedBytes = 0;
            for (PublishOutcome.EventError error : violation.errors()) {
                ObjectNode item = HttpResponses.JSON.createObjectNode();
                item.put("index", error.index());
                if (error.line() > 0) {
                    item.put("line", error.line());
                }
                item.put("field", error.field());
                item.put("reason", error.reason());
                listedBytes += encodedLength(item) + 1;
                if (listedBytes > MAX_LISTED_ERROR_BYTES) {
                    break;
                }
                errors.add(item);
            }
            boolean cut = errors.size() < violation.errorCount();
            ObjectNode body = HttpResponses.errorBody(ErrorCode.SCHEMA_VIOLATION, violation.errorCount() + " field error(s) in "
                    + violation.rejectedEvents() + " event(s)" + (cut ? ", the first " + errors.size() + " listed" : "")
                    + "; nothing was stored. Fix the events listed in errors and resend", requestId);
            body.set("errors", errors);
            body.put("error_count", violation.errorCount());
            body.put("errors_truncated", cut);
            return HttpResponses.error(ErrorCode.SCHEMA_VIOLATION, body);
        } else if (outcome instanceof Backpressured backpressured) {
            return HttpResponses.backpressured(backpressured, "stored");
        } else if (outcome instanceof PublishOutcome.RateLimited limited) {
            String allowed = limited.limit() == Quotas.Limit.BYTES
                    ? limited.quotaBytesPerSecond() + " bytes per second (of request body, after gzip decompression)"
                    : limited.quotaEventsPerSecond() + " events per second";
            ObjectNode body = HttpResponses.errorBody(ErrorCode.RATE_LIMITED, "key " + limited.keyName() + " may publish "
                    + allowed + "; nothing was stored, retry after " + limited.retryAfterSeconds() + " s", requestId);
            body.put("limit", limited.limit().wireName());
            body.put("quota_events_per_second", limited.quotaEventsPerSecond());
            body.put("quota_bytes_per_second", limited.quotaBytesPerSecond());
            return HttpResponses.error(ErrorCode.RATE_LIMITED, body).header("Retry-After", Integer.toString(limited.retryAfterSeconds()));
        } else if (outcome instanceof PublishOutcome.Unavailable unavailable) {
            return HttpResponses.logUnavailable(unavailable.reason(), unavailable.mayBeStored(),
                    unavailable.retryAfterSeconds(), "stored",
                    "a retry is deduplicated to it when the stream has an idempotency key", requestId);
        } else if (outcome instanceof PublishOutcome.NoSequencer none) {
            return HttpResponses.error(ErrorCode.NO_SEQUENCER, none.reason() + "; nothing was stored, retry later",
                    requestId).header("Retry-After", Integer.toString(none.retryAfterSeconds()));
        }
        throw new IllegalStateException("unknown publish outcome " + outcome);
    }

    /**
     * The positions of a partitioned stream's partitions, as {@code Interlace-After} takes them: {@code orders:5} for
     * partition 0, {@code orders__p1:7} for partition 1 (the partition's log stream), comma-separated; null when none.
     */
    private static String positions(String stream, java.util.SortedMap<Integer, Long> lastOffsets) {
        StringBuilder positions = new StringBuilder();
        lastOffsets.forEach((partition, last) -> {
            if (last >= 0) {
                positions.append(positions.length() == 0 ? "" : ",")
                        .append(StreamPartitions.logStream(stream, partition)).append(':').append(last);
            }
        });
        return positions.length() == 0 ? null : positions.toString();
    }

    /** {@code partitions}: each partition the request's events fell in, its {@code last_offset} and position. */
    private static void putPartitions(ArrayNode partitions, String stream,
            java.util.SortedMap<Integer, Long> lastOffsets) {
        lastOffsets.forEach((partition, last) -> {
            ObjectNode item = partitions.addObject();
            item.put("partition", partition);
            if (last >= 0) {
                item.put("last_offset", last);
                item.put("position", StreamPartitions.logStream(stream, partition) + ":" + last);
            } else {
                item.putNull("last_offset");
                item.putNull("position");
            }
        });
    }

    /**
     * Some parts of a partitioned publish are stored and some are not: the refusal's status and code, with a message
     * and fields naming the parts stored ({@code stored_partitions}, with their offsets) and those not.
     */
    private static HttpAnswer partlyStored(String stream, PublishOutcome.PartlyStored partly) {
        HttpAnswer refused = respond(stream, partly.refusal(), false);
        ObjectNode body;
        try {
            body = (ObjectNode) HttpResponses.JSON.readTree(refused.body());
        } catch (java.io.IOException e) {
            throw new IllegalStateException("an error answer is not JSON", e);
        }
        boolean mayBeStored = body.path("may_be_stored").asBoolean();
        body.put("message", "the events of partitions " + partly.stored().keySet() + " are stored, those of"
                + " partitions " + partly.notStored() + (mayBeStored ? " may or may not be: " : " are not: ")
                + body.path("message").asText().replace("nothing was stored", "they were not stored")
                + ". A retry of the whole request is"
                + " deduplicated partition by partition when the stream has an idempotency key");
        putPartitions(body.putArray("stored_partitions"), stream, partly.stored());
        ArrayNode notStored = body.putArray("not_stored_partitions");
        partly.notStored().forEach(notStored::add);
        HttpAnswer answer = HttpResponses.json(refused.status(), body);
        String retryAfter = refused.headers().get("Retry-After");
        return retryAfter == null ? answer : answer.header("Retry-After", retryAfter);
    }

    /** The body formats, from the Content-Type header. */
    record MediaType(dev.interlace.runtime.ingest.BodyFormat format, String problem) {

        static MediaType parse(String header) {
            if (header == null || header.isBlank()) {
                return unsupported("the request has no Content-Type; send application/json or"
                        + " application/x-ndjson");
            }
            String[] parts = header.split(";");
            String type = parts[0].strip().toLowerCase(Locale.ROOT);
            for (int i = 1; i < parts.length; i++) {
                String[] parameter = parts[i].split("=", 2);
                if (parameter[0].strip().equalsIgnoreCase("charset") && parameter.length == 2) {
                    String charset = parameter[1].strip().replace("\"", "");
                    if (!charset.equalsIgnoreCase("utf-8") && !charset.equalsIgnoreCase("utf8")) {
                        return unsupported("charset " + charset + " is not supported; send UTF-8");
                    }
                }
            }
            return switch (type) {
                case "application/json" -> new MediaType(dev.interlace.runtime.ingest.BodyFormat.JSON, null);
                case "application/x-ndjson" ->
                        new MediaType(dev.interlace.runtime.ingest.BodyFormat.NDJSON, null);
                default -> unsupported("Content-Type " + type + " is not supported; send application/json or"
                        + " application/x-ndjson");
            };
        }

        private static MediaType unsupported(String problem) {
            return new MediaType(null, problem);
        }
    }
}
