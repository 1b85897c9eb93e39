package dev.interlace.log.kafka;

import dev.interlace.runtime.dedup.DedupIndex;
import dev.interlace.runtime.dedup.KeyHash;
import dev.interlace.runtime.log.AppendRequest;
import dev.interlace.runtime.log.LogUnavailableException;
import dev.interlace.runtime.log.StoredStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.kafka.common.TopicPartition;

/**
 * What a {@link Sequencer} knows of its stream's stored keys, and its {@link StoredStream} for the append decision: the
 * heads and replay marks of the {@link StreamView}, and the window's keys in a {@link DedupIndex} that only the holder
 * keeps, opened at the takeover from the segment files it has and the stream's key blocks after them
 * ({@link KeyBlockTopic}). Every candidate the index gives is confirmed by the key and arrival stored with the event:
 * from this node's copy of them ({@link LocalKeys}, one local read) or, for an offset the copy does not cover yet,
 * read back from the topic (all such candidates of a group in as few reads as they allow, before the group is
 * decided: {@link #lookingUp}; a short read with small fetches, {@link Readers#points}), so the index never decides
 * alone. The sequencer's thread's alone, but for {@link #dedupStats} and {@link #settledOffsets}, which a publishing
 * thread calls to answer a retry of committed events without the sequencer's thread ({@link SettledRetries}): the
 * index, which is one thread's at a time, is used only under {@link #indexLock}, held for in-memory lookups and
 * additions and local reads, never for a read of the topic nor, but after a failed fetch, for the fetch of a restored
 * segment's run part (see {@link #candidates}).
 */
final class SequencerKeys extends ViewedStream {

    private static final Logger LOG = Logger.getLogger(Sequencer.class.getName());
    /** Candidates at most this many offsets apart are confirmed in one read of the events between them. */
    private static final long CONFIRM_RUN_GAP = 256;
    /**
     * How long a publishing thread's read of a retry's events waits for records: a cluster that does not answer
     * sends the retry to the sequencer soon (whose watchdog answers it within 5 s), not after the reads' 30 s.
     */
    static final java.time.Duration SETTLED_READ_PATIENCE = java.time.Duration.ofSeconds(1);
    /**
     * How many rounds of run part fetches a lookup makes outside the index's lock before it fetches under it: one
     * round fetches all it needs; the bound only keeps a lookup from going round should its segments keep changing.
     */
    private static final int MAX_UNLOCKED_FETCHES = 3;

    private final SequencerContext context;
    private final KeyBlockTopic keyBlocks;
    /** The stream's deduplication index while the sequencer serves a keyed stream; set and used under the lock. */
    private volatile DedupIndex dedup;
    /** The index's opening under way, or null; the sequencer's thread's alone. */
    private IndexOpening opening;
    /** Held by whoever uses {@link #dedup} (the sequencer's thread, or a publishing thread looking a retry up). */
    private final java.util.concurrent.locks.ReentrantLock indexLock = new java.util.concurrent.locks.ReentrantLock();
    /** The keys of the requests being decided, confirmed by {@link #lookingUp}: the newest stored offset of each. */
    private Map<String, Long> stored = Map.of();

    SequencerKeys(StreamView view, SequencerContext context) {
        super(view);
        this.context = context;
        this.keyBlocks = new KeyBlockTopic(view, context.topics(), context.readers());
    }

    /**
     * At a takeover, once the stream is read up to its stable end: starts opening the index over what was committed,
     * on a thread of its own ({@link IndexOpening}); {@link #opened} says when it is open.
     */
    void startOpening() {
        close();
        if (view.keyed()) {
            opening = IndexOpening.start(view.name, () -> context.indexes().open(view, keyBlocks));
        }
    }

    /**
     * Whether the index is open (always, for an unkeyed stream), waiting up to {@code waitMillis} for the opening;
     * throws what the opening threw. On the sequencer's thread.
     */
    boolean opened(long waitMillis) throws InterruptedException {
        if (opening == null) {
            return true;
        }
        DedupIndex opened;
        try {
            opened = opening.await(waitMillis);
        } catch (RuntimeException | Error e) {
            opening = null;
            throw e;
        }
        if (opened == null) {
            return false;
        }
        opening = null;
        indexLock.lock();
        try {
            dedup = opened;
        } finally {
            indexLock.unlock();
        }
        return true;
    }

