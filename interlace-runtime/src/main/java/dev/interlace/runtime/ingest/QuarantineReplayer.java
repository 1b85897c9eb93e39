package dev.interlace.runtime.ingest;

import dev.interlace.runtime.auth.Caller;
import dev.interlace.runtime.log.AppendRequest;
import dev.interlace.runtime.log.Backpressure;
import dev.interlace.runtime.log.EventLog;
import dev.interlace.runtime.log.LogUnavailableException;
import dev.interlace.runtime.log.NoSequencerException;
import dev.interlace.runtime.log.QuarantineEntry;
import dev.interlace.runtime.log.QuarantineStore;
import dev.interlace.runtime.log.ReplayRequest;
import dev.interlace.runtime.log.ReplayResult;
import dev.interlace.runtime.log.StreamHead;
import dev.interlace.runtime.ops.DiskSpace;
import dev.interlace.runtime.ops.EpochMicros;
import dev.interlace.runtime.ops.Workers;
import dev.interlace.runtime.records.SysEvent;
import dev.interlace.runtime.records.SysRecord;
import dev.interlace.runtime.records.SystemRecords;
import dev.interlace.runtime.stream.DecodeResult;
import dev.interlace.runtime.stream.FieldError;
import dev.interlace.runtime.stream.StreamCatalog;
import dev.interlace.runtime.stream.StreamDescriptor;
import dev.interlace.runtime.stream.StreamEvent;
import dev.interlace.runtime.stream.StreamPartitions;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Replays quarantined events: validates each against the stream's current schema (the decoder publishing uses) and
 * hands the valid ones to the log, which appends them like a publish (deduplication, backpressure, a publish record
 * with the caller's key, durable before the answer) and marks them replayed in the same step. An entry that is still
 * invalid stays in the quarantine untouched.
 */
public final class QuarantineReplayer {

    /** Most entries one replay request decides; {@code all} continues with {@code after}. */
    public static final int MAX_ENTRIES = 1000;

    private final StreamCatalog catalog;
    private final EventLog log;
    private final QuarantineStore quarantine;
    private final IngestLimits limits;
    private final DiskSpace disk;
    private final SystemRecords records;
    private final Clock clock;
    private final Workers workers;
    private final RemoteParts remote;

    @Inject
    public QuarantineReplayer(StreamCatalog catalog, EventLog log, QuarantineStore quarantine, IngestLimits limits,
            DiskSpace disk, SystemRecords records, Clock clock, Workers workers, RemoteParts remote) {
        this.remote = remote;
        this.catalog = catalog;
        this.log = log;
        this.quarantine = quarantine;
        this.limits = limits;
        this.disk = disk;
        this.records = records;
        this.clock = clock;
        this.workers = workers;
    }

    /** Which quarantined entries a replay is about. */
    public sealed interface Selection {

        /** These entries, answered in this order (at most {@link #MAX_ENTRIES}). */
        record Seqs(List<Long> seqs) implements Selection {
            public Seqs {
                seqs = List.copyOf(seqs);
            }
        }

        /** The first {@link #MAX_ENTRIES} entries after {@code after} that were not replayed yet. */
        record All(long after) implements Selection {}
    }

    /**
     * Replays (or, with {@code dryRun}, decides without writing) the selected entries of {@code streamName}. With
     * {@code partition} (a part another node sent here, the sequencer of that partition), only entries whose events
     * go to that partition are taken, and replayed here; without, each partition's entries are replayed by its
     * sequencer, here or sent there ({@link RemoteParts}).
     */
    public CompletableFuture<ReplayOutcome> replay(String streamName, String requestId, Instant receivedAt,
            Selection selection, boolean dryRun, Caller caller, Integer partition) {
        Optional<StreamDescriptor> found = catalog.find(streamName);
        StreamHead head = log.heads().get(streamName);
        if (found.isEmpty() || head == null) {
            return done(new ReplayOutcome.UnknownStream(requestId, streamName));
        }
        StreamDescriptor stream = found.get();
        List<QuarantineEntry> entries;
        Long nextAfter = null;
        boolean more = false;
        if (selection instanceof Selection.Seqs seqs) {
            Map<Long, QuarantineEntry> bySeq = new HashMap<>();
            long beyond = read(streamName, seqs.seqs(), bySeq);
            if (beyond > 0) {
                return done(new ReplayOutcome.TooLarge(requestId, streamName, limits.maxBodyBytes(),
                        seqs.seqs().stream().filter(seq -> seq >= beyond).distinct().sorted().toList()));
            }
            List<Long> unknown = seqs.seqs().stream().filter(seq -> !bySeq.containsKey(seq)).distinct().toList();
            if (!unknown.isEmpty()) {
                return done(new ReplayOutcome.UnknownSeqs(requestId, streamName, unknown, head.quarantineHead()));
            }
            entries = seqs.seqs().stream().map(bySeq::get).toList();
        } else {
            long after = ((Selection.All) selection).after();
            entries = new ArrayList<>();
            long examined = after;
            // Like a publish, a replay appends at most a request body's worth of events (the entry that reaches it
            // is the last); the answer's next_after goes on from there.
            long bytes = 0;
            while (entries.size() < MAX_ENTRIES && bytes < limits.maxBodyBytes()) {
                List<QuarantineEntry> page = log.readQuarantine(streamName, examined, MAX_ENTRIES,
                        limits.maxBodyBytes() - bytes);
                if (page.isEmpty()) {
                    break;
                }
                for (QuarantineEntry entry : page) {
                    examined = entry.seq();
                    if (entry.replay() == null) {
                        entries.add(entry);
                        bytes += entry.payload().length;
                        if (entries.size() == MAX_ENTRIES || bytes >= limits.maxBodyBytes()) {
                            break;
                        }
                    }
                }
            }
            nextAfter = examined;
            more = examined < head.quarantineHead();
        }

        ReplayOutcome.EntryOutcome[] decided = new ReplayOutcome.EntryOutcome[entries.size()];
        List<ReplayRequest.Entry> valid = new ArrayList<>();
        List<Integer> validPositions = new ArrayList<>();
        List<StreamEvent> validEvents = new ArrayList<>();
        int keyIndex = stream.idempotencyKeyIndex();
        for (int i = 0; i < entries.size(); i++) {
            QuarantineEntry entry = entries.get(i);
            if (entry.replay() != null) {
                decided[i] = new ReplayOutcome.EntryOutcome(entry.seq(), ReplayOutcome.Status.ALREADY_REPLAYED,
                        entry.replay().offset(), List.of(), stream.partitioned() ? entry.replay().partition() : null);
                continue;
            }
            DecodeResult<? extends StreamEvent> result;
            try {
                List<EventParser.ParsedEvent> parsed = new EventParser(stream.decoder(), 1)
                        .parse(entry.payload(), BodyFormat.JSON);
                result = parsed.get(0).result();
            } catch (EventParser.BodyException | IndexOutOfBoundsException e) {
                String reason = e instanceof EventParser.BodyException body ? body.problem.message()
                        : "the stored event is empty";
                decided[i] = new ReplayOutcome.EntryOutcome(entry.seq(), ReplayOutcome.Status.INVALID, null,
                        List.of(FieldError.bounded("", reason)));
                continue;
            }
            if (result instanceof DecodeResult.Invalid<? extends StreamEvent> invalid) {
                decided[i] = new ReplayOutcome.EntryOutcome(entry.seq(), ReplayOutcome.Status.INVALID, null,
                        Publisher.quarantinedErrors(invalid));
            } else if (result instanceof DecodeResult.Valid<? extends StreamEvent> event) {
                String key = keyIndex < 0 ? null : IdempotencyKeys.canonical(event.event().value(keyIndex));
                valid.add(new ReplayRequest.Entry(entry.seq(), new AppendRequest.Event(entry.payload(), key)));
                validEvents.add(event.event());
                validPositions.add(i);
            }
        }
        if (valid.isEmpty()) {
            return done(new ReplayOutcome.Replayed(requestId, List.of(decided), dryRun, nextAfter, more));
        }
        if (!dryRun && disk.usableBytes() < limits.minFreeDiskBytes()) {
            return done(new ReplayOutcome.Unavailable(requestId, "free disk space is below the floor of "
                    + limits.minFreeDiskBytes() + " bytes", Publisher.UNAVAILABLE_RETRY_SECONDS, false));
        }
        // A stream of several partitions keeps its quarantine with partition 0; each event goes to the partition its
        // key (or partition key) hashes to, as a publish would put it (a keyless one by its sequence number), in one
        // replay per partition, by that partition's sequencer: parts may commit separately, each atomically with its
        // marks.
        java.util.SortedMap<Integer, List<Integer>> byPartition = new java.util.TreeMap<>();
        for (int j = 0; j < valid.size(); j++) {
            byPartition.computeIfAbsent(stream.partitioned() ? partitionOf(stream, validEvents.get(j),
                    valid.get(j)) : 0, p -> new ArrayList<>()).add(j);
        }
        if (partition != null && !byPartition.keySet().equals(java.util.Set.of(partition))) {
            List<Long> elsewhere = new ArrayList<>();
            byPartition.forEach((p, positions) -> {
                if (p.intValue() != partition) {
                    positions.forEach(j -> elsewhere.add(valid.get(j).seq()));
                }
            });
            return done(new ReplayOutcome.WrongPartition(requestId, streamName, partition, elsewhere));
        }
        Long finalNextAfter = nextAfter;
        boolean finalMore = more;
        List<CompletableFuture<ReplayResult>> parts = new ArrayList<>();
        for (var part : byPartition.entrySet()) {
            List<ReplayRequest.Entry> share = new ArrayList<>();
            part.getValue().forEach(j -> share.add(valid.get(j)));
            ReplayRequest request = new ReplayRequest(streamName, stream.logStream(part.getKey()).name(), requestId,
                    EpochMicros.of(receivedAt), stream.schemaVersion(), share, caller.keyId(), caller.keyName(),
                    dryRun);
            Optional<String> holder = partition == null && stream.partitioned()
                    ? remote.holderElsewhere(request.target()) : Optional.empty();
            // The log completes the future on its writer thread; the answer is built on a worker, never there.
            parts.add(Deadlines.within(holder.isEmpty() ? quarantine.replay(request) : remote.replay(holder.get(),
                    streamName, part.getKey(), requestId, share.stream().map(ReplayRequest.Entry::seq).toList(),
                    dryRun, caller.keyId(), caller.keyName()), Publisher.APPEND_TIMEOUT_SECONDS, TimeUnit.SECONDS));
        }
        return CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new)).handleAsync((ignored, any) -> {
            ReplayOutcome refused = null;
            List<Integer> replayedParts = new ArrayList<>();
            List<Integer> notReplayed = new ArrayList<>();
            int p = 0;
            for (var part : byPartition.entrySet()) {
                CompletableFuture<ReplayResult> future = parts.get(p++);
                ReplayResult result;
                try {
                    result = future.join();
                } catch (java.util.concurrent.CompletionException | java.util.concurrent.CancellationException e) {
                    notReplayed.add(part.getKey());
                    refused = refused != null ? refused : unavailable(requestId, e, byPartition.size() > 1);
                    continue;
                }
                if (result instanceof Backpressure backpressure) {
                    notReplayed.add(part.getKey());
                    refused = refused != null ? refused : Backpressured.of(requestId, streamName, backpressure);
                    continue;
                }
                replayedParts.add(part.getKey());
                List<ReplayResult.EntryResult> fates = ((ReplayResult.Replayed) result).entries();
                for (int k = 0; k < fates.size(); k++) {
                    ReplayOutcome.EntryOutcome fate = outcome(fates.get(k), dryRun);
                    decided[validPositions.get(part.getValue().get(k))] = stream.partitioned()
                            ? fate.in(part.getKey()) : fate;
                }
            }
            if (refused != null) {
                // The other partitions' entries (if any) are replayed and marked: a retry reports them already so.
                return replayedParts.isEmpty() ? refused
                        : new ReplayOutcome.PartlyReplayed(requestId, refused, replayedParts, notReplayed);
            }
            ReplayOutcome.Replayed replayed = new ReplayOutcome.Replayed(requestId, List.of(decided), dryRun,
                    finalNextAfter, finalMore);
            record(streamName, requestId, replayed, caller);
            return replayed;
        }, workers.executor());
    }

    /**
     * The partition a replayed event of a partitioned stream goes to: the one its partition key, else its idempotency
     * key, hashes to (where a publish of it goes, so that it deduplicates against it); a keyless event by its
     * sequence number.
     */
    private static int partitionOf(StreamDescriptor stream, StreamEvent event, ReplayRequest.Entry entry) {
        int partitionKeyIndex = stream.partitionKeyIndex();
        String hashed = partitionKeyIndex < 0 ? ((AppendRequest.Event) entry.event()).idempotencyKey()
                : IdempotencyKeys.canonical(event.value(partitionKeyIndex));
        return hashed != null ? StreamPartitions.partitionOfKey(hashed, stream.partitions())
                : (int) ((entry.seq() - 1) % stream.partitions());
    }

    private static ReplayOutcome.EntryOutcome outcome(ReplayResult.EntryResult fate, boolean dryRun) {
        return switch (fate.status()) {
            case ACCEPTED -> new ReplayOutcome.EntryOutcome(fate.seq(), ReplayOutcome.Status.ACCEPTED,
                    dryRun ? null : fate.offset(), List.of());
            case DUPLICATE -> new ReplayOutcome.EntryOutcome(fate.seq(), ReplayOutcome.Status.DEDUPLICATED,
                    fate.offset(), List.of());
            case ALREADY_REPLAYED -> new ReplayOutcome.EntryOutcome(fate.seq(),
                    ReplayOutcome.Status.ALREADY_REPLAYED, fate.offset(), List.of());
            // Read a moment ago, and the quarantine is never trimmed: only a log that lost entries gets here.
            case UNKNOWN -> throw new IllegalStateException("quarantine entry " + fate.seq()
                    + " disappeared during its replay");
        };
    }

    /** A system record of every replay that moved something, so that the log of operations shows it. */
    private void record(String stream, String requestId, ReplayOutcome.Replayed replayed, Caller caller) {
        long moved = replayed.count(ReplayOutcome.Status.ACCEPTED) + replayed.count(ReplayOutcome.Status.DEDUPLICATED);
        if (replayed.dryRun() || moved == 0) {
            return;
        }
        records.record(SysRecord.of(EpochMicros.now(clock), SysEvent.QUARANTINE_REPLAY, stream, requestId, "replayed "
                + moved + " quarantined events of " + stream + " (" + replayed.count(ReplayOutcome.Status.ACCEPTED)
                + " accepted, " + replayed.count(ReplayOutcome.Status.DEDUPLICATED) + " deduplicated, "
                + replayed.count(ReplayOutcome.Status.INVALID) + " still invalid)"
                + (caller.keyName() == null ? "" : " with key " + caller.keyName())));
    }

    /**
     * The outcome of a part that failed; of a request of several parts ({@code ofSeveral}) a part without a sequencer
     * too, so that the answer can say which parts were replayed.
     */
    private static ReplayOutcome unavailable(String requestId, Throwable failure, boolean ofSeveral) {
        Throwable cause = failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
        if (cause instanceof TimeoutException) {
            return new ReplayOutcome.Unavailable(requestId, "the log did not confirm the replay within "
                    + Publisher.APPEND_TIMEOUT_SECONDS + " s", Publisher.UNAVAILABLE_RETRY_SECONDS, true);
        }
        if (cause instanceof LogUnavailableException unavailable) {
            return new ReplayOutcome.Unavailable(requestId, unavailable.getMessage(),
                    Publisher.UNAVAILABLE_RETRY_SECONDS, unavailable.mayBeStored());
        }
        if (cause instanceof NoSequencerException none) {
            if (ofSeveral) {
                return new ReplayOutcome.Unavailable(requestId, none.getMessage(),
                        Publisher.UNAVAILABLE_RETRY_SECONDS, false);
            }
            throw none; // another node sequences the stream: the API answers 503 no_sequencer, as for a publish
        }
        throw new IllegalStateException("the stream log failed unexpectedly", cause);
    }

    /**
     * Puts the entries with these sequence numbers that the quarantine holds into {@code bySeq}, read a contiguous run
     * at a time, in ascending order, and no more than a publish may carry: returns 0, or the first selected number
     * whose entry takes the events past {@code max-body-bytes} (nothing is read after it).
     */
    private long read(String stream, List<Long> seqs, Map<Long, QuarantineEntry> bySeq) {
        TreeSet<Long> wanted = new TreeSet<>(seqs);
        wanted.removeIf(seq -> seq < 1);
        long budget = limits.maxBodyBytes();
        long bytes = 0;
        while (!wanted.isEmpty()) {
            long first = wanted.pollFirst();
            long last = first;
            while (wanted.contains(last + 1) && last - first + 1 < MAX_ENTRIES) {
                last++;
            }
            // The read ends with the entry that brings the events to the budget, so one more byte tells "too much".
            List<QuarantineEntry> page = log.readQuarantine(stream, first - 1, (int) (last - first + 1),
                    budget - bytes + 1);
            for (QuarantineEntry entry : page) {
                if (entry.seq() > last) {
                    break; // some of the run are not in the quarantine: reported as unknown
                }
                bytes += entry.payload().length;
                if (bytes > budget) {
                    return entry.seq();
                }
                bySeq.put(entry.seq(), entry);
            }
            // Not cut short by the budget (that returned above): every entry of the run that exists was read.
            wanted.subSet(first, true, last, true).clear();
        }
        return 0;
    }

    private static CompletableFuture<ReplayOutcome> done(ReplayOutcome outcome) {
        return CompletableFuture.completedFuture(outcome);
    }
}
