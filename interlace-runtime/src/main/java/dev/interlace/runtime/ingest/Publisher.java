package dev.interlace.runtime.ingest;

import dev.interlace.annotations.SchemaDrift;
import dev.interlace.client.ErrorCode;
import dev.interlace.runtime.auth.Caller;
import dev.interlace.runtime.auth.Quotas;
import dev.interlace.runtime.flush.RecentEvents;
import dev.interlace.runtime.log.AppendRequest;
import dev.interlace.runtime.log.Backpressure;
import dev.interlace.runtime.log.AppendResult;
import dev.interlace.runtime.log.LogUnavailableException;
import dev.interlace.runtime.log.NoSequencerException;
import dev.interlace.runtime.log.EventLog;
import dev.interlace.runtime.ops.EpochMicros;
import dev.interlace.runtime.records.SysEvent;
import dev.interlace.runtime.records.SysRecord;
import dev.interlace.runtime.records.SystemRecords;
import dev.interlace.runtime.ops.DiskSpace;
import dev.interlace.runtime.tracing.Tracing;
import dev.interlace.runtime.ops.Workers;
import dev.interlace.runtime.stream.DecodeResult;
import dev.interlace.runtime.stream.FieldError;
import dev.interlace.runtime.stream.StreamCatalog;
import dev.interlace.runtime.stream.StreamDescriptor;
import dev.interlace.runtime.stream.StreamPartitions;
import dev.interlace.runtime.stream.StreamEvent;
import dev.interlace.runtime.warehouse.Warehouse;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Publishes a request body to a stream: parses and validates every event, applies the stream's drift policy and
 * appends the result to the log; the outcome is known once it is durable (or refused).
 */
public final class Publisher {

    static final int BACKPRESSURE_RETRY_SECONDS = 1;
    static final int UNAVAILABLE_RETRY_SECONDS = 5;
    /** How long a publish waits for its group commit before answering 503 (a healthy commit takes milliseconds). */
    static final int APPEND_TIMEOUT_SECONDS = 60;

    private final StreamCatalog catalog;
    private final EventLog log;
    private final IngestLimits limits;
    private final DiskSpace disk;
    private final SystemRecords records;
    private final Clock clock;
    private final Workers workers;
    private final Quotas quotas;
    private final RecentEvents recent;
    private final RemoteParts remoteParts;
    /** Streams currently refusing publishes with 429: a system record marks each change. */
    private final java.util.Set<String> backpressured = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** The partition choosers of partitioned streams (round robin for keyless events), by stream. */
    private final java.util.Map<String, StreamPartitions.Chooser> choosers =
            new java.util.concurrent.ConcurrentHashMap<>();

    @Inject
    public Publisher(StreamCatalog catalog, EventLog log, IngestLimits limits, DiskSpace disk,
            SystemRecords records, Clock clock, Workers workers, Quotas quotas, RecentEvents recent,
            RemoteParts remoteParts) {
        this.remoteParts = remoteParts;
        this.workers = workers;
        this.recent = recent;
        this.quotas = quotas;
        this.catalog = catalog;
        this.log = log;
        this.limits = limits;
        this.disk = disk;
        this.records = records;
        this.clock = clock;
    }

    /** Whether {@code stream} is declared. */
    public Optional<StreamDescriptor> stream(String stream) {
        return catalog.find(stream);
    }

    /**
     * Publishes {@code body} (already decompressed and within the size limit).
     *
     * @param receivedAt when the request arrived
     * @param trace the request's trace: its id is kept in the publish record, and it is told how long the log took
     */
    public CompletableFuture<PublishOutcome> publish(String streamName, String requestId, Instant receivedAt,
            byte[] body, BodyFormat format, Caller caller, Tracing.PublishTrace trace) {
        return publish(streamName, -1, requestId, receivedAt, body, format, caller, trace);
    }

