package dev.interlace.runtime.dedup;

/**
 * The 64-bit hash of a canonical idempotency key, stored with every keyed event ({@code key_hash}) and used by the
 * deduplication index: FNV-1a over the key's UTF-8 bytes with a final avalanche, so that every bit depends on every
 * byte (the index takes its segment, filter block and filter bits from different bits). The function lives in the
 * client ({@link dev.interlace.client.Partitioning}), which chooses partitions with it too.
 */
public final class KeyHash {

    private KeyHash() {}

    public static long of(String key) {
        return dev.interlace.client.Partitioning.keyHash(key);
    }
}