    /** Closes the index, after the opening under way if any has ended (it holds the stream's folder till then). */
    void close() {
        if (opening != null) {
            DedupIndex opened = opening.end();
            opening = null;
            if (opened != null) {
                context.indexes().closed(view, opened);
            }
        }
        indexLock.lock();
        try {
            if (dedup != null) {
                context.indexes().closed(view, dedup);
                dedup = null;
            }
        } finally {
            indexLock.unlock();
        }
    }

    /** Whether the sequencer serves a keyed stream with an index (any thread). */
    boolean indexed() {
        return dedup != null;
    }

    /** Applies {@code change} (an addition after a commit) to the index, if there is one, under its lock. */
    void changeIndex(java.util.function.Consumer<DedupIndex> change) {
        indexLock.lock();
        try {
            if (dedup != null) {
                change.accept(dedup);
            }
        } finally {
            indexLock.unlock();
        }
    }

    /**
     * The index's candidates for {@code key} that arrived after {@code notBefore}, in {@code into}; false: no index.
     * The run parts of restored segments the lookup needs are fetched first, outside the lock (each part once, however
     * many lookups want it: {@link DedupIndex#missingRuns}), so that a fetch stalls neither the other lookups nor the
     * sequencer's decisions; the lookup itself, under the lock, then reads the disk only. A fetch that fails (its
     * segment closed meanwhile, the copy unreadable) leaves the part to the lookup under the lock, as before, which
     * rebuilds the segment from the key blocks if it still cannot have it.
     */
    private boolean candidates(String key, long notBefore, java.util.function.LongConsumer into) {
        long hash = KeyHash.of(key);
        for (int fetches = 0; ; fetches++) {
            dev.interlace.runtime.dedup.RunFetch missing;
            indexLock.lock();
            try {
                if (dedup == null) {
                    return false;
                }
                missing = fetches < MAX_UNLOCKED_FETCHES ? dedup.missingRuns(hash, notBefore) : null;
                if (missing == null) {
                    dedup.candidates(hash, notBefore, into);
                    return true;
                }
            } finally {
                indexLock.unlock();
            }
            try {
                missing.fetch();
            } catch (java.io.IOException e) {
                LOG.log(Level.FINE, "fetching the index's run parts for a lookup of stream " + view.name
                        + " outside its lock failed; the lookup fetches them", e);
                fetches = MAX_UNLOCKED_FETCHES - 1;
            }
        }
    }

    KeyBlockTopic blocks() {
        return keyBlocks;
    }

    @Override
    public long retentionMicros() {
        return view.retentionMicros();
    }

    @Override
    public void lookingUp(List<AppendRequest> requests, long notBefore) {
        stored = storedKeys(requests, notBefore);
    }

    /** The offset {@link #lookingUp} confirmed for {@code key} (the newest, should the window hold it twice). */
    @Override
    public Long offsetOfKey(String key, long hash, long notBefore) {
        return stored.get(key);
    }

    /** The quarantine {@code quarantine} as a replay into this stream decides on it ({@link #quarantined}). */
    StoredStream<RuntimeException> quarantineOf(StreamView quarantine) {
        SequencerKeys target = this;
        return new ViewedStream(quarantine) {
            @Override
            public long retentionMicros() {
                return target.retentionMicros();
            }

            @Override
            public Long offsetOfKey(String key, long hash, long notBefore) {
                throw new IllegalStateException("a replay looks keys up in the stream it appends to");
            }
        };
    }

    /**
     * For each key of {@code requests} already stored within the window: the offset of its newest acceptance. The
     * index gives candidates; each is confirmed by the key and the arrival its event carries, read from the topic in
     * runs of nearby offsets (a retried batch's originals are usually one run).
     */
    private Map<String, Long> storedKeys(List<AppendRequest> requests, long notBefore) {
        Map<String, List<Long>> candidatesByKey = new HashMap<>();
        TreeSet<Long> wanted = new TreeSet<>();
        for (AppendRequest request : requests) {
            for (AppendRequest.Entry entry : request.entries()) {
                if (entry instanceof AppendRequest.Event event && event.idempotencyKey() != null
                        && !candidatesByKey.containsKey(event.idempotencyKey())) {
                    List<Long> candidates = new ArrayList<>(1);
                    if (!candidates(event.idempotencyKey(), notBefore, candidates::add)) {
                        return Map.of();
                    }
                    candidatesByKey.put(event.idempotencyKey(), candidates);
                    wanted.addAll(candidates);
                }
            }
        }
        return confirmed(candidatesByKey, wanted, notBefore, null);
    }

