package dev.interlace.client;

import java.nio.charset.StandardCharsets;

/**
 * How an event's partition is chosen, the one function the server and this client share: the unsigned remainder, by
 * the partition count, of the 64-bit hash of the event's canonical idempotency key (or of its declared partition key).
 * The hash is the one the server's deduplication index stores with every keyed event ({@code key_hash}): FNV-1a over
 * the key's UTF-8 bytes with a final avalanche, so that every bit depends on every byte. It is the same on every node
 * and version; changing it would move keys between partitions and break deduplication.
 */
public final class Partitioning {

    private Partitioning() {}

    /** The 64-bit hash of a canonical key. */
    public static long keyHash(String canonicalKey) {
        long h = 0xcbf29ce484222325L;
        for (byte b : canonicalKey.getBytes(StandardCharsets.UTF_8)) {
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

    /** The partition, of {@code partitions}, of an event whose canonical key is {@code canonicalKey}. */
    public static int partitionOf(String canonicalKey, int partitions) {
        return partitions == 1 ? 0 : (int) Long.remainderUnsigned(keyHash(canonicalKey), partitions);
    }
}
