package dev.interlace.runtime.auth;

import java.security.MessageDigest;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * One key as it is stored — in {@code keys.json}, or on a log that shares keys between nodes: never the secret, only
 * its SHA-256.
 *
 * <p>A key's definition (id, name, scopes, hash, creation time, quotas) never changes once created; only its last use
 * and its revocation do, and both only one way: {@link #mergedWith} keeps the later last use and the earlier
 * revocation, so copies of a key that travel between stores in any order agree in the end, and a revoked key never
 * comes back to life.
 *
 * @param lastUsedAtMicros when it last authenticated a request, epoch microseconds; 0 when never
 * @param quotaEventsPerSecond its publish quota in events per second, 0 for none
 * @param quotaBytesPerSecond its publish quota in bytes of request body per second, 0 for none
 * @param revokedAtMicros when it was revoked, epoch microseconds; 0 while live
 */
public record StoredKey(String id, String name, List<Scope> scopes, byte[] sha256, long createdAtMicros,
        long lastUsedAtMicros, double quotaEventsPerSecond, long quotaBytesPerSecond, long revokedAtMicros) {

    public StoredKey {
        scopes = List.copyOf(scopes);
        sha256 = sha256.clone();
    }

    /** Whether it is not revoked. */
    public boolean live() {
        return revokedAtMicros == 0;
    }

    /** The key as the server and {@code interlace keys list} see it, with the later of the two last uses. */
    public ApiKey apiKey(long lastUsedAtMicros) {
        return new ApiKey(id, name, scopes, createdAtMicros, Math.max(lastUsedAtMicros, this.lastUsedAtMicros),
                quotaEventsPerSecond, quotaBytesPerSecond);
    }

    /** Whether {@code other} is a copy of the same key: the same id and the same definition. */
    public boolean sameDefinition(StoredKey other) {
        return id.equals(other.id) && name.equals(other.name) && scopes.equals(other.scopes)
                && Arrays.equals(sha256, other.sha256) && createdAtMicros == other.createdAtMicros
                && Double.compare(quotaEventsPerSecond, other.quotaEventsPerSecond) == 0
                && quotaBytesPerSecond == other.quotaBytesPerSecond;
    }

    /**
     * This key with what {@code other}, a copy of it, knows more: the later last use, and the earlier revocation
     * (a key revoked in either copy is revoked).
     *
     * @throws IllegalArgumentException when {@code other} is not a copy of this key ({@link #sameDefinition})
     */
    public StoredKey mergedWith(StoredKey other) {
        if (!sameDefinition(other)) {
            throw new IllegalArgumentException("two different keys have the id " + id);
        }
        long revoked = live() ? other.revokedAtMicros
                : other.live() ? revokedAtMicros : Math.min(revokedAtMicros, other.revokedAtMicros);
        return new StoredKey(id, name, scopes, sha256, createdAtMicros,
                Math.max(lastUsedAtMicros, other.lastUsedAtMicros), quotaEventsPerSecond, quotaBytesPerSecond,
                revoked);
    }

    /** The key as one JSON object, the same as one entry of {@code keys.json} (hash included, never a secret). */
    public byte[] toJson() {
        return KeyFileFormat.serializeKey(this);
    }

    /**
     * A key from {@link #toJson}'s form.
     *
     * @throws IllegalArgumentException saying what is wrong, when {@code json} is not such a key
     */
    public static StoredKey fromJson(byte[] json) {
        return KeyFileFormat.parseKey(json);
    }

    StoredKey usedAt(long micros) {
        return new StoredKey(id, name, scopes, sha256, createdAtMicros, Math.max(micros, lastUsedAtMicros),
                quotaEventsPerSecond, quotaBytesPerSecond, revokedAtMicros);
    }

    StoredKey revokedAt(long micros) {
        return new StoredKey(id, name, scopes, sha256, createdAtMicros, lastUsedAtMicros, quotaEventsPerSecond,
                quotaBytesPerSecond, micros);
    }

    /** Whether {@code presentedSha256} is this key's hash, compared in constant time. */
    public boolean hashMatches(byte[] presentedSha256) {
        return MessageDigest.isEqual(sha256, presentedSha256);
    }

    @Override
    public byte[] sha256() {
        return sha256.clone();
    }

    /** Compares the hash by content (a record compares arrays by identity). */
    @Override
    public boolean equals(Object other) {
        return other instanceof StoredKey key && sameDefinition(key) && lastUsedAtMicros == key.lastUsedAtMicros
                && revokedAtMicros == key.revokedAtMicros;
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, lastUsedAtMicros, revokedAtMicros);
    }

    @Override
    public String toString() {
        return "StoredKey[id=" + id + ", name=" + name + ", scopes=" + scopes + ", revokedAtMicros=" + revokedAtMicros
                + "]";
    }
}
