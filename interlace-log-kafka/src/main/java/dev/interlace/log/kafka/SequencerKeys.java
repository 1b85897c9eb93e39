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
 * alone. The sequencer's thread's alone, but for
 * {@link #dedupStats}.
 */
final class SequencerKeys implements StoredStream<RuntimeException> {

    private static final Logger LOG = Logger.getLogger(Sequencer.class.getName());
    /** Candidates at most this many offsets apart are confirmed in one read of the events between them. */
    private static final long CONFIRM_RUN_GAP = 256;

    private final StreamView view;
    private final Sequencer.Context context;
    private final KeyBlockTopic keyBlocks;
    /** The stream's deduplication index while the sequencer serves a keyed stream. */
    private volatile DedupIndex dedup;
    /** The keys of the requests being decided, confirmed by {@link #lookingUp}: the newest stored offset of each. */
    private Map<String, Long> stored = Map.of();

    SequencerKeys(StreamView view, Sequencer.Context context) {
        this.view = view;
        this.context = context;
        this.keyBlocks = new KeyBlockTopic(view, context.topics(), context.readers());
    }

    /** At a takeover, once the stream is read up to its stable end: the index over what was committed. */
    void open() {
        close();
        if (view.keyed()) {
            dedup = context.indexes().open(view, keyBlocks);
        }
    }

    void close() {
        if (dedup != null) {
            context.indexes().closed(view, dedup);
            dedup = null;
        }
    }

    /** The index while the sequencer serves a keyed stream, else null. */
    DedupIndex index() {
        return dedup;
    }

    KeyBlockTopic blocks() {
        return keyBlocks;
    }

    @Override
    public String name() {
        return view.name;
    }

    @Override
    public long head() {
        return view.headOffset();
    }

    @Override
    public long quarantineHead() {
        return view.quarantineHeadSeq();
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

    @Override
    public Quarantined quarantined(long seq) {
        return quarantined(view, seq);
    }

    /**
     * Entry {@code seq} of the quarantine {@code quarantine} (this stream's, or for a partition of a partitioned
     * stream partition 0's, which keeps the stream's quarantine), as this node's view of it has it.
     */
    static Quarantined quarantined(StreamView quarantine, long seq) {
        if (seq < 1 || seq > quarantine.quarantineHeadSeq()) {
            return null;
        }
        Codec.ReplayMark mark = quarantine.replayOf(seq);
        return mark != null ? new Quarantined(true, mark.offset()) : Quarantined.WAITING;
    }

    /** The quarantine {@code quarantine} as a replay into this stream decides on it ({@link #quarantined}). */
    StoredStream<RuntimeException> quarantineOf(StreamView quarantine) {
        SequencerKeys target = this;
        return new StoredStream<>() {
            @Override
            public String name() {
                return quarantine.name;
            }

            @Override
            public long head() {
                return quarantine.headOffset();
            }

            @Override
            public long quarantineHead() {
                return quarantine.quarantineHeadSeq();
            }

            @Override
            public long retentionMicros() {
                return target.retentionMicros();
            }

            @Override
            public Long offsetOfKey(String key, long hash, long notBefore) {
                throw new IllegalStateException("a replay looks keys up in the stream it appends to");
            }

            @Override
            public Quarantined quarantined(long seq) {
                return SequencerKeys.quarantined(quarantine, seq);
            }
        };
    }

    /**
     * For each key of {@code requests} already stored within the window: the offset of its newest acceptance. The
     * index gives candidates; each is confirmed by the key and the arrival its event carries, read from the topic in
     * runs of nearby offsets (a retried batch's originals are usually one run).
     */
    private Map<String, Long> storedKeys(List<AppendRequest> requests, long notBefore) {
        if (dedup == null) {
            return Map.of();
        }
        Map<String, List<Long>> candidatesByKey = new HashMap<>();
        TreeSet<Long> wanted = new TreeSet<>();
        for (AppendRequest request : requests) {
            for (AppendRequest.Entry entry : request.entries()) {
                if (entry instanceof AppendRequest.Event event && event.idempotencyKey() != null
                        && !candidatesByKey.containsKey(event.idempotencyKey())) {
                    List<Long> candidates = new ArrayList<>(1);
                    dedup.candidates(KeyHash.of(event.idempotencyKey()), notBefore, candidates::add);
                    candidatesByKey.put(event.idempotencyKey(), candidates);
                    wanted.addAll(candidates);
                }
            }
        }
        if (wanted.isEmpty()) {
            return Map.of();
        }
        Map<Long, String> keyAt = confirmable(wanted, notBefore);
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
     * where it covers the offset, else read from the topic.
     */
    private Map<Long, String> confirmable(TreeSet<Long> candidates, long notBefore) {
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
                reader.scan(events, view.readFrom(first), view.readEnd(through), record -> {
                    long offset = Codec.longHeader(record.headers(), Codec.OFFSET);
                    if (remote.contains(offset)) {
                        view.learn(offset, record.offset());
                        if (Codec.longHeader(record.headers(), Codec.AT) > notBefore) {
                            keys.put(offset, Codec.text(record.key()));
                        }
                    }
                    return offset < through;
                });
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
        dedup.removeThrough(throughOffset);
        try {
            keyBlocks.deleteThrough(throughOffset);
        } catch (LogUnavailableException e) {
            // The trim point is durable; the blocks go at the next trim.
            LOG.log(Level.WARNING, "deleting the trimmed key blocks of " + view.name + " failed", e);
        }
    }

    /** The newest stored offset carrying {@code key}, 0 when none: candidates of every age, confirmed by the events. */
    long newestOffsetOf(String key) {
        if (dedup == null) {
            return 0L;
        }
        TreeSet<Long> candidates = new TreeSet<>();
        dedup.candidates(KeyHash.of(key), Long.MIN_VALUE, candidates::add);
        if (candidates.isEmpty()) {
            return 0L;
        }
        long found = 0;
        for (Map.Entry<Long, String> entry : confirmable(candidates, Long.MIN_VALUE).entrySet()) {
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
