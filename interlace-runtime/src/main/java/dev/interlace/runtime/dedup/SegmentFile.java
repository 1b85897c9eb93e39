package dev.interlace.runtime.dedup;

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
import java.util.function.LongConsumer;
import java.util.zip.CRC32C;

/**
 * One sealed segment of a stream's deduplication index: the keys accepted in an offset range, as a file that says
 * which range it covers and holds, for each key, its 64-bit hash and the offset of the event that first carried it.
 *
 * <p>Layout (big-endian): a 128-byte header; a {@link BlockedBloomFilter}; the fences (the first hash of each run
 * block, 8 bytes each) and each block's CRC-32C (4 bytes); then the run, the (hash, offset) pairs sorted by hash, in
 * blocks of {@value #KEYS_PER_BLOCK} pairs (4 KiB). The header's own checksum covers the header, the filter, the
 * fences and the block checksums: the part read when the segment opens, memory-mapped so that it costs page cache and
 * not heap. A run block is read (one {@code pread}) and checked only when the filter says "maybe".
 *
 * <p>A lookup of a new key is one filter test (one cache line); of a key the filter wrongly suspects, one block read
 * that finds no such hash; of a stored key, one block read. Written once to a temporary name, fsynced and renamed:
 * a file under its final name is complete.
 */
public final class SegmentFile implements Closeable {

    /** The suffix of a segment file's name; a file of that name is complete (written, fsynced and renamed). */
    static final String SUFFIX = ".seg";
    static final String TEMPORARY_SUFFIX = ".seg.tmp";
    /** The suffix of a segment restored without its run, fetched when read ({@link RemoteRuns}). */
    public static final String REMOTE_SUFFIX = ".seg.remote";
    static final int KEYS_PER_BLOCK = 256;
    static final int PAIR_BYTES = 16;
    static final int BLOCK_BYTES = KEYS_PER_BLOCK * PAIR_BYTES;
    static final int HEADER_BYTES = 128;
    /** The bytes of the header its checksum covers: everything before the checksum field. */
    static final int CHECKED_HEADER_BYTES = 104;
    static final long MAGIC = 0x494C444544555031L; // "ILDEDUP1"
    static final int VERSION = 1;
    /** The most keys one segment holds: its filter stays under the 2 GiB a mapped buffer can address. */
    public static final long MAX_KEYS = 1L << 30;

    private final Path file;
    private final FileChannel channel;
    private final long afterOffset;
    private final long throughOffset;
    private final long keys;
    private final long newestIngestedAtMicros;
    private final long blocks;
    private final long runOffset;
    private final long fencesAt;
    private final long checksumsAt;
    /** The filter, fences and block checksums, mapped read-only. */
    private final MappedByteBuffer mapped;
    private final BlockedBloomFilter filter;
    /** The block being read; lookups run on one thread (the log's writer). */
    private final ByteBuffer block = ByteBuffer.allocate(BLOCK_BYTES);
    private final CRC32C crc = new CRC32C();
    /** Where the run's parts not on disk yet come from, for a segment restored without its run; else null. */
    private final RemoteRun remote;

    private SegmentFile(Path file, FileChannel channel, ByteBuffer header, long size, RemoteRuns runs)
            throws IOException {
        this.file = file;
        this.channel = channel;
        this.afterOffset = header.getLong(16);
        this.throughOffset = header.getLong(24);
        this.keys = header.getLong(32);
        this.newestIngestedAtMicros = header.getLong(40);
        long filterAt = header.getLong(48);
        long filterBytes = header.getLong(56);
        this.fencesAt = header.getLong(64);
        this.blocks = header.getLong(72);
        this.checksumsAt = header.getLong(80);
        this.runOffset = header.getLong(88);
        long blockCapacity = header.getLong(96);
        if (filterAt != HEADER_BYTES || filterBytes <= 0 || filterBytes % BlockedBloomFilter.BLOCK_BYTES != 0
                || fencesAt != filterAt + filterBytes || blocks != (keys + KEYS_PER_BLOCK - 1) / KEYS_PER_BLOCK
                || blockCapacity < blocks || checksumsAt != fencesAt + blockCapacity * Long.BYTES
                || runOffset < checksumsAt + blockCapacity * Integer.BYTES || runOffset - filterAt > Integer.MAX_VALUE
                || keys < 0 || afterOffset < 0 || throughOffset < afterOffset
                || size != runOffset + keys * PAIR_BYTES) {
            throw new CorruptSegmentException(file, "its header does not describe a file of " + size + " bytes");
        }
        this.mapped = channel.map(FileChannel.MapMode.READ_ONLY, filterAt, runOffset - filterAt);
        CRC32C whole = new CRC32C();
        whole.update(header.duplicate().position(0).limit(CHECKED_HEADER_BYTES));
        whole.update(mapped.duplicate());
        if ((int) whole.getValue() != header.getInt(CHECKED_HEADER_BYTES)) {
            throw new CorruptSegmentException(file, "its checksum does not match its filter and fences");
        }
        this.filter = new BlockedBloomFilter(mapped.duplicate().position(0).limit((int) filterBytes).slice());
        String name = file.getFileName().toString();
        String complete = name.substring(0, Math.max(0, name.length() - REMOTE_SUFFIX.length())) + SUFFIX;
        this.remote = runs == null ? null : new RemoteRun(file, complete, runs, runOffset, size);
    }