    /**
     * {@link #publish(String, String, Instant, byte[], BodyFormat, Caller, Tracing.PublishTrace)} into one partition
     * of a partitioned stream, {@code partition} (-1 for the stream as a whole): its keyless events go there, and an
     * event whose key belongs to another partition refuses the request ({@code 400 wrong_partition}).
     */
    public CompletableFuture<PublishOutcome> publish(String streamName, int partition, String requestId,
            Instant receivedAt, byte[] body, BodyFormat format, Caller caller, Tracing.PublishTrace trace) {
        Optional<StreamDescriptor> found = catalog.find(streamName);
        if (found.isEmpty()) {
            return CompletableFuture.completedFuture(new PublishOutcome.UnknownStream(requestId, streamName));
        }
        StreamDescriptor stream = found.get();
        int maxEvents = (int) Math.min(limits.maxEventsPerRequest(), limits.maxPending());
        List<EventParser.ParsedEvent> events;
        try {
            events = new EventParser(stream.decoder(), maxEvents).parse(body, format);
        } catch (EventParser.BodyException e) {
            return CompletableFuture.completedFuture(e.problem.withRequestId(requestId));
        }

        List<AppendRequest.Entry> entries = new ArrayList<>(events.size());
        List<List<FieldError>> quarantineErrors = new ArrayList<>(events.size());
        List<PublishOutcome.EventError> violations = new ArrayList<>();
        long violationCount = 0;
        int rejectedEvents = 0;
        int keyIndex = stream.idempotencyKeyIndex();
        int partitionKeyIndex = stream.partitionKeyIndex();
        int[] partitionOf = stream.partitioned() ? new int[events.size()] : null;
        StreamPartitions.Chooser chooser = stream.partitioned()
                ? choosers.computeIfAbsent(stream.name(), name -> new StreamPartitions.Chooser(stream.partitions()))
                : null;
        for (EventParser.ParsedEvent event : events) {
            if (event.result() instanceof DecodeResult.Valid<? extends StreamEvent> valid) {
                String key = keyIndex < 0 ? null : IdempotencyKeys.canonical(valid.event().value(keyIndex));
                if (chooser != null) {
                    String hashed = partitionKeyIndex < 0 ? key
                            : IdempotencyKeys.canonical(valid.event().value(partitionKeyIndex));
                    int chosen = hashed == null && partition >= 0 ? partition : chooser.partition(hashed);
                    if (partition >= 0 && chosen != partition) {
                        return CompletableFuture.completedFuture(new PublishOutcome.BadBody(requestId,
                                ErrorCode.WRONG_PARTITION, "event " + event.index() + " belongs to partition "
                                + chosen + " of stream " + stream.name() + " (by its "
                                + (partitionKeyIndex < 0 ? "idempotency key" : "partition key") + "), not to"
                                + " partition " + partition + "; publish it without partition=, or to its own",
                                event.index(), event.line(), null));
                    }
                    partitionOf[entries.size()] = chosen;
                }
                entries.add(new AppendRequest.Event(event.payload(), key));
                quarantineErrors.add(List.of());
            } else if (event.result() instanceof DecodeResult.Invalid<? extends StreamEvent> invalid) {
                if (stream.onSchemaDrift() == SchemaDrift.QUARANTINE) {
                    List<FieldError> kept = quarantinedErrors(invalid);
                    entries.add(new AppendRequest.Quarantined(event.payload(), kept));
                    quarantineErrors.add(kept);
                } else {
                    rejectedEvents++;
                    violationCount += invalid.errorCount();
                    for (FieldError error : invalid.errors()) {
                        if (violations.size() == PublishOutcome.SchemaViolation.MAX_LISTED) {
                            break;
                        }
                        violations.add(new PublishOutcome.EventError(event.index(), event.line(), error.field(),
                                error.reason()));
                    }
                }
            }
        }
        if (rejectedEvents > 0) {
            return CompletableFuture.completedFuture(new PublishOutcome.SchemaViolation(requestId, violations,
                    violationCount, rejectedEvents));
        }
        // The body as decompressed is what the log and the warehouse will hold, so that is what the byte quota counts.
        Optional<Quotas.Refusal> refusal = quotas.take(caller, entries.size(), body.length);
        if (refusal.isPresent()) {
            return CompletableFuture.completedFuture(new PublishOutcome.RateLimited(requestId, caller.keyName(),
                    refusal.get().limit(), caller.key().quotaEventsPerSecond(), caller.key().quotaBytesPerSecond(),
                    refusal.get().retryAfterSeconds()));
        }
        if (!entries.isEmpty() && disk.usableBytes() < limits.minFreeDiskBytes()) {
            return CompletableFuture.completedFuture(new PublishOutcome.Unavailable(requestId, "free disk space is"
                    + " below the floor of " + limits.minFreeDiskBytes() + " bytes", UNAVAILABLE_RETRY_SECONDS, false));
        }

        long receivedAtMicros = EpochMicros.of(receivedAt);
        if (partitionOf != null) {
            // Quarantined events of a partitioned stream are kept with partition 0 (partitionOf is 0 for them).
            return new PartitionedPublish(this, stream, requestId, receivedAtMicros, caller, trace, events,
                    quarantineErrors).publish(entries, partitionOf);
        }
        AppendRequest request = new AppendRequest(stream.name(), requestId, receivedAtMicros,
                stream.schemaVersion(), entries, caller.keyId(), caller.keyName(), trace.traceId());
        // The outcome (and the answer after it) is built on the thread that completes the append (a thread of the log,
        // for a lone request possibly its writer), so that no worker is woken up just to build a few hundred bytes; the
        // answer of a request with many events (a verbose one lists them all) is built on a worker, so that it never
        // holds up the answers of the requests committed after it.
        CompletableFuture<AppendResult> appended = append(request, trace);
        java.util.function.BiFunction<AppendResult, Throwable, PublishOutcome> decide = (result, failure) ->
                failure == null ? outcome(stream, request, result, events, quarantineErrors)
                        : unavailable(requestId, failure);
        return entries.size() <= ANSWERED_WHERE_COMMITTED ? appended.handle(decide)
                : appended.handleAsync(decide, workers.executor());
    }

