package dev.interlace.runtime.dedup;

import java.util.function.LongConsumer;

/**
 * The keys of a stream accepted since its last sealed segment, in memory: from a key's 64-bit hash to the offset of
 * the event that first carried it, in open-addressing tables of one {@code long} per slot (8 bytes a slot, 11 to 21
 * bytes a key at the tables' load factor of 0.375 to 0.75). Bounded: once it holds the index's
 * {@code recentKeys}, the index freezes it and seals its keys into a segment on disk.
 *
 * <p>A slot packs 24 bits of the hash (its fingerprint, which also gives the slot's home position) with the offset
 * relative to the table's base (40 bits); the table is chosen by 6 more bits. A match is therefore only a candidate,
 * which the log confirms by the full key stored with the event.
 *
 * <p>Owned by the log's writer thread; not thread-safe.
 */
final class RecentKeys {

    /** Tables, chosen by the hash's top bits, so that growing never rehashes every key at once. */
    private static final int TABLES = 64;
    /** Bits of a slot that hold the offset (relative to the table's base); the rest holds the fingerprint. */
    private static final int OFFSET_BITS = 40;
    private static final long OFFSET_MASK = (1L << OFFSET_BITS) - 1;
    private static final int FINGERPRINT_BITS = 64 - OFFSET_BITS;

    private final Table[] tables = new Table[TABLES];

    RecentKeys() {
        for (int i = 0; i < TABLES; i++) {
            tables[i] = new Table();
        }
    }

    /** How many keys are held. */
    int size() {
        int size = 0;
        for (Table table : tables) {
            size += table.size;
        }
        return size;
    }

    /** Heap bytes used by the tables (array headers included). */
    long bytes() {
        long bytes = 0;
        for (Table table : tables) {
            bytes += 16L + 8L * table.slots.length;
        }
        return bytes;
    }

    /**
     * Calls {@code candidate} with the offset of every key that may have this hash: every key with that hash, and
     * rarely one whose hash only shares the bits kept.
     */
    void candidates(long hash, LongConsumer candidate) {
        table(hash).candidates(fingerprint(hash), candidate);
    }

    /** Whether some key may have this hash: {@link #candidates} would give at least one. */
    boolean mayHold(long hash) {
        return table(hash).mayHold(fingerprint(hash));
    }

    /** Adds a key's first acceptance at {@code offset} (at least 1). */
    void add(long hash, long offset) {
        if (offset < 1) {
            throw new IllegalArgumentException("offsets start at 1, not " + offset);
        }
        table(hash).add(fingerprint(hash), offset);
    }

    /** Drops the keys of events at or below {@code throughOffset} (trimmed from the log). */
    void removeThrough(long throughOffset) {
        for (Table table : tables) {
            table.rehash(table.slots.length, throughOffset);
        }
    }

    private Table table(long hash) {
        return tables[(int) (hash >>> 58)];
    }

    /** The bits of the hash a slot keeps: below the six that choose the table. */
    private static long fingerprint(long hash) {
        return (hash >>> (58 - FINGERPRINT_BITS)) & ((1L << FINGERPRINT_BITS) - 1);
    }

    /** One open-addressing table of packed slots (0 = empty); a resize moves only its own keys. */
    private static final class Table {

        private long[] slots = new long[1024];
        private int size;
        /** Slots hold offsets minus this (so that a slot's offset is never 0, which marks an empty slot). */
        private long base;

        boolean mayHold(long fingerprint) {
            int mask = slots.length - 1;
            for (int i = home(fingerprint, mask); slots[i] != 0; i = (i + 1) & mask) {
                if (slots[i] >>> OFFSET_BITS == fingerprint) {
                    return true;
                }
            }
            return false;
        }

        void candidates(long fingerprint, LongConsumer candidate) {
            int mask = slots.length - 1;
            for (int i = home(fingerprint, mask); slots[i] != 0; i = (i + 1) & mask) {
                if (slots[i] >>> OFFSET_BITS == fingerprint) {
                    candidate.accept(base + (slots[i] & OFFSET_MASK));
                }
            }
        }

        void add(long fingerprint, long offset) {
            if (offset - base > OFFSET_MASK) {
                rebase(offset);
                if (offset - base > OFFSET_MASK) {
                    throw new IllegalStateException("more than " + OFFSET_MASK + " offsets in a deduplication window");
                }
            }
            if ((size + 1) * 4L > slots.length * 3L) {
                rehash(slots.length * 2, 0);
            }
            put(slots, fingerprint << OFFSET_BITS | (offset - base));
            size++;
        }

        /** Moves the base up to just below the smallest offset held or being added, so that larger offsets fit. */
        private void rebase(long adding) {
            long smallest = adding;
            for (long slot : slots) {
                if (slot != 0) {
                    smallest = Math.min(smallest, base + (slot & OFFSET_MASK));
                }
            }
            long[] old = slots;
            long oldBase = base;
            base = smallest - 1;
            slots = new long[old.length];
            for (long slot : old) {
                if (slot != 0) {
                    put(slots, (slot & ~OFFSET_MASK) | (oldBase + (slot & OFFSET_MASK) - base));
                }
            }
        }

        /** Re-inserts the slots whose offset is above {@code throughOffset} into a table of {@code capacity}. */
        void rehash(int capacity, long throughOffset) {
            long[] old = slots;
            slots = new long[capacity];
            size = 0;
            for (long slot : old) {
                if (slot != 0 && base + (slot & OFFSET_MASK) > throughOffset) {
                    put(slots, slot);
                    size++;
                }
            }
        }

        private static void put(long[] table, long slot) {
            int mask = table.length - 1;
            int i = home(slot >>> OFFSET_BITS, mask);
            while (table[i] != 0) {
                i = (i + 1) & mask;
            }
            table[i] = slot;
        }

        /** A slot's home position: from its fingerprint, whose low bits are as random as the hash. */
        private static int home(long fingerprint, int mask) {
            return (int) fingerprint & mask;
        }
    }
}
