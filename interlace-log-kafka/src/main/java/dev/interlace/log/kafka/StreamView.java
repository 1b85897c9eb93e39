package dev.interlace.log.kafka;

import dev.interlace.runtime.log.Leases;
import dev.interlace.runtime.log.StreamHead;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What this node knows of one stream, built from its topics (by the tailer) and from its own commits (by the
 * sequencer): the head, the quarantine head, the trim point, where each offset sits in the topic, each event's
 * arrival, the stream's consumer groups, and the replay marks of its quarantined entries. Its idempotency keys are
 * not here: only the node that sequences the stream holds them, in its deduplication index (see {@link Sequencer}).
 *
 * <p>Every change is applied at most once however many times it is seen: an event only when its offset is past the
 * head, a group state only when its record is newer than the one applied, a replay mark only when its entry has
 * none. So the tailer and the sequencer may both
 * apply a commit, in either order. Long polls wait on this object's monitor.
 */
final class StreamView implements TopicPositions {

    final String name;
    private volatile long retentionMicros;
    private volatile boolean keyed;

    /** The highest offset readers may see: the last offset of the newest complete request. */
    private long head;
    /** The highest offset applied, possibly inside a request whose last events are not applied yet. */
    private long applied;
    private long quarantineHead;
    private long trimmedThrough;
    /** Where the events sit in the topic and when they arrived, in bounded memory. */
    private final EventPositions positions = new EventPositions();
    /** Where the quarantined entries sit in the quarantine topic, by sequence number, in bounded memory as well. */
    private final EventPositions quarantinePositions = new EventPositions();
    private final TopicPositions quarantinedAt = new QuarantinePositions();
    private final java.util.NavigableMap<String, Codec.GroupState> groups = new TreeMap<>();
    private final Map<String, Long> groupRecordOffsets = new HashMap<>();
    /** Quarantine sequence number to where it was replayed; an entry is marked at most once. */
    private final Map<Long, Codec.ReplayMark> replays = new HashMap<>();
    /** Replay request id to the sequence numbers it moved. */
    private final Map<String, TreeSet<Long>> replaysByRequest = new HashMap<>();

    /** Finds the positions of events older than those known (null: reads go forward from the nearest known). */
    private final PositionSearch search;

    StreamView(String name, long retentionMicros) {
        this(name, retentionMicros, null);
    }

    StreamView(String name, long retentionMicros, PositionSearch search) {
        this.name = name;
        this.retentionMicros = retentionMicros;
        this.search = search;
    }

    /** The stream's deduplication window (0: forever) and whether it has keys, known once it is registered. */
    void registered(long retentionMicros, boolean keyed) {
        this.retentionMicros = retentionMicros;
        this.keyed = keyed;
    }

    /** Whether the stream's events carry idempotency keys (so that its sequencer keeps a deduplication index). */
    boolean keyed() {
        return keyed;
    }

    /** The stream's deduplication window in microseconds (0: forever). */
    long retentionMicros() {
        return retentionMicros;
    }

    /**
     * Applies an accepted event; readers see it once the last event of its request ({@code lastOfRequest}) is
     * applied too, so a request is never half-visible.
     */
    synchronized void applyEvent(long offset, long kafkaOffset, long atMicros, long lastOfRequest) {
        if (offset <= applied) {
            return;
        }
        applied = offset;
        positions.record(offset, kafkaOffset, atMicros);
        if (offset >= lastOfRequest) {
            head = offset;
            notifyAll();
        }
    }

    synchronized void applyQuarantine(long seq, long kafkaOffset) {
        if (seq <= quarantineHead) {
            return;
        }
        quarantineHead = seq;
        quarantinePositions.record(seq, kafkaOffset, 0);
    }

    synchronized void applyTrim(long throughOffset) {
        if (throughOffset <= trimmedThrough) {
            return;
        }
        trimmedThrough = throughOffset;
        head = Math.max(head, throughOffset);
        applied = Math.max(applied, throughOffset);
        positions.trim(throughOffset);
        notifyAll();
    }

    synchronized void applyGroup(Codec.GroupState state, long recordOffset) {
        Long applied = groupRecordOffsets.get(state.group());
        if (applied != null && applied >= recordOffset) {
            return;
        }
        groupRecordOffsets.put(state.group(), recordOffset);
        groups.put(state.group(), state);
    }

    /** Records that an entry was replayed; the first mark of an entry stays (there is only ever one). */
    synchronized void applyReplay(Codec.ReplayMark mark) {
        if (replays.putIfAbsent(mark.seq(), mark) == null) {
            replaysByRequest.computeIfAbsent(mark.requestId(), request -> new TreeSet<>()).add(mark.seq());
        }
    }

    /** Where quarantined entry {@code seq} was replayed to, or null while it was not. */
    synchronized Codec.ReplayMark replayOf(long seq) {
        return replays.get(seq);
    }

    /**
     * The sequence numbers the replay request {@code requestId} moved, ascending, at most {@code limit}; only entries
     * already applied here (a mark and its entry are on different topics, which the tailer may read in either order).
     */
    synchronized List<Long> replayedBy(String requestId, int limit) {
        List<Long> seqs = new ArrayList<>();
        for (long seq : replaysByRequest.getOrDefault(requestId, new TreeSet<>())) {
            if (seqs.size() >= limit || seq > quarantineHead) {
                break;
            }
            seqs.add(seq);
        }
        return seqs;
    }

