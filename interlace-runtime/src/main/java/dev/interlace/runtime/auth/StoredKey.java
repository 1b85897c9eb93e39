package dev.interlace.runtime.auth;

import java.util.List;

/** One key as {@code keys.json} stores it: never the secret, only its SHA-256. */
record StoredKey(String id, String name, List<Scope> scopes, byte[] sha256, long createdAtMicros,
        long lastUsedAtMicros, double quotaEventsPerSecond, long revokedAtMicros) {

    boolean live() {
        return revokedAtMicros == 0;
    }

    ApiKey apiKey(long lastUsedAtMicros) {
        return new ApiKey(id, name, scopes, createdAtMicros, Math.max(lastUsedAtMicros, this.lastUsedAtMicros),
                quotaEventsPerSecond);
    }

    StoredKey usedAt(long micros) {
        return new StoredKey(id, name, scopes, sha256, createdAtMicros, Math.max(micros, lastUsedAtMicros),
                quotaEventsPerSecond, revokedAtMicros);
    }

    StoredKey revokedAt(long micros) {
        return new StoredKey(id, name, scopes, sha256, createdAtMicros, lastUsedAtMicros, quotaEventsPerSecond,
                micros);
    }
}
