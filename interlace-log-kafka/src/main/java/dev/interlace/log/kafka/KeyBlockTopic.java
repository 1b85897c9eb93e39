package dev.interlace.log.kafka;

import dev.interlace.runtime.dedup.KeySource;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * A stream's key blocks on {@code <prefix><stream>__keys}: one record per transaction that accepted keyed events,
 * written in that transaction, holding each new key's offset and hash (16 bytes a key). It is the durable record the
 * sequencer's deduplication index is built from: sealing or rebuilding a million keys reads 16 MB of it instead of
 * every event with its payload, and the node that takes a stream over reads only the blocks after the segments it
 * already has.
 *
 * <p>Keys of events written before the stream had key blocks are read from the events themselves (each event's
 * record key is its idempotency key): the first block says from which offset on the blocks cover the stream. A block
 * is found by its newest key's offset with a binary search over the topic's Kafka offsets (those offsets and the
 * blocks' key offsets grow together), a few dozen point reads for hundreds of millions of blocks.
 */
final class KeyBlockTopic implements KeySource {

    private static final int BYTES_PER_KEY = 16;
    /** Keys read from the events themselves are handed to the index in groups of this many. */
    private static final int LEGACY_GROUP_KEYS = 4096;

    private final StreamView view;
    private final Topics topics;
    private final Readers readers;
    private final TopicPartition blocks;
    private final TopicPartition events;
    /**
     * The Kafka offset of the newest block this node's sequencer committed (-1: none): a scan reads at least through
     * it. A commit returns before the brokers have written its markers, so for a moment the topic's stable end can
     * still be before a block just committed; a seal started then must not cover offsets whose block it did not read.
     */
    private volatile long committedBlock = -1;

    KeyBlockTopic(StreamView view, Topics topics, Readers readers) {
        this.view = view;
        this.topics = topics;
        this.readers = readers;
        this.blocks = topics.keyBlocks(view.name);
        this.events = topics.events(view.name);
    }

    /** The cluster's id of the key blocks' topic (see {@link Topics#topicId}). */
    String topicId() {
        return topics.topicId(blocks);
    }

    /** The block of a transaction's new keys ((offset, hash) pairs), or null when it has none. */
    ProducerRecord<byte[], byte[]> record(long[] offsetsAndHashes, int keys, long atMicros, long coversAfter) {
        if (keys == 0) {
            return null;
        }
        ByteBuffer value = ByteBuffer.allocate(keys * BYTES_PER_KEY);
        long lastOffset = 0;
        for (int i = 0; i < keys; i++) {
            value.putLong(offsetsAndHashes[2 * i]).putLong(offsetsAndHashes[2 * i + 1]);
            lastOffset = Math.max(lastOffset, offsetsAndHashes[2 * i]);
        }
        return new ProducerRecord<>(blocks.topic(), 0, null, null, value.array(),
                Codec.keyBlockHeaders(lastOffset, atMicros, coversAfter));
    }

    @Override
    public void scan(long afterOffset, long notBeforeMicros, GroupVisitor visitor) throws IOException {
        long end = end();
        long start = topics.start(blocks);
        ConsumerRecord<byte[], byte[]> first = readers.first(blocks, start, end);
        long coveredAfter = first == null ? view.headOffset() : Codec.longHeader(first.headers(), Codec.COVERS_AFTER);
        if (afterOffset < coveredAfter && !legacyKeys(afterOffset, coveredAfter, notBeforeMicros, visitor)) {
            return;
        }
        readers.scan(blocks, firstBlockAfter(afterOffset, start, end), end, record -> {
            long at = Codec.longHeader(record.headers(), Codec.AT);
            if (at <= notBeforeMicros) {
                return true;
            }
            return visitor.group(Codec.longHeader(record.headers(), Codec.LAST), at, ByteBuffer.wrap(record.value()));
        });
    }

    /**
     * The Kafka offset of the first block whose newest key is after {@code afterOffset} (or {@code end}): where a
     * scan starts, and before which a trim through {@code afterOffset} deletes the blocks.
     */
    long firstBlockAfter(long afterOffset, long start, long end) {
        long low = start;
        long high = end;
        while (low < high) {
            long middle = (low + high) >>> 1;
            ConsumerRecord<byte[], byte[]> block = readers.first(blocks, middle, high);
            if (block == null || Codec.longHeader(block.headers(), Codec.LAST) > afterOffset) {
                high = middle;
            } else {
                low = block.offset() + 1;
            }
        }
        return low;
    }

    /** Records that the block at Kafka offset {@code kafkaOffset} is committed (by this node's sequencer). */
    void committed(long kafkaOffset) {
        if (kafkaOffset > committedBlock) {
            committedBlock = kafkaOffset;
        }
    }

    /** Deletes the blocks whose keys are all at or below {@code throughOffset} (trimmed). */
    void deleteThrough(long throughOffset) {
        long end = end();
        topics.deleteBefore(blocks, firstBlockAfter(throughOffset, topics.start(blocks), end));
    }

    /**
     * Where a scan ends (exclusive): the topic's stable end, or just past the newest block this node committed if
     * that is later; reading there waits until the block's transaction markers are written and it is readable.
     */
    private long end() {
        return Math.max(topics.stableEnds(List.of(blocks)).get(blocks), committedBlock + 1);
    }

    /** The keys of events in {@code (afterOffset, through]}, read from the events; whether to go on. */
    private boolean legacyKeys(long afterOffset, long through, long notBeforeMicros, GroupVisitor visitor)
            throws IOException {
        if (through <= view.trimmedThrough()) {
            return true;
        }
        long from = Math.max(afterOffset, view.trimmedThrough()) + 1;
        ByteBuffer group = ByteBuffer.allocate(LEGACY_GROUP_KEYS * BYTES_PER_KEY);
        long[] newest = {0, 0}; // offset, arrival
        boolean[] goOn = {true};
        long end = topics.stableEnds(List.of(events)).get(events);
        readers.scan(events, view.readFrom(from), end, record -> {
            long offset = Codec.longHeader(record.headers(), Codec.OFFSET);
            if (offset > through) {
                return false;
            }
            long at = Codec.longHeader(record.headers(), Codec.AT);
            if (offset >= from && record.key() != null && at > notBeforeMicros) {
                group.putLong(offset).putLong(dev.interlace.runtime.dedup.KeyHash.of(Codec.text(record.key())));
                newest[0] = offset;
                newest[1] = at;
                if (!group.hasRemaining()) {
                    goOn[0] = visitor.group(newest[0], newest[1], group.flip());
                    group.clear();
                    return goOn[0];
                }
            }
            return true;
        });
        if (goOn[0] && group.position() > 0) {
            goOn[0] = visitor.group(newest[0], newest[1], group.flip());
        }
        return goOn[0];
    }
}