    /**
     * Whether {@link #settledOffsets} certainly finds {@code request} unsettled, answered at once from memory and the
     * index's filters (any thread, never waiting: false when the index is busy): the stream has no index, an entry is
     * not an event with a key, or a key has no candidate at all (a new key, most often). False means only that the
     * request may be a retry of committed events.
     */
    boolean certainlyUnsettled(AppendRequest request, long notBefore) {
        if (dedup == null || request.entries().isEmpty()) {
            return true;
        }
        for (AppendRequest.Entry entry : request.entries()) {
            if (!(entry instanceof AppendRequest.Event event) || event.idempotencyKey() == null) {
                return true;
            }
        }
        if (!indexLock.tryLock()) {
            return false;
        }
        try {
            if (dedup == null) {
                return true;
            }
            for (AppendRequest.Entry entry : request.entries()) {
                if (!dedup.mayHold(KeyHash.of(((AppendRequest.Event) entry).idempotencyKey()), notBefore)) {
                    return true;
                }
            }
            return false;
        } finally {
            indexLock.unlock();
        }
    }

    /**
     * For a request whose every entry is an event with a key (any thread): the newest committed offset of each key
     * within the window, or null when a key has none, or the request is not such a request, or the sequencer has no
     * index. The index is asked first, with no read at all while some key has no candidate (a new key, most often);
     * the candidates are then confirmed by the events, as for the sequencer's own lookups, from offsets at or below
     * the committed head only, so that every offset returned is an event stored with that key.
     */
    Map<String, Long> settledOffsets(AppendRequest request, long notBefore) {
        Map<String, List<Long>> candidatesByKey = new HashMap<>();
        TreeSet<Long> wanted = new TreeSet<>();
        for (AppendRequest.Entry entry : request.entries()) {
            if (!(entry instanceof AppendRequest.Event event) || event.idempotencyKey() == null) {
                return null;
            }
            if (candidatesByKey.containsKey(event.idempotencyKey())) {
                continue;
            }
            List<Long> candidates = new ArrayList<>(1);
            if (!candidates(event.idempotencyKey(), notBefore, candidates::add) || candidates.isEmpty()) {
                return null;
            }
            candidatesByKey.put(event.idempotencyKey(), candidates);
            wanted.addAll(candidates);
        }
        if (candidatesByKey.isEmpty()) {
            return null;
        }
        Map<String, Long> stored = confirmed(candidatesByKey, wanted, notBefore, SETTLED_READ_PATIENCE);
        return stored.size() == candidatesByKey.size() ? stored : null;
    }

    /**
     * Of each key's candidates, the newest whose event carries the key and arrived after {@code notBefore}; a read of
     * the topic waits {@code patience} for records at most (null: the readers' own).
     */
    private Map<String, Long> confirmed(Map<String, List<Long>> candidatesByKey, TreeSet<Long> wanted,
            long notBefore, java.time.Duration patience) {
        if (wanted.isEmpty()) {
            return Map.of();
        }
        Map<Long, String> keyAt = confirmable(wanted, notBefore, patience);
        Map<String, Long> stored = new HashMap<>();
        candidatesByKey.forEach((key, candidates) -> {
            for (long offset : candidates) {
                if (key.equals(keyAt.get(offset))) {
                    stored.merge(key, offset, Math::max);
                }
            }
        });
        return stored;
    }

