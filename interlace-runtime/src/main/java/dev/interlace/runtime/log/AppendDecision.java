package dev.interlace.runtime.log;

import dev.interlace.runtime.dedup.KeyHash;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The one decision on what a request does to a stream, for every log backend: each event's fate (accepted at the
 * next dense offset, or a duplicate of the event that carried its key earlier in the request, earlier in the group or
 * within the window already stored), each invalid event's quarantine sequence number, and the refusal when the
 * stream's backlog would pass {@code --max-pending}; for a quarantine replay, which entries are appended, which were
 * replayed before and which the quarantine does not hold. It writes nothing: the log asks it, then writes what it
 * decided in its own transaction, and moves the stream's committed positions once that commits.
 *
 * <p>What it knows of the stream it asks the log through {@link StoredStream}; what the group in hand has decided so
 * far, not committed yet, is a {@link Tentative}, one per stream of the group (the state a partitioned stream will
 * hold per partition). Called on the log's writing thread only.
 */
public final class AppendDecision {

    private final long maxPending;
    private final Watermarks watermarks;

    /** Decides against {@code settings}' {@code maxPending} and the flushed positions of {@code watermarks}. */
    public AppendDecision(LogSettings settings, Watermarks watermarks) {
        this.maxPending = settings.maxPending();
        this.watermarks = watermarks;
    }

    /**
     * Decides {@code requests}, in order, against the stream as {@code group} has left it: the group's keys are
     * looked up together first ({@link StoredStream#lookingUp}). Each request is decided as {@link #decide} does,
     * against the materialised positions read once for the group.
     */
    public <E extends Exception> List<AppendResult> decide(List<AppendRequest> requests, Tentative group,
            StoredStream<E> stored, long now) throws E {
        stored.lookingUp(requests, windowStart(stored, now));
        long materialised = watermarks.events(stored.name()) + watermarks.quarantine(stored.name());
        List<AppendResult> results = new ArrayList<>(requests.size());
        for (AppendRequest request : requests) {
            results.add(decideOne(request, group, stored, materialised, now));
        }
        return results;
    }

    /**
     * Decides one request against the stream as {@code group} has left it so far: dense offsets after the group's
     * head, duplicates within the request, the group and the window, quarantine sequence numbers, and backpressure
     * (the entries not yet materialised plus the new ones, against {@code --max-pending}; a request that adds nothing
     * is never refused). A committed decision moves {@code group}; a refusal leaves it as it was.
     *
     * @return each entry's fate, or the refusal
     */
    public <E extends Exception> AppendResult decide(AppendRequest request, Tentative group, StoredStream<E> stored,
            long now) throws E {
        return decide(List.of(request), group, stored, now).get(0);
    }

    /** {@link #decide}, {@code materialised} being the stream's flushed events and quarantine positions' sum. */
    private <E extends Exception> AppendResult decideOne(AppendRequest request, Tentative group,
            StoredStream<E> stored, long materialised, long now) throws E {
        long notBefore = windowStart(stored, now);
        List<AppendResult.EntryResult> fates = new ArrayList<>(request.size());
        Map<String, NewKey> requestKeys = new HashMap<>();
        long nextOffset = group.head + 1;
        long nextSeq = group.quarantineHead + 1;
        for (AppendRequest.Entry entry : request.entries()) {
            if (entry instanceof AppendRequest.Event event) {
                String key = event.idempotencyKey();
                long hash = key == null ? 0 : KeyHash.of(key);
                Long original = key == null ? null : original(key, hash, requestKeys, group, stored, notBefore);
                if (original != null) {
                    fates.add(new AppendResult.EntryResult(AppendResult.Status.DUPLICATE, original));
                } else {
                    long offset = nextOffset++;
                    if (key != null) {
                        requestKeys.put(key, new NewKey(hash, offset));
                    }
                    fates.add(new AppendResult.EntryResult(AppendResult.Status.ACCEPTED, offset));
                }
            } else {
                fates.add(new AppendResult.EntryResult(AppendResult.Status.QUARANTINED, nextSeq++));
            }
        }
        long newEntries = (nextOffset - 1 - group.head) + (nextSeq - 1 - group.quarantineHead);
        long backlog = group.head + group.quarantineHead - materialised;
        if (newEntries > 0 && backlog + newEntries > maxPending) {
            return new Backpressure(backlog, newEntries, maxPending);
        }
        group.head = nextOffset - 1;
        group.quarantineHead = nextSeq - 1;
        group.newKeys.putAll(requestKeys);
        if (!requestKeys.isEmpty()) {
            group.newKeysReceivedAtMicros = Math.max(group.newKeysReceivedAtMicros, request.receivedAtMicros());
        }
        return new AppendResult.Committed(fates, now);
    }

    /** The offset of the event that first carried {@code key}: in this request, in this group, or stored. */
    private static <E extends Exception> Long original(String key, long hash, Map<String, NewKey> requestKeys,
            Tentative group, StoredStream<E> stored, long notBefore) throws E {
        NewKey inRequest = requestKeys.get(key);
        if (inRequest != null) {
            return inRequest.offset();
        }
        NewKey inGroup = group.newKeys.get(key);
        if (inGroup != null) {
            return inGroup.offset();
        }
        return stored.offsetOfKey(key, hash, notBefore);
    }

