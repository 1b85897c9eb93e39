package dev.interlace.runtime.ingest;

import dev.interlace.runtime.auth.Caller;
import dev.interlace.runtime.log.AppendRequest;
import dev.interlace.runtime.log.AppendResult;
import dev.interlace.runtime.tracing.Tracing;
import dev.interlace.runtime.stream.FieldError;
import dev.interlace.runtime.stream.StreamDescriptor;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * One publish to a stream with several partitions: the request's entries split by partition, each part appended to
 * its partition's log stream as a request of its own (same request id, all at once), the answer put back together
 * in request order once every part is decided. A part is atomic; the parts are not one transaction: when some are
 * stored and others refused, the outcome says which ({@link PublishOutcome.PartlyStored}).
 */
final class PartitionedPublish {

    private final Publisher publisher;
    private final StreamDescriptor stream;
    private final String requestId;
    private final long receivedAtMicros;
    private final Caller caller;
    private final Tracing.PublishTrace trace;
    private final List<EventParser.ParsedEvent> events;
    private final List<List<FieldError>> quarantineErrors;

    PartitionedPublish(Publisher publisher, StreamDescriptor stream, String requestId, long receivedAtMicros,
            Caller caller, Tracing.PublishTrace trace, List<EventParser.ParsedEvent> events,
            List<List<FieldError>> quarantineErrors) {
        this.publisher = publisher;
        this.stream = stream;
        this.requestId = requestId;
        this.receivedAtMicros = receivedAtMicros;
        this.caller = caller;
        this.trace = trace;
        this.events = events;
        this.quarantineErrors = quarantineErrors;
    }

    /** One partition's share of the request: the indexes (in the request) of its entries, and its append. */
    private record Part(int partition, List<Integer> indexes, AppendRequest request,
            CompletableFuture<AppendResult> appended, boolean elsewhere) {}

    /**
     * Appends the parts; {@code partitionOf[i]} is entry i's partition. The request's entries are its events in order
     * (a stream that rejects drift refused the whole request before), so entries and events match by index.
     */
    CompletableFuture<PublishOutcome> publish(List<AppendRequest.Entry> entries, int[] partitionOf) {
        TreeMap<Integer, List<Integer>> byPartition = new TreeMap<>();
        for (int i = 0; i < entries.size(); i++) {
            byPartition.computeIfAbsent(partitionOf[i], p -> new ArrayList<>()).add(i);
        }
        if (byPartition.isEmpty()) {
            byPartition.put(0, List.of()); // an empty request still gets an answer from partition 0
        }
        List<Part> parts = new ArrayList<>(byPartition.size());
        for (var share : byPartition.entrySet()) {
            List<AppendRequest.Entry> partEntries = new ArrayList<>(share.getValue().size());
            share.getValue().forEach(i -> partEntries.add(entries.get(i)));
            AppendRequest request = new AppendRequest(stream.logStream(share.getKey()).name(), requestId,
                    receivedAtMicros, stream.schemaVersion(), partEntries, caller.keyId(), caller.keyName(),
                    trace.traceId());
            CompletableFuture<AppendResult> appended;
            java.util.Optional<String> elsewhere = publisher.remoteParts().holderElsewhere(request.stream());
            try {
                if (elsewhere.isPresent()) {
                    List<byte[]> payloads = new ArrayList<>(partEntries.size());
                    partEntries.forEach(entry -> payloads.add(entry.payload()));
                    appended = publisher.remoteParts().append(elsewhere.get(), stream.name(), share.getKey(),
                            requestId, payloads, caller.keyId(), caller.keyName());
                } else {
                    appended = publisher.append(request, trace);
                }
            } catch (RuntimeException e) {
                appended = CompletableFuture.failedFuture(e);
            }
            parts.add(new Part(share.getKey(), share.getValue(), request, appended, elsewhere.isPresent()));
        }
        CompletableFuture<?>[] all = parts.stream().map(Part::appended).toArray(CompletableFuture[]::new);
        CompletableFuture<Void> decided = CompletableFuture.allOf(all).handle((ignored, failure) -> null);
        return entries.size() <= Publisher.ANSWERED_WHERE_COMMITTED ? decided.thenApply(done -> outcome(parts, entries))
                : decided.thenApplyAsync(done -> outcome(parts, entries), publisher.answering());
    }

    private PublishOutcome outcome(List<Part> parts, List<AppendRequest.Entry> entries) {
        AppendResult.EntryResult[] results = new AppendResult.EntryResult[entries.size()];
        int[] partitions = new int[entries.size()];
        SortedMap<Integer, Long> stored = new TreeMap<>();
        List<Integer> notStored = new ArrayList<>();
        PublishOutcome refusal = null;
        for (Part part : parts) {
            List<EventParser.ParsedEvent> partEvents = new ArrayList<>(part.indexes().size());
            List<List<FieldError>> partErrors = new ArrayList<>(part.indexes().size());
            for (int i : part.indexes()) {
                partEvents.add(events.get(i));
                partErrors.add(quarantineErrors.get(i));
            }
            StreamDescriptor logStream = stream.logStream(part.partition());
            PublishOutcome outcome;
            AppendResult result = part.appended().isCompletedExceptionally() ? null : part.appended().join();
            if (result == null) {
                Throwable failure = part.appended().handle((r, e) -> e).join();
                outcome = publisher.unavailable(requestId, failure);
            } else {
                outcome = publisher.outcome(logStream, part.request(), result, partEvents, partErrors,
                        !part.elsewhere());
            }
            if (outcome instanceof PublishOutcome.Published published) {
                long last = -1;
                for (int k = 0; k < part.indexes().size(); k++) {
                    AppendResult.EntryResult entry = published.results().get(k);
                    results[part.indexes().get(k)] = entry;
                    partitions[part.indexes().get(k)] = part.partition();
                    if (entry.status() != AppendResult.Status.QUARANTINED) {
                        last = Math.max(last, entry.offset());
                    }
                }
                stored.put(part.partition(), last);
            } else {
                notStored.add(part.partition());
                if (refusal == null) {
                    refusal = outcome;
                }
            }
        }
        if (refusal == null) {
            return new PublishOutcome.Published(requestId, List.of(results), quarantineErrors, stream.name(),
                    partitions);
        }
        return stored.isEmpty() ? refusal
                : new PublishOutcome.PartlyStored(requestId, stream.name(), refusal, stored, notStored);
    }
}
