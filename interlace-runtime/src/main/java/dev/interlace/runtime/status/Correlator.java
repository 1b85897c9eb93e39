package dev.interlace.runtime.status;

import dev.interlace.runtime.warehouse.FlushRecord;
import dev.interlace.runtime.warehouse.FlushRecords;
import dev.interlace.runtime.ingest.IdempotencyKeys;
import dev.interlace.runtime.log.LogEntry;
import dev.interlace.runtime.log.PublishRecord;
import dev.interlace.runtime.log.QuarantineEntry;
import dev.interlace.runtime.log.StreamLog;
import dev.interlace.runtime.log.Watermarks;
import dev.interlace.runtime.model.ModelRunner;
import dev.interlace.runtime.warehouse.RunRecord;
import dev.interlace.runtime.warehouse.StreamTables.Target;
import dev.interlace.runtime.warehouse.Trigger;
import dev.interlace.runtime.records.ApiRecord;
import dev.interlace.runtime.records.RefusedRequests;
import dev.interlace.runtime.stream.StreamCatalog;
import dev.interlace.runtime.stream.StreamDescriptor;
import dev.interlace.runtime.stream.StreamPartitions;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * "Where is my event?": follows one request (by its id, or by an event's idempotency key) through what the server
 * keeps of it: its publish record or its refusal, the events it wrote and how many are materialised, the requests
 * that first wrote the keys it repeated, the flushes that hold its events, the model runs those flushes triggered,
 * its quarantined events (and where they were replayed to) and, for a quarantine replay, the quarantined entries
 * its events came from. It answers a {@link Correlation} value; {@code GET /correlate} renders it as JSON.
 */
public final class Correlator {

    /** Most items listed per section of a correlation; a section's {@code total} says how many there are. */
    public static final int SECTION_LIMIT = 100;
    /** The most event bytes one read of the log holds while looking up which requests wrote some offsets. */
    private static final long READ_BYTES = 8L << 20;

    private final StreamCatalog catalog;
    private final StreamLog log;
    private final Watermarks watermarks;
    private final Optional<FlushRecords> warehouse;
    private final Optional<ModelRunner> runner;
    private final RefusedRequests refused;

    @Inject
    Correlator(StreamCatalog catalog, StreamLog log, Watermarks watermarks, Optional<FlushRecords> warehouse,
            Optional<ModelRunner> runner, RefusedRequests refused) {
        this.catalog = catalog;
        this.log = log;
        this.watermarks = watermarks;
        this.warehouse = warehouse;
        this.runner = runner;
        this.refused = refused;
    }

    /** What a correlation found, or why it found nothing. */
    public sealed interface Correlation {}

    /** No stream has this name. */
    public record UnknownStream(String stream) implements Correlation {}

    /** The stream does not deduplicate, so it cannot be searched by key. */
    public record NoIdempotencyKey(String stream) implements Correlation {}

    /** The key is not a value of the key column's type. */
    public record InvalidKey(String message) implements Correlation {}

    /** No event still in the log has the key (it may have been trimmed by the retention sweep). */
    public record UnknownKey(String stream, String canonicalKey) implements Correlation {}

    /** Nothing is recorded for the request: no publish record, and not among the refused requests in the ring. */
    public record UnknownRequest(String requestId) implements Correlation {}

    /** No publish record kept has this trace id. */
    public record UnknownTrace(String traceId) implements Correlation {}

    /**
     * The requests of one trace: the newest one followed through the server as {@link #byRequestId} does, and every
     * publish record with the trace id, newest first.
     */
    public record Traced(String traceId, Section<PublishRecord> requests, Correlation newest)
            implements Correlation {}

    /** The event a key lookup found, and the request that wrote it. */
    public record KeyMatch(String stream, String canonicalKey, long offset, String requestId) {}

    /** A request that was refused: nothing of it was stored; {@code refusal} comes from the in-memory ring. */
    public record Refused(String requestId, Optional<KeyMatch> key, ApiRecord refusal) implements Correlation {}

    /**
     * A request that was stored.
     *
     * @param publish the publish record the rest follows: the first one when a request id was reused
     * @param publishes every publish record with the request id, newest first
     * @param refusal a refusal with the same request id (a refused retry), if the ring still holds one
     * @param quarantine the request's quarantined events, each with where it was replayed to (if it was)
     * @param replayedFrom for a quarantine replay, the quarantined entries its events came from; empty otherwise
     * @param position what {@code Interlace-After} takes to wait until the request's events are materialised, as the
     *     publish answered it ({@code orders:5}; for a stream of several partitions one position per partition the
     *     request's events fell in, {@code payments:3,payments__p2:8}); null when it stored or found no event
     */
    public record Stored(String requestId, Optional<KeyMatch> key, PublishRecord publish, Section<PublishRecord>
            publishes, Optional<ApiRecord> refusal, Events events, Deduplicated deduplicated, Section<FlushRecord>
            flushes, Section<TriggeredRun> runs, Section<QuarantineEntry> quarantine,
            Section<QuarantineEntry> replayedFrom, String position) implements Correlation {}

    /**
     * A bounded list of items.
     *
     * @param total how many there are in all ({@code items} holds at most {@value #SECTION_LIMIT})
     */
    public record Section<T>(List<T> items, long total) {

        public Section {
            items = List.copyOf(items);
        }

        /** How many items are listed. */
        public int count() {
            return items.size();
        }
    }

    /**
     * The events a publish wrote and how many of them are in the warehouse.
     *
     * @param stream the log stream (for a stream of several partitions: the stream, its parts in {@code partitions})
     * @param firstOffset null when the publish wrote no event (every one was a duplicate or quarantined), or when the
     *     stream has several partitions (each part has its own offsets)
     * @param partitions for a stream of several partitions, the events of each partition the request fell in (its
     *     {@code stream} the partition's log stream), by partition; empty otherwise
     */
    public record Events(String stream, Long firstOffset, Long lastOffset, long count, long materialised,
            List<Events> partitions) {

        public Events {
            partitions = List.copyOf(partitions);
        }

        /** Events written but not materialised yet. */
        public long pending() {
            return count - materialised;
        }
    }

    /**
     * The events of a publish that repeated keys already stored.
     *
     * @param firstWrittenBy for each request that first wrote one of the keys, the offsets it wrote; requests in the
     *     order of their first offset
     * @param trimmedOffsets offsets of originals no longer in the log, whose writers are unknown
     */
    public record Deduplicated(long count, Map<String, SortedSet<Long>> firstWrittenBy,
            SortedSet<Long> trimmedOffsets) {

        /** True when the writer of every original is known. */
        public boolean complete() {
            return trimmedOffsets.isEmpty();
        }
    }

    /** A model run, and the flush (among those listed) whose last offset triggered it, or null. */
    public record TriggeredRun(RunRecord run, String triggeredBy) {}

    /** The request with this id. */
    public Correlation byRequestId(String requestId) {
        return correlate(requestId, Optional.empty());
    }

    /** The requests that came with this W3C trace id ({@code traceparent}), the newest followed through. */
    public Correlation byTraceId(String traceId) {
        PublishRecord.Page page = log.publishes(new PublishRecord.Filter(null, null, null, null, SECTION_LIMIT,
                traceId));
        if (page.records().isEmpty()) {
            return new UnknownTrace(traceId);
        }
        return new Traced(traceId, new Section<>(page.records(), page.total()),
                correlate(page.records().get(0).requestId(), Optional.empty()));
    }

    /** The request that wrote the stored event with this idempotency key, given as text. */
    public Correlation byKey(String streamName, String key) {
        Optional<StreamDescriptor> stream = catalog.find(streamName);
        if (stream.isEmpty()) {
            return new UnknownStream(streamName);
        }
        if (stream.get().idempotencyKey() == null) {
            return new NoIdempotencyKey(streamName);
        }
        String canonical;
        try {
            canonical = IdempotencyKeys.canonical(stream.get(), key);
        } catch (IllegalArgumentException e) {
            return new InvalidKey(e.getMessage());
        }
        // The key's partition holds it: its log stream is what the match names (orders__p1 for partition 1).
        String logStream = stream.get().logStream(StreamPartitions.partitionOfKey(canonical,
                stream.get().partitions())).name();
        long offset = log.offsetOfKey(logStream, canonical);
        List<LogEntry> entries = offset == 0 ? List.of() : readQuietly(logStream, offset - 1, 1);
        if (entries.isEmpty()) {
            return new UnknownKey(logStream, canonical);
        }
        String requestId = entries.get(0).requestId();
        return correlate(requestId, Optional.of(new KeyMatch(logStream, canonical, offset, requestId)));
    }

    private Correlation correlate(String requestId, Optional<KeyMatch> key) {
        PublishRecord.Page publishes = log.publishes(new PublishRecord.Filter(null, requestId, null, null,
                SECTION_LIMIT));
        RefusedRequests.Page refusals = refused.list(new ApiRecord.Filter(null, null, requestId, null, null, 10));
        if (publishes.records().isEmpty() && refusals.records().isEmpty()) {
            return new UnknownRequest(requestId);
        }
        Optional<ApiRecord> refusal = refusals.records().stream().findFirst();
        if (publishes.records().isEmpty()) {
            return new Refused(requestId, key, refusal.get());
        }
        // A client may reuse a request id (a retry with the same X-Request-Id, or another stream): every record is
        // listed; the story follows the first one.
        PublishRecord publish = publishes.records().get(publishes.records().size() - 1);
        String stream = publish.stream();
        String declared = StreamPartitions.streamOf(stream);
        boolean partitioned = catalog.find(declared).map(StreamDescriptor::partitioned).orElse(false);
        // A request to a stream of several partitions wrote one record per partition its events fell in (each with
        // the request id): its story is theirs together, one partition at a time.
        List<PublishRecord> parts = new ArrayList<>();
        if (partitioned) {
            Set<String> seen = new HashSet<>();
            for (int i = publishes.records().size() - 1; i >= 0; i--) {
                PublishRecord record = publishes.records().get(i);
                if (StreamPartitions.streamOf(record.stream()).equals(declared) && seen.add(record.stream())) {
                    parts.add(record);
                }
            }
            parts.sort(Comparator.comparingInt(record -> StreamPartitions.partitionOf(record.stream())));
        } else {
            parts.add(publish);
        }

        List<Events> partEvents = new ArrayList<>();
        Map<String, SortedSet<Long>> byRequest = new LinkedHashMap<>();
        TreeSet<Long> trimmed = new TreeSet<>();
        Map<String, FlushRecord> flushById = new LinkedHashMap<>();
        long flushTotal = 0;
        List<QuarantineEntry> quarantined = new ArrayList<>();
        long quarantinedTotal = 0;
        long deduplicatedCount = 0;
        List<String> positions = new ArrayList<>();
        for (PublishRecord part : parts) {
            long watermark = watermarks.events(part.stream());
            long materialised = part.accepted() == 0 ? 0
                    : Math.max(0, Math.min(watermark, part.lastOffset()) - part.firstOffset() + 1);
            partEvents.add(new Events(part.stream(), part.accepted() > 0 ? part.firstOffset() : null,
                    part.accepted() > 0 ? part.lastOffset() : null, part.accepted(), materialised, List.of()));
            // Duplicates: the events (and requests) that first carried their keys.
            deduplicatedCount += part.deduplicated();
            trimmed.addAll(originalRequests(part.stream(), part.duplicateOffsets(), byRequest));
            flushTotal += flushes(part, flushById);
            if (part.quarantined() > 0) {
                quarantined.addAll(log.readQuarantine(part.stream(), part.firstSeq() - 1,
                        (int) Math.min(SECTION_LIMIT, part.lastSeq() - part.firstSeq() + 1)));
                quarantinedTotal += part.quarantined();
            }
            long furthest = part.accepted() > 0 ? part.lastOffset() : 0;
            for (long duplicate : part.duplicateOffsets()) {
                furthest = Math.max(furthest, duplicate);
            }
            if (furthest > 0) {
                positions.add(part.stream() + ":" + furthest);
            }
        }
        Events events;
        if (partitioned) {
            long count = 0;
            long materialised = 0;
            for (Events part : partEvents) {
                count += part.count();
                materialised += part.materialised();
            }
            events = new Events(declared, null, null, count, materialised, partEvents);
        } else {
            events = partEvents.get(0);
        }
        Deduplicated deduplicated = new Deduplicated(deduplicatedCount, Collections.unmodifiableMap(byRequest),
                Collections.unmodifiableSortedSet(trimmed));

        List<FlushRecord> flushList = new ArrayList<>(flushById.values());
        flushList.sort(Comparator.comparingLong(FlushRecord::startedAtMicros));
        Section<FlushRecord> flushes = new Section<>(flushList.subList(0, Math.min(flushList.size(), SECTION_LIMIT)),
                flushTotal);
        Section<TriggeredRun> runs = runs(flushes.items());
        Section<QuarantineEntry> quarantine = new Section<>(quarantined.subList(0,
                Math.min(quarantined.size(), SECTION_LIMIT)), quarantinedTotal);
        // Every event a replay wrote (or found already written) came from one quarantined entry.
        List<QuarantineEntry> replayed = log.replayedBy(declared, requestId, SECTION_LIMIT);
        Section<QuarantineEntry> replayedFrom = new Section<>(replayed, replayed.isEmpty() ? 0
                : Math.max(replayed.size(), events.count() + deduplicatedCount));
        return new Stored(requestId, key, publish, new Section<>(publishes.records(), publishes.total()), refusal,
                events, deduplicated, flushes, runs, quarantine, replayedFrom,
                positions.isEmpty() ? null : String.join(",", positions));
    }

    /**
     * Adds to {@code flushById} the flushes covering the publish's offsets (its own and, for duplicates, the
     * originals'), one contiguous run of offsets at a time so that far-apart originals do not pull in every flush
     * between them; answers how many flushes there are in all that were not there yet.
     */
    private long flushes(PublishRecord publish, Map<String, FlushRecord> flushById) {
        String stream = publish.stream();
        List<long[]> ranges = ranges(publish.duplicateOffsets());
        if (publish.accepted() > 0) {
            ranges.add(new long[] {publish.firstOffset(), publish.lastOffset()});
        }
        long total = 0;
        if (warehouse.isPresent()) {
            for (long[] range : ranges) {
                total += collect(flushById, warehouse.get().flushes(new FlushRecord.Filter(Target.events(stream),
                        range[0], range[1], SECTION_LIMIT)));
            }
            if (publish.quarantined() > 0) {
                total += collect(flushById, warehouse.get().flushes(new FlushRecord.Filter(Target.quarantine(stream),
                        publish.firstSeq(), publish.lastSeq(), SECTION_LIMIT)));
            }
        }
        return total;
    }

    /** Model runs triggered by the committed event flushes. */
    private Section<TriggeredRun> runs(List<FlushRecord> flushes) {
        List<RunRecord> runs = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        if (runner.isPresent()) {
            for (FlushRecord flush : flushes) {
                if (flush.target().quarantine() || !flush.committed()) {
                    continue;
                }
                RunRecord.Page page = runner.get().runs(new RunRecord.Filter(null, null,
                        Trigger.flushed(flush.stream(), flush.lastOffset()), null, null, SECTION_LIMIT));
                for (RunRecord run : page.runs()) {
                    if (seen.add(run.id())) {
                        runs.add(run);
                    }
                }
            }
        }
        runs.sort(Comparator.comparingLong(RunRecord::queuedAtMicros));
        List<TriggeredRun> items = new ArrayList<>();
        for (RunRecord run : runs.subList(0, Math.min(runs.size(), SECTION_LIMIT))) {
            items.add(new TriggeredRun(run, flushIdFor(flushes, run)));
        }
        return new Section<>(items, runs.size());
    }

    /**
     * Fills {@code byRequest} with the request that first wrote each of {@code offsets}, in offset order.
     *
     * @return the offsets no longer in the log (trimmed by the retention sweep), whose writers are unknown
     */
    private TreeSet<Long> originalRequests(String stream, List<Long> offsets, Map<String, SortedSet<Long>> byRequest) {
        TreeSet<Long> missing = new TreeSet<>(offsets);
        for (long[] range : ranges(offsets)) {
            long from = range[0];
            while (from <= range[1]) {
                int length = (int) Math.min(1_000, range[1] - from + 1);
                List<LogEntry> entries = readQuietly(stream, from - 1, length);
                if (entries.isEmpty()) {
                    break;
                }
                for (LogEntry entry : entries) {
                    // A read after a trimmed offset returns later entries: keep only the offsets asked for.
                    if (missing.remove(entry.offset())) {
                        byRequest.computeIfAbsent(entry.requestId(), id -> new TreeSet<>()).add(entry.offset());
                    }
                }
                // A read ends early at its byte budget: go on after the last entry it returned.
                from = entries.get(entries.size() - 1).offset() + 1;
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
            return log.read(stream, after, limit, READ_BYTES, Duration.ZERO);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return List.of();
        }
    }

    private static String flushIdFor(List<FlushRecord> flushes, RunRecord run) {
        for (FlushRecord flush : flushes) {
            if (!flush.target().quarantine() && flush.committed()
                    && run.triggers().contains(Trigger.flushed(flush.stream(), flush.lastOffset()))) {
                return flush.id();
            }
        }
        return null;
    }
}
