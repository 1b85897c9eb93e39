package dev.interlace.runtime.auth;

import java.util.List;

/**
 * An API key as the server and {@code interlace keys list} see it: never its secret, which is shown once at creation
 * and stored only as a SHA-256 hash.
 *
 * @param id a short public id, e.g. {@code key_3f9a0c2e}, safe to log and record
 * @param name the name given at creation, unique among live keys
 * @param scopes what it may do
 * @param createdAtMicros when it was created, epoch microseconds
 * @param lastUsedAtMicros when it last authenticated a request (updated at most once a minute), 0 when never
 * @param quotaEventsPerSecond its publish quota in events per second (token bucket, per node), 0 for none
 * @param quotaBytesPerSecond its publish quota in bytes of request body per second (token bucket, per node), 0 for
 *     none
 */
public record ApiKey(String id, String name, List<Scope> scopes, long createdAtMicros, long lastUsedAtMicros,
        double quotaEventsPerSecond, long quotaBytesPerSecond) {

    public ApiKey {
        scopes = List.copyOf(scopes);
    }

    /** Whether one of its scopes grants {@code required}. */
    public boolean allows(Scope required) {
        return scopes.stream().anyMatch(scope -> scope.grants(required));
    }
}