    /**
     * Opens and checks a complete segment file.
     *
     * @throws CorruptSegmentException when it is not a whole segment written by this version
     */
    public static SegmentFile open(Path file) throws IOException {
        return open(file, null);
    }

    /** Opens and checks a segment restored without its run (a hole), whose parts {@code runs} fetches when read. */
    static SegmentFile openRemote(Path file, RemoteRuns runs) throws IOException {
        return open(file, runs);
    }

    private static SegmentFile open(Path file, RemoteRuns runs) throws IOException {
        FileChannel channel = FileChannel.open(file, StandardOpenOption.READ);
        try {
            long size = channel.size();
            ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES);
            if (size < HEADER_BYTES || channel.read(header, 0) < HEADER_BYTES || header.getLong(0) != MAGIC
                    || header.getInt(8) != VERSION) {
                throw new CorruptSegmentException(file, "it does not start with a version " + VERSION + " header");
            }
            return new SegmentFile(file, channel, header, size, runs);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /**
     * Writes a segment of {@code count} keys: {@code hashes} ascending, {@code offsets} beside them; durable under its
     * final name {@code file} when this returns.
     */
    public static void write(Path file, long afterOffset, long throughOffset, long newestIngestedAtMicros,
            long[] hashes, long[] offsets, int count) throws IOException {
        try (SegmentWriter writer = new SegmentWriter(file, afterOffset, throughOffset, newestIngestedAtMicros,
                count)) {
            for (int i = 0; i < count; i++) {
                writer.add(hashes[i], offsets[i]);
            }
            writer.finish(SegmentListener.NONE);
        }
    }

    /** The offset range this segment covers, read from its header without checking the rest. */
    public static long[] range(Path file) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES);
            channel.read(header, 0);
            return new long[] {header.getLong(16), header.getLong(24)};
        }
    }

    /** The file name of the segment covering {@code (afterOffset, throughOffset]}: sorts by range. */
    static String name(long afterOffset, long throughOffset) {
        return String.format("%019d-%019d", afterOffset, throughOffset) + SUFFIX;
    }

    Path file() {
        return file;
    }

    /** Keys of events after this offset are in this segment (or after it). */
    long afterOffset() {
        return afterOffset;
    }

    /** Every key of an event up to this offset (and after {@link #afterOffset}) that was in the window is here. */
    long throughOffset() {
        return throughOffset;
    }

    long keys() {
        return keys;
    }

    long newestIngestedAtMicros() {
        return newestIngestedAtMicros;
    }

    /** Bytes mapped into memory (the filter, fences and checksums: what a lookup touches without reading). */
    long mappedBytes() {
        return mapped.capacity();
    }

    long fileBytes() {
        return runOffset + keys * PAIR_BYTES;
    }

    /** Whether the segment may hold this hash, by its filter alone: false for most hashes it does not hold. */
    boolean mayHold(long hash) {
        return keys != 0 && filter.mightContain(hash);
    }

    /**
     * Calls {@code candidate} with the offset of every key stored with exactly this hash (none, for most hashes,
     * without reading the disk).
     *
     * @throws CorruptSegmentException when the block read does not match its checksum
     */
    void candidates(long hash, LongConsumer candidate) throws IOException {
        long first = firstBlockOf(hash);
        for (long index = first; index >= 0 && index < blocks && fence(index) <= hash; index++) {
            int pairs = readBlock(index);
            for (int i = 0; i < pairs; i++) {
                long stored = block.getLong(i * PAIR_BYTES);
                if (stored == hash) {
                    candidate.accept(block.getLong(i * PAIR_BYTES + Long.BYTES));
                } else if (stored > hash) {
                    return;
                }
            }
        }
    }

    /**
     * For a segment restored without its run: the bytes of the run a lookup of this hash reads that are not on disk
     * yet, as {@code {position, length}}; null when there are none (the lookup reads the disk only). Reads the mapped
     * filter and fences only.
     */
    long[] missingRun(long hash) {
        if (remote == null) {
            return null;
        }
        long first = firstBlockOf(hash);
        if (first < 0) {
            return null;
        }
        long last = first;
        while (last + 1 < blocks && fence(last + 1) <= hash) {
            last++;
        }
        long position = runOffset + first * BLOCK_BYTES;
        long end = Math.min(runOffset + keys * PAIR_BYTES, runOffset + (last + 1) * BLOCK_BYTES);
        return remote.here(position, end - position) ? null : new long[] {position, end - position};
    }

    /**
     * The first run block that may hold this hash, or -1 when the filter rules it out: the hash can only be in the
     * blocks from there whose fence is at most the hash.
     */
    private long firstBlockOf(long hash) {
        if (keys == 0 || !filter.mightContain(hash)) {
            return -1;
        }
        // The first block whose fence is above the hash; the hash can only be in blocks before it.
        long low = 0;
        long high = blocks;
        while (low < high) {
            long middle = (low + high) >>> 1;
            if (fence(middle) <= hash) {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        long first = Math.max(0, low - 1);
        while (first > 0 && fence(first) == hash) {
            first--; // equal hashes may begin in an earlier block
        }
        return first;
    }

    private long fence(long index) {
        return mapped.getLong((int) (fencesAt - HEADER_BYTES + index * Long.BYTES));
    }

    /** Reads run block {@code index} into {@link #block}, checked; returns its number of pairs. */
    private int readBlock(long index) throws IOException {
        int pairs = (int) Math.min(KEYS_PER_BLOCK, keys - index * KEYS_PER_BLOCK);
        block.clear().limit(pairs * PAIR_BYTES);
        long position = runOffset + index * BLOCK_BYTES;
        fetchIfRemote(position, pairs * PAIR_BYTES);
        while (block.hasRemaining()) {
            if (channel.read(block, position + block.position()) < 0) {
                throw new CorruptSegmentException(file, "block " + index + " ends before its end");
            }
        }
        crc.reset();
        crc.update(block.array(), 0, pairs * PAIR_BYTES);
        if ((int) crc.getValue() != mapped.getInt((int) (checksumsAt - HEADER_BYTES + index * Integer.BYTES))) {
            throw new CorruptSegmentException(file, "block " + index + " does not match its checksum");
        }
        return pairs;
    }

    /** The run of a segment restored without it, fetched part by part; null for a segment whose run is here. */
    RemoteRun remoteRun() {
        return remote;
    }

    private void fetchIfRemote(long position, long bytes) throws IOException {
        if (remote != null) {
            remote.ensure(position, bytes);
        }
    }

    /** A reader of the run in hash order, on a channel of its own (for merging on another thread). */
    Cursor cursor() throws IOException {
        return new Cursor();
    }

    @Override
    public void close() throws IOException {
        channel.close();
        if (remote != null) {
            remote.close();
        }
    }

    @Override
    public String toString() {
        return file.getFileName() + " (" + keys + " keys)";
    }

    /** Pairs of the run in order, read in large chunks, each block checked. */
    final class Cursor implements Closeable {
        private final FileChannel own = FileChannel.open(file, StandardOpenOption.READ);
        private final ByteBuffer chunk = ByteBuffer.allocate(64 * BLOCK_BYTES);
        private final CRC32C blockCrc = new CRC32C();
        private long nextPair;
        private long hash;
        private long offset;

        private Cursor() throws IOException {
            chunk.limit(0);
        }

        /** Moves to the next pair; false at the end. */
        boolean next() throws IOException {
            if (nextPair == keys) {
                return false;
            }
            if (!chunk.hasRemaining()) {
                fill();
            }
            hash = chunk.getLong();
            offset = chunk.getLong();
            nextPair++;
            return true;
        }

        long hash() {
            return hash;
        }

        long offset() {
            return offset;
        }

        private void fill() throws IOException {
            long firstBlock = nextPair / KEYS_PER_BLOCK;
            long bytes = Math.min(chunk.capacity(), (keys - nextPair) * PAIR_BYTES);
            chunk.clear().limit((int) bytes);
            long position = runOffset + nextPair * PAIR_BYTES;
            fetchIfRemote(position, bytes);
            while (chunk.hasRemaining()) {
                if (own.read(chunk, position + chunk.position()) < 0) {
                    throw new CorruptSegmentException(file, "its run ends early");
                }
            }
            for (int start = 0, index = 0; start < bytes; start += BLOCK_BYTES, index++) {
                int length = (int) Math.min(BLOCK_BYTES, bytes - start);
                blockCrc.reset();
                blockCrc.update(chunk.array(), start, length);
                int expected = mapped.getInt((int) (checksumsAt - HEADER_BYTES + (firstBlock + index) * Integer.BYTES));
                if ((int) blockCrc.getValue() != expected) {
                    throw new CorruptSegmentException(file, "block " + (firstBlock + index)
                            + " does not match its checksum");
                }
            }
            chunk.flip();
        }

        @Override
        public void close() throws IOException {
            own.close();
        }
    }

    /** Makes a rename in {@code directory} durable. */
    static void syncDirectory(Path directory) throws IOException {
        try (FileChannel dir = FileChannel.open(directory, StandardOpenOption.READ)) {
            dir.force(true);
        } catch (IOException e) {
            if (!System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).contains("win")) {
                throw e;
            }
        }
    }

    /** A segment file that is not what its header says: it is rebuilt from the log. */
    public static final class CorruptSegmentException extends IOException {
        CorruptSegmentException(Path file, String why) {
            super("deduplication segment " + file + " is unusable: " + why);
        }
    }
}
