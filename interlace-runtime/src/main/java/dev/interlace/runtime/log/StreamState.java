package dev.interlace.runtime.log;

import dev.interlace.runtime.dedup.DedupIndex;

/**
 * The writer's view of one stream: its positions and its deduplication index. Owned by the writer thread; the
 * consumer-group decisions read it there.
 */
final class StreamState {
    final int id;
    final String name;
    long head;
    long quarantineHead;
    long trimmedThrough;
    long retentionMicros;
    boolean keyed;
    /** Null for a stream without idempotency key, and until the stream is registered. */
    DedupIndex dedup;

    StreamState(int id, String name) {
        this.id = id;
        this.name = name;
    }

    /** Its positions as readers see them. */
    StreamHead publishedHead() {
        return new StreamHead(name, head, quarantineHead, trimmedThrough + 1);
    }
}
