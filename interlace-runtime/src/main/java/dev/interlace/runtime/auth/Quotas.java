package dev.interlace.runtime.auth;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Per-key publish quotas on this node: for each key, a token bucket of events refilled at its events per second and
 * one of bytes refilled at its bytes per second, each holding at most one second's worth. A request larger than a
 * second's worth may go when the bucket is full and leaves it in debt, so a key's long-run rate is its quota whatever
 * its batch or body size.
 *
 * <p>Both buckets are charged together or not at all: a request refused by one limit takes nothing from the other, so
 * a refusal never costs a key any of its quota.
 */
public final class Quotas {

    /** Which of a key's limits refused a request. */
    public enum Limit {
        EVENTS("events"),
        BYTES("bytes");

        private final String wireName;

        Limit(String wireName) {
            this.wireName = wireName;
        }

        /** The name in a {@code 429 rate_limited} answer's {@code limit} field. */
        public String wireName() {
            return wireName;
        }
    }

    /**
     * A request refused by a quota.
     *
     * @param limit the limit that refused it (the one to wait longer for when both did)
     * @param retryAfterSeconds the whole seconds to wait before the request fits under every limit of the key
     */
    public record Refusal(Limit limit, int retryAfterSeconds) {}

    private final Map<String, KeyBuckets> buckets = new ConcurrentHashMap<>();

    /**
     * Takes {@code events} and {@code bytes} from the caller's buckets; empty when they may be published now, else
     * which limit refused them and how long to wait. A caller without a key, or a key without quotas, is never
     * limited.
     */
    public Optional<Refusal> take(Caller caller, int events, long bytes) {
        ApiKey key = caller.key();
        if (key == null || (key.quotaEventsPerSecond() <= 0 && key.quotaBytesPerSecond() <= 0) || events == 0) {
            return Optional.empty();
        }
        double eventRate = key.quotaEventsPerSecond();
        double byteRate = key.quotaBytesPerSecond();
        KeyBuckets bucket = buckets.compute(key.id(), (id, old) -> old == null || old.eventRate != eventRate
                || old.byteRate != byteRate ? new KeyBuckets(eventRate, byteRate, System.nanoTime()) : old);
        return bucket.take(events, bytes);
    }

    /** The two buckets of one key, charged under one lock so that they are charged together or not at all. */
    private static final class KeyBuckets {
        private final double eventRate;
        private final double byteRate;
        private final Bucket events;
        private final Bucket bytes;

        KeyBuckets(double eventRate, double byteRate, long nowNanos) {
            this.eventRate = eventRate;
            this.byteRate = byteRate;
            this.events = eventRate > 0 ? new Bucket(eventRate, nowNanos) : null;
            this.bytes = byteRate > 0 ? new Bucket(byteRate, nowNanos) : null;
        }

        synchronized Optional<Refusal> take(int eventCount, long byteCount) {
            long now = System.nanoTime();
            int eventWait = events == null ? 0 : events.waitSeconds(eventCount, now);
            int byteWait = bytes == null ? 0 : bytes.waitSeconds(byteCount, now);
            if (eventWait > 0 || byteWait > 0) {
                return Optional.of(byteWait > eventWait ? new Refusal(Limit.BYTES, byteWait)
                        : new Refusal(Limit.EVENTS, eventWait));
            }
            if (events != null) {
                events.tokens -= eventCount;
            }
            if (bytes != null) {
                bytes.tokens -= byteCount;
            }
            return Optional.empty();
        }
    }

    /** One token bucket; its owner holds the lock. */
    private static final class Bucket {
        private final double rate;
        private final double capacity;
        private double tokens;
        private long updatedNanos;

        Bucket(double rate, long nowNanos) {
            this.rate = rate;
            this.capacity = Math.max(1, rate);
            this.tokens = capacity;
            this.updatedNanos = nowNanos;
        }

        /** Refills up to {@code now}; 0 when {@code amount} may be taken, else the whole seconds until it may. */
        int waitSeconds(double amount, long now) {
            tokens = Math.min(capacity, tokens + (now - updatedNanos) / 1e9 * rate);
            updatedNanos = now;
            double needed = Math.min(amount, capacity);
            if (tokens >= needed) {
                return 0;
            }
            return (int) Math.max(1, Math.min(Integer.MAX_VALUE, Math.ceil((needed - tokens) / rate)));
        }
    }
}
