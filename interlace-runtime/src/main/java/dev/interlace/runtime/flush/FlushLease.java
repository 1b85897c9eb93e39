package dev.interlace.runtime.flush;

import java.time.Duration;

/**
 * How the flusher holds each stream: a lease on the stream's consumer group {@value #GROUP} in the log, whose fencing
 * token it records in {@code streams._watermarks} before writing. A flusher that was paused past its
 * lease (GC, a stalled disk) finds its token superseded and writes nothing.
 *
 * @param owner the name the lease is held under; a restarted process with the same name renews its own unexpired
 *     lease instead of waiting for it to expire (the data directory lock guarantees the earlier one is gone)
 * @param ttl how long a lease lasts without renewal; the flusher renews it every third of that
 */
public record FlushLease(String owner, Duration ttl) {

    /** The consumer group the flusher leases in every stream; names starting with {@code __} are reserved. */
    public static final String GROUP = "__flusher";

    /**
     * The caller a flusher's lease, commit and release carry when they are sent to the stream's sequencer on another
     * node, signed with the cluster secret: the one caller the consumer routes let use the reserved group
     * {@value #GROUP}. API key ids ({@code key_<hex>}) never take this form, and a client's request forwarded by a
     * node carries the client's own key id.
     */
    public static final String PEER_CALLER = "node:flusher";

    /** The runtime's default: owner {@code interlace-flusher}, 15 s. */
    public static final FlushLease DEFAULT = new FlushLease("interlace-flusher", Duration.ofSeconds(15));

    public FlushLease {
        if (owner == null || owner.isBlank()) {
            throw new IllegalArgumentException("a flush lease needs an owner name");
        }
        if (ttl.toMillis() < 30) {
            throw new IllegalArgumentException("a flush lease lasts at least 30 ms, not " + ttl);
        }
    }

    long renewEveryNanos() {
        return ttl.toNanos() / 3;
    }
}
