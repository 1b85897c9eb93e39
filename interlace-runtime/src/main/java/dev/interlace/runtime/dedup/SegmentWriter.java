package dev.interlace.runtime.dedup;

import static dev.interlace.runtime.dedup.SegmentFile.BLOCK_BYTES;
import static dev.interlace.runtime.dedup.SegmentFile.CHECKED_HEADER_BYTES;
import static dev.interlace.runtime.dedup.SegmentFile.HEADER_BYTES;
import static dev.interlace.runtime.dedup.SegmentFile.KEYS_PER_BLOCK;
import static dev.interlace.runtime.dedup.SegmentFile.MAGIC;
import static dev.interlace.runtime.dedup.SegmentFile.MAX_KEYS;
import static dev.interlace.runtime.dedup.SegmentFile.PAIR_BYTES;
import static dev.interlace.runtime.dedup.SegmentFile.SUFFIX;
import static dev.interlace.runtime.dedup.SegmentFile.TEMPORARY_SUFFIX;
import static dev.interlace.runtime.dedup.SegmentFile.VERSION;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

/**
 * Writes a segment of at most {@code maxKeys} keys added in hash order: the filter and fences through a writable
 * mapping (no heap proportional to the keys), the run in chunks; {@link #finish} writes the header last, fsyncs
 * and renames the file to its final name.
 */
final class SegmentWriter implements Closeable {
    private final Path file;
    private final Path temporary;
    private final FileChannel channel;
    private final long afterOffset;
    private final long throughOffset;
    private final long newestIngestedAtMicros;
    private final long filterBytes;
    private final long blockCapacity;
    private final long fencesAt;
    private final long checksumsAt;
    private final long runOffset;
    private final MappedByteBuffer mapped;
    private final BlockedBloomFilter filter;
    private final ByteBuffer chunk = ByteBuffer.allocate(64 * BLOCK_BYTES);
    private final CRC32C blockCrc = new CRC32C();
    private long keys;
    private long lastHash = Long.MIN_VALUE;
    private boolean finished;

    SegmentWriter(Path file, long afterOffset, long throughOffset, long newestIngestedAtMicros, long maxKeys)
            throws IOException {
        if (maxKeys > MAX_KEYS) {
            throw new IllegalArgumentException("a segment holds at most " + MAX_KEYS + " keys, not " + maxKeys);
        }
        this.file = file;
        this.temporary = file.resolveSibling(file.getFileName().toString().replace(SUFFIX, TEMPORARY_SUFFIX));
        this.afterOffset = afterOffset;
        this.throughOffset = throughOffset;
        this.newestIngestedAtMicros = newestIngestedAtMicros;
        this.filterBytes = BlockedBloomFilter.bytesFor(maxKeys);
        this.blockCapacity = Math.max(1, (maxKeys + KEYS_PER_BLOCK - 1) / KEYS_PER_BLOCK);
        this.fencesAt = HEADER_BYTES + filterBytes;
        this.checksumsAt = fencesAt + blockCapacity * Long.BYTES;
        long runAt = checksumsAt + blockCapacity * Integer.BYTES;
        this.runOffset = (runAt + BLOCK_BYTES - 1) / BLOCK_BYTES * BLOCK_BYTES;
        this.channel = FileChannel.open(temporary, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.READ, StandardOpenOption.WRITE);
        this.mapped = channel.map(FileChannel.MapMode.READ_WRITE, HEADER_BYTES, runOffset - HEADER_BYTES);
        this.filter = new BlockedBloomFilter(mapped.duplicate().position(0).limit((int) filterBytes).slice()
                .order(ByteOrder.BIG_ENDIAN));
    }

    /** Adds the next pair; hashes must not decrease. */
    void add(long hash, long offset) throws IOException {
        if (hash < lastHash && keys > 0) {
            throw new IllegalArgumentException("hashes must be added in order");
        }
        lastHash = hash;
        if (keys == blockCapacity * KEYS_PER_BLOCK) {
            throw new IllegalStateException("more keys than the " + blockCapacity * KEYS_PER_BLOCK + " sized for");
        }
        filter.put(hash);
        if (keys % KEYS_PER_BLOCK == 0) {
            mapped.putLong((int) (fencesAt - HEADER_BYTES + keys / KEYS_PER_BLOCK * Long.BYTES), hash);
        }
        chunk.putLong(hash).putLong(offset);
        keys++;
        if (!chunk.hasRemaining()) {
            flushChunk();
        }
    }

    /** Writes the buffered pairs at their place in the run, with their blocks' checksums. */
    private void flushChunk() throws IOException {
        int bytes = chunk.position();
        if (bytes == 0) {
            return;
        }
        long firstPair = keys - bytes / PAIR_BYTES;
        long firstBlock = firstPair / KEYS_PER_BLOCK;
        for (int start = 0, index = 0; start < bytes; start += BLOCK_BYTES, index++) {
            blockCrc.reset();
            blockCrc.update(chunk.array(), start, Math.min(BLOCK_BYTES, bytes - start));
            mapped.putInt((int) (checksumsAt - HEADER_BYTES + (firstBlock + index) * Integer.BYTES),
                    (int) blockCrc.getValue());
        }
        chunk.flip();
        long position = runOffset + firstPair * PAIR_BYTES;
        while (chunk.hasRemaining()) {
            channel.write(chunk, position + chunk.position());
        }
        chunk.clear();
    }

    /** Writes the header, fsyncs and renames the file to its final name. */
    void finish(SegmentListener listener) throws IOException {
        flushChunk(); // what is left: a partial chunk, its last block perhaps partial
        channel.truncate(runOffset + keys * PAIR_BYTES);
        ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES);
        header.putLong(0, MAGIC).putInt(8, VERSION).putLong(16, afterOffset).putLong(24, throughOffset)
                .putLong(32, keys).putLong(40, newestIngestedAtMicros).putLong(48, HEADER_BYTES)
                .putLong(56, filterBytes).putLong(64, fencesAt).putLong(72, (keys + KEYS_PER_BLOCK - 1)
                        / KEYS_PER_BLOCK).putLong(80, checksumsAt).putLong(88, runOffset)
                .putLong(96, blockCapacity);
        CRC32C whole = new CRC32C();
        whole.update(header.duplicate().position(0).limit(CHECKED_HEADER_BYTES));
        whole.update(mapped.duplicate().position(0));
        header.putInt(CHECKED_HEADER_BYTES, (int) whole.getValue());
        channel.write(header, 0);
        listener.writing(temporary);
        mapped.force();
        channel.force(true);
        channel.close();
        try {
            Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            throw new IOException("cannot rename " + temporary + " atomically", e);
        }
        SegmentFile.syncDirectory(file.getParent());
        finished = true;
        listener.written(file);
    }

    Path temporary() {
        return temporary;
    }

    @Override
    public void close() throws IOException {
        if (channel.isOpen()) {
            channel.close();
        }
        if (!finished) {
            Files.deleteIfExists(temporary);
        }
    }
}
