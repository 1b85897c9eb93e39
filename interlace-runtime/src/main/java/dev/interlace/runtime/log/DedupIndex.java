package dev.interlace.runtime.log;

import java.nio.charset.StandardCharsets;
import java.util.function.LongConsumer;

/**
 * The in-memory side of deduplication for one stream: 64-bit key hash to (offset, first acceptance time), in an
 * open-addressing table of primitive arrays (about 40 bytes per key at the table's load factor).
 *
 * <p>Why not a UNIQUE index in SQLite: random keys (UUIDs) make every insert touch a random B-tree page, and past
 * about a million keys the page cache misses drop thousand-event transactions from ~260 000 to ~21 000 rows/s. Here
 * the durable side is append-only (the key and its hash are columns of the event row, written in the same
 * transaction) and the lookup is in memory. A hash match is only a candidate: the log compares the full key stored
 * with the event before declaring a duplicate. Several keys may share a hash; all their slots are probed.
 *
 * <p>Owned by the log's writer thread; not thread-safe.
 */
final class DedupIndex {

    /** Segments, chosen by the hash's top bits, so that growing the index never rehashes every key at once. */
    private static final int SEGMENTS = 64;

    private final Segment[] segments = new Segment[SEGMENTS];

    DedupIndex() {
        for (int i = 0; i < SEGMENTS; i++) {
            segments[i] = new Segment();
        }
    }

    /** The 64-bit hash of a canonical key (FNV-1a over UTF-8 with a final avalanche). */
    static long hash(String key) {
        long h = 0xcbf29ce484222325L;
        for (byte b : key.getBytes(StandardCharsets.UTF_8)) {
            h ^= b & 0xff;
            h *= 0x100000001b3L;
        }
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        return h;
    }

    /** How many keys are held. */
    int size() {
        int size = 0;
        for (Segment segment : segments) {
            size += segment.size();
        }
        return size;
    }

    /** Approximate heap bytes used by the table. */
    long bytes() {
        long bytes = 0;
        for (Segment segment : segments) {
            bytes += segment.bytes();
        }
        return bytes;
    }

    /**
     * Calls {@code candidate} with the offset of every key with this hash first accepted after
     * {@code notBeforeMicros} (strictly: a key exactly as old as the retention no longer deduplicates).
     */
    void candidates(long hash, long notBeforeMicros, LongConsumer candidate) {
        segment(hash).candidates(hash, notBeforeMicros, candidate);
    }

    /** Adds a key's first acceptance. */
    void add(long hash, long offset, long acceptedAtMicros) {
        segment(hash).add(hash, offset, acceptedAtMicros);
    }

    /** Drops keys first accepted at or before {@code notBeforeMicros} or whose offset is at most {@code throughOffset}. */
    void removeExpired(long notBeforeMicros, long throughOffset) {
        for (Segment segment : segments) {
            segment.removeExpired(notBeforeMicros, throughOffset);
        }
    }

    private Segment segment(long hash) {
        return segments[(int) (hash >>> 58)];
    }

    /** One open-addressing table; a resize moves only its own keys. */
        private static final class Segment {

        private static final byte EMPTY = 0;
        private static final byte USED = 1;

        private long[] hashes;
        private long[] offsets;
        private long[] firstSeenMicros;
        private byte[] states;
        private int size;

        Segment() {
            allocate(1024);
        }

        /** How many keys are held. */
        int size() {
            return size;
        }

        /** Approximate heap bytes used by the table. */
        long bytes() {
            return (long) hashes.length * (8 + 8 + 8 + 1);
        }

        /**
         * Calls {@code candidate} with the offset of every key with this hash first accepted at or after
         * {@code notBeforeMicros}.
         */
        void candidates(long hash, long notBeforeMicros, LongConsumer candidate) {
            int mask = hashes.length - 1;
            for (int i = slot(hash, mask); states[i] != EMPTY; i = (i + 1) & mask) {
                if (states[i] == USED && hashes[i] == hash && firstSeenMicros[i] > notBeforeMicros) {
                    candidate.accept(offsets[i]);
                }
            }
        }

        /** Adds a key's first acceptance. */
        void add(long hash, long offset, long acceptedAtMicros) {
            if ((size + 1) * 4L > hashes.length * 3L) {
                rehash(hashes.length * 2, Long.MIN_VALUE, 0);
            }
            int mask = hashes.length - 1;
            int i = slot(hash, mask);
            while (states[i] == USED) {
                i = (i + 1) & mask;
            }
            hashes[i] = hash;
            offsets[i] = offset;
            firstSeenMicros[i] = acceptedAtMicros;
            states[i] = USED;
            size++;
        }

        /** Drops keys first accepted at or before {@code notBeforeMicros} or whose offset is at most {@code throughOffset}. */
        void removeExpired(long notBeforeMicros, long throughOffset) {
            rehash(hashes.length, notBeforeMicros, throughOffset);
        }

        private void rehash(int capacity, long notBeforeMicros, long throughOffset) {
            long[] oldHashes = hashes;
            long[] oldOffsets = offsets;
            long[] oldSeen = firstSeenMicros;
            byte[] oldStates = states;
            allocate(capacity);
            for (int i = 0; i < oldHashes.length; i++) {
                if (oldStates[i] == USED && oldSeen[i] > notBeforeMicros && oldOffsets[i] > throughOffset) {
                    add(oldHashes[i], oldOffsets[i], oldSeen[i]);
                }
            }
        }

        private void allocate(int capacity) {
            hashes = new long[capacity];
            offsets = new long[capacity];
            firstSeenMicros = new long[capacity];
            states = new byte[capacity];
            size = 0;
        }

        private static int slot(long hash, int mask) {
            return (int) (hash ^ (hash >>> 32)) & mask;
        }
    }
}
