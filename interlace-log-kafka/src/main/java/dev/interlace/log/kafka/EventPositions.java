package dev.interlace.log.kafka;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;

/**
 * Where a stream's events sit in its topic (Interlace offset to Kafka offset) and when they arrived, in memory that
 * does not grow with the stream: exact for the newest {@link #DENSE} offsets, where readers and the flusher mostly
 * read; one checkpoint every {@link #SPARSE} offsets before them; and the positions the last reads ended at, so that
 * a reader working through old offsets page by page starts each read where its previous one ended.
 *
 * <p>An event older than the dense window is found by reading forward from the checkpoint or learned position before
 * it (Kafka offsets grow with Interlace offsets; only transaction markers and aborted records lie between). So a
 * stream of 600 M events costs about 14 MB here instead of 9.6 GB. Not thread-safe: {@link StreamView} guards it.
 */
final class EventPositions {

    /** How many of the newest offsets are known exactly. */
    static final int DENSE = 8192;
    /** One checkpoint every this many offsets. */
    static final int SPARSE = 1024;
    /** How many positions learned from reads are kept. */
    static final int LEARNED = 256;

    /** Kafka offset and arrival of offset {@code o} at {@code o & (ring length - 1)}, for the dense window. */
    private long[] kafka = new long[64];
    private long[] arrivals = new long[64];
    /** The newest offset recorded, and the oldest of the run of offsets recorded one after another up to it. */
    private long newest;
    private long runFrom = 1;
    private long trimmedThrough;

    private long[] checkpointOffsets = new long[16];
    private long[] checkpointKafka = new long[16];
    private long[] checkpointArrivals = new long[16];
    private int checkpoints;

    private final TreeMap<Long, Long> learned = new TreeMap<>();
    private final ArrayDeque<Long> learnedOrder = new ArrayDeque<>();

    /** Records offset {@code offset}, the next after {@link #newest} (or the first after a trim past it). */
    void record(long offset, long kafkaOffset, long atMicros) {
        if (offset != newest + 1) {
            runFrom = offset;
        }
        newest = offset;
        if (kafka.length < DENSE && offset - runFrom >= kafka.length) {
            growRing();
        }
        int slot = (int) (offset & (kafka.length - 1));
        kafka[slot] = kafkaOffset;
        arrivals[slot] = atMicros;
        if (checkpoints == 0 || offset - checkpointOffsets[checkpoints - 1] >= SPARSE) {
            addCheckpoint(offset, kafkaOffset, atMicros);
        }
    }

    private void growRing() {
        long[] grownKafka = new long[kafka.length * 2];
        long[] grownArrivals = new long[kafka.length * 2];
        // Called with the new offset already the newest: the ring holds the kafka.length offsets before it.
        for (long offset = Math.max(runFrom, newest - kafka.length); offset < newest; offset++) {
            grownKafka[(int) (offset & (grownKafka.length - 1))] = kafka[(int) (offset & (kafka.length - 1))];
            grownArrivals[(int) (offset & (grownKafka.length - 1))] = arrivals[(int) (offset & (kafka.length - 1))];
        }
        kafka = grownKafka;
        arrivals = grownArrivals;
    }

    private void addCheckpoint(long offset, long kafkaOffset, long atMicros) {
        if (checkpoints == checkpointOffsets.length) {
            checkpointOffsets = Arrays.copyOf(checkpointOffsets, checkpoints * 2);
            checkpointKafka = Arrays.copyOf(checkpointKafka, checkpoints * 2);
            checkpointArrivals = Arrays.copyOf(checkpointArrivals, checkpoints * 2);
        }
        checkpointOffsets[checkpoints] = offset;
        checkpointKafka[checkpoints] = kafkaOffset;
        checkpointArrivals[checkpoints] = atMicros;
        checkpoints++;
    }

    /**
     * Forgets the positions of offsets through {@code throughOffset}, keeping the newest checkpoint at or before it
     * (reads of the first offsets after the trim start there).
     */
    void trim(long throughOffset) {
        trimmedThrough = Math.max(trimmedThrough, throughOffset);
        int keepFrom = 0;
        while (keepFrom + 1 < checkpoints && checkpointOffsets[keepFrom + 1] <= throughOffset) {
            keepFrom++;
        }
        if (keepFrom > 0) {
            int kept = checkpoints - keepFrom;
            int capacity = Math.max(16, Integer.highestOneBit(kept) * 2);
            checkpointOffsets = Arrays.copyOfRange(checkpointOffsets, keepFrom, keepFrom + capacity);
            checkpointKafka = Arrays.copyOfRange(checkpointKafka, keepFrom, keepFrom + capacity);
            checkpointArrivals = Arrays.copyOfRange(checkpointArrivals, keepFrom, keepFrom + capacity);
            checkpoints = kept;
        }
        learned.headMap(throughOffset, true).clear();
        learnedOrder.removeIf(offset -> offset <= throughOffset);
    }

