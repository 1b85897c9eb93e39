package dev.interlace.runtime.auth;

import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Per-key publish quotas on this node: a token bucket per key, refilled at the key's events per second and holding
 * at most one second's worth. A request larger than a second's worth may go when the bucket is full and leaves it
 * in debt, so a key's long-run rate is its quota whatever its batch size.
 */
public final class Quotas {

    private final Map<String, Bucket> buckets = new ConcurrentHashMap<>();

    /**
     * Takes {@code events} from the caller's bucket; empty when they may be published now, else the whole seconds to
     * wait before retrying. A caller without a key or a key without a quota is never limited.
     */
    public OptionalInt take(Caller caller, int events) {
        ApiKey key = caller.key();
        if (key == null || key.quotaEventsPerSecond() <= 0 || events == 0) {
            return OptionalInt.empty();
        }
        double rate = key.quotaEventsPerSecond();
        Bucket bucket = buckets.compute(key.id(), (id, old) ->
                old == null || old.rate != rate ? new Bucket(rate, System.nanoTime()) : old);
        return bucket.take(events);
    }

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

        synchronized OptionalInt take(int events) {
            long now = System.nanoTime();
            tokens = Math.min(capacity, tokens + (now - updatedNanos) / 1e9 * rate);
            updatedNanos = now;
            double needed = Math.min(events, capacity);
            if (tokens >= needed) {
                tokens -= events;
                return OptionalInt.empty();
            }
            return OptionalInt.of((int) Math.max(1, Math.ceil((needed - tokens) / rate)));
        }
    }
}