    /** Requests of up to this many events are answered on the thread that completes their append. */
    static final int ANSWERED_WHERE_COMMITTED = 64;

    /**
     * Whether {@link #publish} returns without waiting for anything but the CPU (the log only queues the append), so
     * that a small body may be published from the HTTP transport's I/O thread.
     */
    public boolean publishesWithoutWaiting() {
        return log.appendReturnsAtOnce();
    }

    /**
     * Appends one request to the log, within the commit deadline, telling the trace once it is committed. Never waits
     * when the log appends at once ({@link #publishesWithoutWaiting}): a request it cannot queue at once is appended
     * on a worker.
     */
    CompletableFuture<AppendResult> append(AppendRequest request, Tracing.PublishTrace trace) {
        long handedOverMicros = micros();
        CompletableFuture<AppendResult> appended = log.appendReturnsAtOnce() ? log.appendAtOnce(request)
                : log.append(request);
        if (appended == null) {
            try {
                appended = CompletableFuture.supplyAsync(() -> log.append(request), workers.executor())
                        .thenCompose(queued -> queued);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                appended = CompletableFuture.failedFuture(new LogUnavailableException("the server is stopping", e));
            }
        }
        return Deadlines.within(appended, APPEND_TIMEOUT_SECONDS, TimeUnit.SECONDS)
                .whenComplete((result, failure) -> {
                    if (result instanceof AppendResult.Committed) {
                        trace.logged(handedOverMicros, micros());
                    }
                });
    }

    /** Where the parts of a partitioned publish are appended. */
    RemoteParts remoteParts() {
        return remoteParts;
    }

    /** The executor answers of many events are built on. */
    java.util.concurrent.Executor answering() {
        return workers.executor();
    }

    PublishOutcome unavailable(String requestId, Throwable failure) {
        Throwable cause = failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
        if (cause instanceof TimeoutException) {
            return new PublishOutcome.Unavailable(requestId, "the log did not confirm the write within "
                    + APPEND_TIMEOUT_SECONDS + " s", UNAVAILABLE_RETRY_SECONDS, true);
        }
        if (cause instanceof LogUnavailableException unavailable) {
            return new PublishOutcome.Unavailable(requestId, unavailable.getMessage(), UNAVAILABLE_RETRY_SECONDS,
                    unavailable.mayBeStored());
        }
        if (cause instanceof NoSequencerException none) {
            return new PublishOutcome.NoSequencer(requestId, none.stream(), none.getMessage(),
                    none.retryAfterSeconds());
        }
        throw new IllegalStateException("the stream log failed unexpectedly", cause);
    }