    /**
     * Decides a quarantine replay: entries replayed before (or earlier in this request) and entries the quarantine
     * does not hold are only reported; the others are decided as one publish request ({@link #decide}), which may be
     * refused as a whole. The log then writes {@link Replay#append} and marks each of {@link Replay#seqs} replayed to
     * its fate's offset, in one transaction (nothing for a dry run).
     */
    public <E extends Exception> Replay replay(ReplayRequest request, Tentative group, StoredStream<E> stored,
            long now) throws E {
        return replay(request, group, stored, stored, now);
    }

    /**
     * {@link #replay(ReplayRequest, Tentative, StoredStream, long)} for entries quarantined in {@code quarantine} whose
     * events go to {@code stored} (another partition of the stream), decided as a publish to it.
     */
    public <E extends Exception> Replay replay(ReplayRequest request, Tentative group, StoredStream<E> quarantine,
            StoredStream<E> stored, long now) throws E {
        ReplayResult.EntryResult[] results = new ReplayResult.EntryResult[request.entries().size()];
        List<ReplayRequest.Entry> toAppend = new ArrayList<>();
        List<Integer> positions = new ArrayList<>();
        Set<Long> seen = new HashSet<>();
        for (int i = 0; i < results.length; i++) {
            ReplayRequest.Entry entry = request.entries().get(i);
            StoredStream.Quarantined quarantined = quarantine.quarantined(entry.seq());
            if (quarantined == null) {
                results[i] = new ReplayResult.EntryResult(entry.seq(), ReplayResult.Status.UNKNOWN, 0);
            } else if (quarantined.replayed()) {
                results[i] = new ReplayResult.EntryResult(entry.seq(), ReplayResult.Status.ALREADY_REPLAYED,
                        quarantined.offset());
            } else if (seen.add(entry.seq())) {
                toAppend.add(entry);
                positions.add(i);
            }
            // else the same entry twice in one request: answered like the first, below
        }
        if (toAppend.isEmpty()) {
            return new Replay(new ReplayResult.Replayed(answerRepeats(request, results), request.dryRun()), null,
                    null, List.of());
        }
        AppendRequest append = request.asAppend(toAppend);
        AppendResult decided = decide(append, group, stored, now);
        if (decided instanceof Backpressure refused) {
            return new Replay(refused, null, null, List.of());
        }
        AppendResult.Committed committed = (AppendResult.Committed) decided;
        List<Long> seqs = new ArrayList<>(toAppend.size());
        for (int j = 0; j < toAppend.size(); j++) {
            AppendResult.EntryResult fate = committed.entries().get(j);
            long seq = toAppend.get(j).seq();
            seqs.add(seq);
            results[positions.get(j)] = new ReplayResult.EntryResult(seq,
                    fate.status() == AppendResult.Status.ACCEPTED ? ReplayResult.Status.ACCEPTED
                            : ReplayResult.Status.DUPLICATE, fate.offset());
        }
        return new Replay(new ReplayResult.Replayed(answerRepeats(request, results), request.dryRun()), append,
                committed, seqs);
    }

    /** Fills in the repeats of an entry within one request: replayed by its first occurrence, to its offset. */
    private static List<ReplayResult.EntryResult> answerRepeats(ReplayRequest request,
            ReplayResult.EntryResult[] results) {
        for (int i = 0; i < results.length; i++) {
            if (results[i] == null) {
                long seq = request.entries().get(i).seq();
                long offset = 0;
                for (ReplayResult.EntryResult result : results) {
                    if (result != null && result.seq() == seq) {
                        offset = result.offset();
                        break;
                    }
                }
                results[i] = new ReplayResult.EntryResult(seq, ReplayResult.Status.ALREADY_REPLAYED, offset);
            }
        }
        return List.of(results);
    }

    /** The start of the stream's deduplication window at {@code now}: only events that arrived after it count. */
    public static long windowStart(StoredStream<?> stored, long now) {
        return stored.retentionMicros() > 0 ? now - stored.retentionMicros() : Long.MIN_VALUE;
    }

    /**
     * A replay as decided.
     *
     * @param result the answer: the entries' fates, or the refusal
     * @param append the request to append (the entries not replayed before), or null when nothing is appended
     * @param appended its entries' fates, or null
     * @param seqs the quarantine sequence number of each of {@code append}'s entries, to mark replayed
     */
    public record Replay(ReplayResult result, AppendRequest append, AppendResult.Committed appended,
            List<Long> seqs) {}

    /** A key accepted by a group not committed yet: its hash (what the index keeps) and its offset. */
    public record NewKey(long hash, long offset) {}

    /**
     * One stream's positions and new keys within a group (a transaction of the log) that is not committed yet: starts
     * at the stream's committed heads; each request decided moves it. The log makes them the stream's own once the
     * group commits, and drops them if it does not.
     */
    public static final class Tentative {
        long head;
        long quarantineHead;
        final Map<String, NewKey> newKeys = new HashMap<>();
        long newKeysReceivedAtMicros;

        public Tentative(StoredStream<?> stream) {
            this.head = stream.head();
            this.quarantineHead = stream.quarantineHead();
        }

        /** The offset of the newest event the group accepts so far. */
        public long head() {
            return head;
        }

        /** The sequence number of the newest entry the group quarantines so far. */
        public long quarantineHead() {
            return quarantineHead;
        }

        /** The keys the group accepts, with their hashes and offsets. */
        public Collection<NewKey> newKeys() {
            return newKeys.values();
        }

        /** The hash of {@code key}, accepted in this group. */
        public long hashOf(String key) {
            return newKeys.get(key).hash();
        }

        /** The newest arrival among the requests that brought {@link #newKeys()}. */
        public long newKeysReceivedAtMicros() {
            return newKeysReceivedAtMicros;
        }
    }
}
