package dev.interlace.runtime.log;

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
    DedupIndex dedup = new DedupIndex();

    StreamState(int id, String name) {
        this.id = id;
        this.name = name;
    }
}
