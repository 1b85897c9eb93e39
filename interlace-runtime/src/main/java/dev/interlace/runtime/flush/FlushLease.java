package dev.interlace.runtime.flush;

import java.time.Duration;
import java.util.regex.Pattern;

/**
 * How the flusher holds each stream: a lease on the stream's consumer group {@link #group()} in the log, whose fencing
 * token it records in {@code streams._watermarks} before writing. A flusher that was paused past its
 * lease (GC, a stalled disk) finds its token superseded and writes nothing.
 *
 * <p>The group belongs to one warehouse: {@value #GROUP} for the warehouse every {@code --role all} node shares (the
 * SQLite log's only one; on Kafka the nodes split its streams between them, one lease each), and
 * {@code __flusher.<replica>} for a warehouse replica ({@code --role warehouse}), which flushes every stream into its
 * own DuckDB: the lease then only fences earlier runs of the same replica, never another replica.
 *
 * @param owner the name the lease is held under; a restarted process with the same name renews its own unexpired
 *     lease instead of waiting for it to expire (the data directory lock guarantees the earlier one is gone)
 * @param ttl how long a lease lasts without renewal; the flusher renews it every third of that
 * @param replica the replica this warehouse is, or null for the shared warehouse ({@value #GROUP})
 */
public record FlushLease(String owner, Duration ttl, String replica) {

    /** The consumer group of the shared warehouse, and the prefix of every replica's; {@code __} names are reserved. */
    public static final String GROUP = "__flusher";

    /** What a replica id is made of: it ends a group name (1-128 characters of {@code [A-Za-z0-9._:-]}). */
    public static final Pattern REPLICA = Pattern.compile("[A-Za-z0-9._:-]{1,100}");

    /**
     * The caller a flusher's lease, commit and release carry when they are sent to the stream's sequencer on another
     * node, signed with the cluster secret: the one caller the consumer routes let use the reserved flusher groups.
     * API key ids ({@code key_<hex>}) never take this form, and a client's request forwarded by a node carries the
     * client's own key id.
     */
    public static final String PEER_CALLER = "node:flusher";

    /** The runtime's default: owner {@code interlace-flusher}, 15 s, the shared warehouse. */
    public static final FlushLease DEFAULT = new FlushLease("interlace-flusher", Duration.ofSeconds(15));

    public FlushLease {
        if (owner == null || owner.isBlank()) {
            throw new IllegalArgumentException("a flush lease needs an owner name");
        }
        if (ttl.toMillis() < 30) {
            throw new IllegalArgumentException("a flush lease lasts at least 30 ms, not " + ttl);
        }
        if (replica != null && !REPLICA.matcher(replica).matches()) {
            throw new IllegalArgumentException("a replica id is 1-100 characters of [A-Za-z0-9._:-], not " + replica);
        }
    }

    /** A lease of the shared warehouse. */
    public FlushLease(String owner, Duration ttl) {
        this(owner, ttl, null);
    }

    /** The consumer group this flusher leases in every stream. */
    public String group() {
        return group(replica);
    }

    /** The flusher group of {@code replica} (null: the shared warehouse's). */
    public static String group(String replica) {
        return replica == null ? GROUP : GROUP + "." + replica;
    }

    /** Whether {@code group} is a flusher's: the shared warehouse's or a replica's. */
    public static boolean isFlusherGroup(String group) {
        return group.equals(GROUP) || group.startsWith(GROUP + ".");
    }

    /** The replica whose flusher group {@code group} is, null for the shared warehouse's. */
    public static String replicaOf(String group) {
        return group.equals(GROUP) ? null : group.substring(GROUP.length() + 1);
    }

    long renewEveryNanos() {
        return ttl.toNanos() / 3;
    }
}