    private PublishOutcome outcome(StreamDescriptor stream, AppendRequest request, AppendResult result,
            List<EventParser.ParsedEvent> events, List<List<FieldError>> quarantineErrors) {
        return outcome(stream, request, result, events, quarantineErrors, true);
    }

    /**
     * The outcome of one append; {@code appendedHere} when this node's log wrote it (its events are then kept for
     * this node's flusher), not when another node did.
     */
    PublishOutcome outcome(StreamDescriptor stream, AppendRequest request, AppendResult result,
            List<EventParser.ParsedEvent> events, List<List<FieldError>> quarantineErrors, boolean appendedHere) {
        String requestId = request.requestId();
        if (result instanceof Backpressure backpressure) {
            if (backpressured.add(stream.name())) {
                records.record(SysRecord.of(micros(), SysEvent.BACKPRESSURE_ON, stream.name(), requestId, "stream "
                        + stream.name() + " refuses publishes with 429: " + backpressure.pending() + " entries"
                        + " pending, max-pending " + backpressure.maxPending()));
            }
            return Backpressured.of(requestId, stream.name(), backpressure);
        }
        AppendResult.Committed committed = (AppendResult.Committed) result;
        if (!backpressured.isEmpty() && backpressured.remove(stream.name())) {
            records.record(SysRecord.of(micros(), SysEvent.BACKPRESSURE_OFF, stream.name(), requestId, "stream "
                    + stream.name() + " accepts publishes again"));
        }
        if (appendedHere && recent.keeps()) {
            keepRecent(stream, request, committed, events);
        }
        return new PublishOutcome.Published(requestId, committed.entries(), quarantineErrors);
    }

    /**
     * Hands the request's accepted events, now durable and with their offsets, to the flusher as the rows it would
     * decode from them. The request's entries are its events in order (one that failed validation on a stream that
     * rejects drift refused the whole request before the append), so the results and the events match by index.
     */
    private void keepRecent(StreamDescriptor stream, AppendRequest request, AppendResult.Committed committed,
            List<EventParser.ParsedEvent> events) {
        if (committed.entries().size() != events.size()) {
            return; // not the request's events one for one: the flusher reads them from the log
        }
        List<Warehouse.Row> rows = new ArrayList<>();
        long payloadBytes = 0;
        for (int i = 0; i < committed.entries().size(); i++) {
            AppendResult.EntryResult entry = committed.entries().get(i);
            if (entry.status() == AppendResult.Status.ACCEPTED
                    && events.get(i).result() instanceof DecodeResult.Valid<? extends StreamEvent> valid) {
                rows.add(Warehouse.Row.decoded(entry.offset(), request.receivedAtMicros(), request.requestId(), stream,
                        valid));
                payloadBytes += events.get(i).payload().length;
            }
        }
        recent.add(request.stream(), rows, payloadBytes, request.traceId());
    }

    /**
     * The errors stored with a quarantined event: those the decoder kept and, when it found more, one last entry
     * saying how many in all, so that the count survives where the list could not.
     */
    static List<FieldError> quarantinedErrors(DecodeResult.Invalid<? extends StreamEvent> invalid) {
        if (!invalid.truncated()) {
            return invalid.errors();
        }
        List<FieldError> kept = new ArrayList<>(invalid.errors());
        kept.add(new FieldError(OMITTED_FIELD, (invalid.errorCount() - invalid.errors().size())
                + " more errors not kept; " + invalid.errorCount() + " in all"));
        return kept;
    }

    /** The field of the entry that counts the errors of a quarantined event beyond those kept. */
    static final String OMITTED_FIELD = "...";

    private long micros() {
        return EpochMicros.now(clock);
    }

    /** Now, for callers that stamp the arrival time before reading the body. */
    public Instant now() {
        return clock.instant();
    }
}