    /**
     * The key of each event of {@code offsets} that arrived after {@code notBefore}: from this node's copy of the keys
     * where it covers the offset, else read from the topic, waiting {@code patience} for records at most (null: the
     * readers' own).
     */
    private Map<Long, String> confirmable(TreeSet<Long> candidates, long notBefore, java.time.Duration patience) {
        Map<Long, String> keys = new HashMap<>();
        // A segment that straddles a trim still names trimmed offsets; their events are gone.
        java.util.NavigableSet<Long> offsets = candidates.subSet(view.trimmedThrough(), false, view.headOffset(),
                true);
        offsets = confirmLocally(offsets, notBefore, keys);
        if (offsets.isEmpty()) {
            return keys;
        }
        java.util.NavigableSet<Long> remote = offsets;
        TopicPartition events = context.topics().events(view.name);
        java.util.Iterator<Long> it = offsets.iterator();
        long next = it.next();
        while (next != 0) {
            long first = next;
            long last = next;
            next = 0;
            while (it.hasNext()) {
                long candidate = it.next();
                if (candidate - last > CONFIRM_RUN_GAP) {
                    next = candidate;
                    break;
                }
                last = candidate;
            }
            long through = last;
            // A short run is read with small fetches, from where the position search left off next to it.
            Readers reader = through - first < PositionSearch.SPAN ? context.readers().points() : context.readers();
            try {
                Readers.RecordVisitor visitor = record -> {
                    long offset = Codec.longHeader(record.headers(), Codec.OFFSET);
                    if (remote.contains(offset)) {
                        view.learn(offset, record.offset());
                        if (Codec.longHeader(record.headers(), Codec.AT) > notBefore) {
                            keys.put(offset, Codec.text(record.key()));
                        }
                    }
                    return offset < through;
                };
                if (patience == null) {
                    reader.scan(events, view.readFrom(first), view.readEnd(through), visitor);
                } else {
                    reader.scan(events, view.readFrom(first), view.readEnd(through), patience, visitor);
                }
            } catch (java.io.IOException e) {
                throw new LogUnavailableException("cannot read the events of stream " + view.name + ": "
                        + e.getMessage(), e);
            }
        }
        return keys;
    }

    /**
     * Confirms from this node's copy of the stream's keys ({@link LocalKeys}) the candidates it covers, one local
     * read each, putting the keys of those that arrived after {@code notBefore} in {@code keys}; returns the others,
     * which are confirmed from the topic.
     */
    private java.util.NavigableSet<Long> confirmLocally(java.util.NavigableSet<Long> offsets, long notBefore,
            Map<Long, String> keys) {
        LocalKeys local = context.indexes().localKeys();
        if (local == null || offsets.isEmpty()) {
            return offsets;
        }
        TreeSet<Long> remote = new TreeSet<>();
        for (long offset : offsets) {
            if (!local.covers(view.name, offset)) {
                remote.add(offset);
                continue;
            }
            try {
                LocalKeys.Found found = local.find(view.name, offset);
                if (found != null && found.atMicros() > notBefore) {
                    keys.put(offset, found.key());
                }
            } catch (java.io.IOException e) {
                LOG.log(Level.FINE, "confirming offset " + offset + " of stream " + view.name + " from the topic", e);
                remote.add(offset);
            }
        }
        return remote;
    }

    /**
     * After a trim through {@code throughOffset} is committed (on the sequencer's thread): the index forgets the
     * trimmed keys and their key blocks are deleted.
     */
    void trimmed(long throughOffset) {
        if (dedup == null) {
            return;
        }
        changeIndex(index -> index.removeThrough(throughOffset));
        try {
            keyBlocks.deleteThrough(throughOffset);
        } catch (LogUnavailableException e) {
            // The trim point is durable; the blocks go at the next trim.
            LOG.log(Level.WARNING, "deleting the trimmed key blocks of " + view.name + " failed", e);
        }
    }

    /** The newest stored offset carrying {@code key}, 0 when none: candidates of every age, confirmed by the events. */
    long newestOffsetOf(String key) {
        TreeSet<Long> candidates = new TreeSet<>();
        if (!candidates(key, Long.MIN_VALUE, candidates::add) || candidates.isEmpty()) {
            return 0L;
        }
        long found = 0;
        for (Map.Entry<Long, String> entry : confirmable(candidates, Long.MIN_VALUE, null).entrySet()) {
            if (key.equals(entry.getValue())) {
                found = Math.max(found, entry.getKey());
            }
        }
        return found;
    }

    /** What the index holds now, if the sequencer has one; any thread. */
    java.util.Optional<DedupIndex.Stats> dedupStats() {
        DedupIndex index = dedup;
        return index == null ? java.util.Optional.empty() : java.util.Optional.of(index.stats());
    }
}