    /** Remembers that a read found offset {@code offset} at Kafka offset {@code kafkaOffset}. */
    void learn(long offset, long kafkaOffset) {
        if (offset <= trimmedThrough || exact(offset) >= 0 || learned.put(offset, kafkaOffset) != null) {
            return;
        }
        learnedOrder.add(offset);
        if (learnedOrder.size() > LEARNED) {
            learned.remove(learnedOrder.poll());
        }
    }

    /** The oldest offset of the dense window. */
    private long denseFrom() {
        return Math.max(Math.max(runFrom, trimmedThrough + 1), newest - kafka.length + 1);
    }

    /** The Kafka offset of {@code offset} if it is in the dense window, else -1. */
    long exact(long offset) {
        return offset >= denseFrom() && offset <= newest ? kafka[(int) (offset & (kafka.length - 1))] : -1;
    }

    /** A known position: event {@code offset} sits at Kafka offset {@code kafka}; offset -1 when no event is known there. */
    record Known(long offset, long kafka) {}

    /**
     * A Kafka offset at or before {@code offset}'s, from which reading forward reaches it: its own when known, else
     * that of the nearest known offset before it (0, the topic's start, when none is).
     */
    long readFrom(long offset) {
        return before(offset).kafka();
    }

    /** As {@link #readFrom}, with the event found there (offset -1 at the topic's start). */
    Known before(long offset) {
        long at = Math.min(offset, newest);
        long known = exact(at);
        if (known >= 0) {
            return new Known(at, known);
        }
        long bestOffset = -1;
        long best = 0;
        int checkpoint = checkpointAtOrBefore(offset);
        if (checkpoint >= 0) {
            bestOffset = checkpointOffsets[checkpoint];
            best = checkpointKafka[checkpoint];
        }
        Map.Entry<Long, Long> learnedBefore = learned.floorEntry(offset);
        if (learnedBefore != null && learnedBefore.getKey() > bestOffset) {
            bestOffset = learnedBefore.getKey();
            best = learnedBefore.getValue();
        }
        return new Known(bestOffset, best);
    }

    /**
     * A Kafka offset past {@code offset}'s and before that of any later offset not yet known to be there: where a read
     * through {@code offset} may stop (exclusive). Its own plus one when known, else the position of the nearest known
     * offset after it.
     */
    long readEnd(long offset) {
        return after(offset).kafka();
    }

    /** As {@link #readEnd}, with the event found there (offset -1 when it is not a known event's position). */
    Known after(long offset) {
        long known = exact(offset);
        if (known >= 0) {
            return new Known(-1, known + 1);
        }
        long bestOffset = Long.MAX_VALUE;
        long best = exact(newest) + 1;
        long denseFrom = denseFrom();
        if (denseFrom > offset && denseFrom <= newest) {
            bestOffset = denseFrom;
            best = exact(denseFrom);
        }
        int checkpoint = checkpointAtOrBefore(offset) + 1;
        if (checkpoint < checkpoints && checkpointOffsets[checkpoint] < bestOffset) {
            bestOffset = checkpointOffsets[checkpoint];
            best = checkpointKafka[checkpoint];
        }
        Map.Entry<Long, Long> learnedAfter = learned.higherEntry(offset);
        if (learnedAfter != null && learnedAfter.getKey() < bestOffset) {
            bestOffset = learnedAfter.getKey();
            best = learnedAfter.getValue();
        }
        return new Known(bestOffset == Long.MAX_VALUE ? -1 : bestOffset, best);
    }

    /** The index of the newest checkpoint at or before {@code offset}, or -1. */
    private int checkpointAtOrBefore(long offset) {
        int found = Arrays.binarySearch(checkpointOffsets, 0, checkpoints, offset);
        return found >= 0 ? found : -found - 2;
    }

    /**
     * An offset such that every event before it arrived before {@code epochMicros}: the first that arrived at or after
     * it when that is in the dense window (or {@code head + 1}), else the newest checkpoint that arrived before it (an
     * earlier answer, never a later one), else the first offset kept.
     */
    long firstSince(long epochMicros, long head) {
        long denseFrom = denseFrom();
        if (denseFrom <= head && arrivals[(int) (denseFrom & (arrivals.length - 1))] < epochMicros) {
            for (long offset = denseFrom + 1; offset <= head; offset++) {
                if (arrivals[(int) (offset & (arrivals.length - 1))] >= epochMicros) {
                    return offset;
                }
            }
            return head + 1;
        }
        long answer = trimmedThrough + 1;
        for (int i = 0; i < checkpoints && checkpointOffsets[i] <= head; i++) {
            if (checkpointOffsets[i] > trimmedThrough && checkpointArrivals[i] < epochMicros) {
                answer = checkpointOffsets[i];
            } else if (checkpointArrivals[i] >= epochMicros) {
                break;
            }
        }
        return answer;
    }

    /** Bytes of heap the positions take (for the memory tests). */
    long heapBytes() {
        return 16L * kafka.length + 24L * checkpointOffsets.length + 64L * learned.size();
    }
}
