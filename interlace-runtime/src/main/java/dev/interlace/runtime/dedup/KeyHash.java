package dev.interlace.runtime.dedup;

import java.nio.charset.StandardCharsets;

/**
 * The 64-bit hash of a canonical idempotency key, stored with every keyed event ({@code key_hash}) and used by the
 * deduplication index: FNV-1a over the key's UTF-8 bytes with a final avalanche, so that every bit depends on every
 * byte (the index takes its segment, filter block and filter bits from different bits).
 */
public final class KeyHash {

    private KeyHash() {}

    public static long of(String key) {
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
}