    synchronized StreamHead head() {
        return new StreamHead(name, head, quarantineHead, earliest());
    }

    synchronized long headOffset() {
        return head;
    }

    synchronized long quarantineHeadSeq() {
        return quarantineHead;
    }

    synchronized long earliest() {
        return trimmedThrough + 1;
    }

    synchronized long trimmedThrough() {
        return trimmedThrough;
    }

    /**
     * A Kafka offset from which reading the events topic forward reaches offset {@code offset}: found by a
     * {@link PositionSearch} (outside this view's lock) when the positions known would leave a long read first.
     */
    @Override
    public long readFrom(long offset) {
        return searchedFrom(positions, offset, false);
    }

    /**
     * Where reading forward from {@code known}'s nearest position reaches number {@code number} (an event's offset, or
     * with {@code quarantine} an entry's sequence number), searched outside this view's lock and learned.
     */
    private long searchedFrom(EventPositions known, long number, boolean quarantine) {
        EventPositions.Known from;
        EventPositions.Known end;
        synchronized (this) {
            from = known.before(number);
            end = known.after(number);
        }
        long[] found = search == null ? null : quarantine ? search.quarantinedAtOrBefore(name, number, from, end)
                : search.atOrBefore(name, number, from, end);
        if (found == null) {
            return from.kafka();
        }
        synchronized (this) {
            known.learn(found[0], found[1]);
        }
        return found[1];
    }

    /** A Kafka offset where a read through offset {@code offset} may stop (exclusive). */
    @Override
    public synchronized long readEnd(long offset) {
        return positions.readEnd(offset);
    }

    /** Remembers where a read found offset {@code offset}, so that the next read after it starts there. */
    @Override
    public synchronized void learn(long offset, long kafkaOffset) {
        positions.learn(offset, kafkaOffset);
    }

    /** What the positions take of the heap. */
    synchronized long positionBytes() {
        return positions.heapBytes() + quarantinePositions.heapBytes();
    }

    /** Where the quarantined entries sit in the quarantine topic, by sequence number. */
    TopicPositions quarantined() {
        return quarantinedAt;
    }

    /** The quarantine's positions, each use under this view's lock as the events' are. */
    private final class QuarantinePositions implements TopicPositions {
        @Override
        public long readFrom(long seq) {
            return searchedFrom(quarantinePositions, seq, true);
        }

        @Override
        public long readEnd(long seq) {
            synchronized (StreamView.this) {
                return quarantinePositions.readEnd(seq);
            }
        }

        @Override
        public void learn(long seq, long kafkaOffset) {
            synchronized (StreamView.this) {
                quarantinePositions.learn(seq, kafkaOffset);
            }
        }
    }

    /**
     * An offset such that every event before it arrived before {@code epochMicros} (see
     * {@link EventPositions#firstSince}): exact for recent arrivals, at most a checkpoint early for older ones.
     */
    synchronized long firstOffsetSince(long epochMicros) {
        return positions.firstSince(epochMicros, head);
    }

    synchronized Codec.GroupState group(String group) {
        return groups.get(group);
    }

    /** The group's state as {@link dev.interlace.runtime.log.GroupRules} decides on it, or null when none. */
    synchronized Leases.Group groupState(String group) {
        Codec.GroupState state = groups.get(group);
        return state == null ? null : state.toGroup();
    }

    /** The group's state as last read or written here, or null. */
    synchronized Codec.GroupState storedGroup(String group) {
        return groups.get(group);
    }

    /** The flushers' groups ({@link dev.interlace.runtime.flush.FlushLease}): one per warehouse, as last applied. */
    synchronized List<Codec.GroupState> flusherGroups() {
        List<Codec.GroupState> flushers = new ArrayList<>(2);
        String shared = dev.interlace.runtime.flush.FlushLease.GROUP;
        for (Codec.GroupState state : groups.subMap(shared, true, shared + "/", false).values()) {
            if (dev.interlace.runtime.flush.FlushLease.isFlusherGroup(state.group())) {
                flushers.add(state);
            }
        }
        return flushers;
    }

    synchronized List<Leases.Group> groups() {
        List<Leases.Group> list = new ArrayList<>();
        for (Codec.GroupState state : groups.values()) {
            list.add(state.toGroup());
        }
        return list;
    }

    /** Waits until the head passes {@code afterOffset} or {@code nanos} pass; whether it did. */
    synchronized boolean awaitHeadAbove(long afterOffset, long nanos) throws InterruptedException {
        long deadline = System.nanoTime() + nanos;
        while (head <= afterOffset) {
            long remaining = deadline - System.nanoTime();
            if (remaining <= 0) {
                return false;
            }
            wait(Math.max(1, remaining / 1_000_000));
        }
        return true;
    }

    /** The state of every group, by name, for a sequencer deciding a lease. */
    synchronized Map<String, Codec.GroupState> groupStates() {
        return new HashMap<>(groups);
    }
}
