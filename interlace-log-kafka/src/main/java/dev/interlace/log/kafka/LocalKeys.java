package dev.interlace.log.kafka;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Stream;

/**
 * The idempotency key and arrival of every keyed event this node has read, on its own disk, by offset: how the
 * sequencer confirms a deduplication candidate with one local read instead of a fetch from the topic. Kept by a node
 * that may sequence streams, for the keyed streams it follows, as its tailer reads their events (from the newest
 * records of each topic when it begins to follow the stream, so the files are made anew at every start, need no
 * recovery, and are removed at a stop). The events stay the authority: what is here is a copy of their record keys
 * and {@code at} headers, and an offset this copy does not cover (not yet read, or older than where the tailer
 * began) is confirmed from the topic as before.
 *
 * <p>Per stream, one file per {@value #CHUNK_OFFSETS} offsets ({@code <stream>/<chunk>.keys}): records of the offset
 * (as a delta), the arrival (a delta), the key's length and its UTF-8 bytes, appended in offset order. The heap holds
 * where each run of {@value #STRIDE} offsets starts (8 bytes, 0.06 bytes an offset) and a write buffer per stream;
 * a lookup reads one run. A chunk is deleted whole once a trim has passed it.
 *
 * <p>One writer, the tailer's thread ({@link #saw}, {@link #flush}); lookups ({@link #find}) from any thread see
 * what the last flush wrote.
 */
final class LocalKeys implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(LocalKeys.class.getName());
    static final int CHUNK_OFFSETS = 1 << 22;
    static final int STRIDE = 128;
    private static final int BUFFER_BYTES = 64 * 1024;

    /** A keyed event's key and arrival as this node read them. */
    record Found(String key, long atMicros) {}

    private final Path directory;
    private final Map<String, StreamKeys> streams = new ConcurrentHashMap<>();
    private volatile boolean closed;

    /** Keys under {@code directory}, emptied first: the tailer reads every event again. */
    LocalKeys(Path directory) {
        this.directory = directory;
        try {
            deleteRecursively(directory);
            Files.createDirectories(directory);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare " + directory, e);
        }
    }

    /**
     * The tailer read event {@code offset} of {@code stream} (keyed), which arrived at {@code atMicros} and carries
     * {@code key} (null: none); the stream is trimmed through {@code trimmedThrough}.
     */
    void saw(String stream, long offset, long atMicros, byte[] key, long trimmedThrough) {
        if (closed) {
            return;
        }
        try {
            streams.computeIfAbsent(stream, this::open).saw(offset, atMicros, key, trimmedThrough);
        } catch (IOException e) {
            // The copy of this stream stops; its candidates are confirmed from the topic.
            LOG.log(Level.WARNING, "cannot keep the keys of stream " + stream + " on this node's disk; its"
                    + " deduplication candidates are confirmed from the topic", e);
            StreamKeys broken = streams.put(stream, StreamKeys.BROKEN);
            if (broken != null) {
                broken.close();
            }
        }
    }

    /** Writes what {@link #saw} buffered, making it visible to lookups (the tailer's thread, after each poll). */
    void flush() {
        for (Map.Entry<String, StreamKeys> entry : streams.entrySet()) {
            try {
                entry.getValue().flush();
            } catch (IOException e) {
                LOG.log(Level.WARNING, "cannot keep the keys of stream " + entry.getKey() + " on this node's disk",
                        e);
                entry.getValue().close();
                entry.setValue(StreamKeys.BROKEN);
            }
        }
    }

    /** Whether {@link #find} answers for {@code offset} of {@code stream}: this copy covers it. */
    boolean covers(String stream, long offset) {
        StreamKeys keys = streams.get(stream);
        return keys != null && keys.covers(offset);
    }

    /** The newest offset of {@code stream} this copy covers (-1: none); for tests and benchmarks. */
    long through(String stream) {
        StreamKeys keys = streams.get(stream);
        return keys == null || keys.directory == null ? -1 : keys.through;
    }

    /**
     * The key and arrival of event {@code offset} of {@code stream}, or null when it carries no key; call only for
     * an offset {@link #covers} says is here.
     *
     * @throws IOException when the copy cannot be read (the caller confirms from the topic)
     */
    Found find(String stream, long offset) throws IOException {
        StreamKeys keys = streams.get(stream);
        if (keys == null) {
            throw new IOException("no keys of stream " + stream + " on this node");
        }
        return keys.find(offset);
    }

    private StreamKeys open(String stream) {
        return new StreamKeys(directory.resolve(stream));
    }

    /** Closes the files and removes them: the next start makes them anew. */
    @Override
    public void close() {
        closed = true;
        streams.values().forEach(StreamKeys::close);
        streams.clear();
        try {
            deleteRecursively(directory);
        } catch (IOException e) {
            LOG.log(Level.WARNING, "cannot remove " + directory + "; the next start does", e);
        }
    }

    private static void deleteRecursively(Path path) throws IOException {
        if (!Files.exists(path)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(path)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    /** One stream's copy. */
    private static final class StreamKeys {

        static final StreamKeys BROKEN = new StreamKeys(null);

        private final Path directory;
        private final ConcurrentSkipListMap<Long, Chunk> chunks = new ConcurrentSkipListMap<>();
        private final ByteBuffer buffer = ByteBuffer.allocate(BUFFER_BYTES);
        /** The first offset this copy holds; every event from it through {@link #through} has been read. */
        private volatile long from = -1;
        /** The newest offset whose record (if keyed) is in the file: what lookups may ask for. */
        private volatile long through = -1;
        // The writer's own state.
        private long seen = -1;
        private Chunk writing;
        private long previousOffset;
        private long previousAt;
        private int slot = -1;

        StreamKeys(Path directory) {
            this.directory = directory;
        }

        boolean covers(long offset) {
            return directory != null && from >= 0 && offset >= from && offset <= through;
        }

        void saw(long offset, long atMicros, byte[] key, long trimmedThrough) throws IOException {
            if (directory == null || offset <= seen) {
                return;
            }
            long chunkIndex = (offset - 1) / CHUNK_OFFSETS;
            if (writing == null || writing.index != chunkIndex) {
                flush();
                if (writing == null) {
                    Files.createDirectories(directory);
                    from = offset;
                }
                writing = new Chunk(chunkIndex, directory.resolve(chunkIndex + ".keys"));
                chunks.put(chunkIndex, writing);
                slot = -1;
                dropTrimmed(trimmedThrough);
            }
            seen = offset;
            if (key == null) {
                return;
            }
            int within = (int) (offset - 1 - chunkIndex * CHUNK_OFFSETS);
            int recordSlot = within / STRIDE;
            if (buffer.remaining() < 3 * 10 + key.length) {
                flush();
            }
            if (recordSlot != slot) {
                writing.starts[recordSlot] = writing.written + buffer.position();
                slot = recordSlot;
                previousOffset = chunkIndex * CHUNK_OFFSETS + (long) recordSlot * STRIDE;
                previousAt = 0;
            }
            if (buffer.remaining() < 3 * 10 + key.length) {
                writing.write(buffer); // a key larger than the buffer
                ByteBuffer large = ByteBuffer.allocate(3 * 10 + key.length);
                encode(large, offset, atMicros, key);
                writing.write(large);
            } else {
                encode(buffer, offset, atMicros, key);
            }
        }

        private void encode(ByteBuffer out, long offset, long atMicros, byte[] key) {
            putVarLong(out, offset - previousOffset);
            putVarLong(out, zigzag(atMicros - previousAt));
            putVarLong(out, key.length);
            out.put(key);
            previousOffset = offset;
            previousAt = atMicros;
        }

        void flush() throws IOException {
            if (directory == null || writing == null) {
                return;
            }
            writing.write(buffer);
            writing.end = writing.written;
            through = seen; // after the chunk's starts and end: a lookup that reads through sees them
        }

        private void dropTrimmed(long trimmedThrough) {
            while (!chunks.isEmpty()) {
                Map.Entry<Long, Chunk> oldest = chunks.firstEntry();
                if ((oldest.getKey() + 1) * CHUNK_OFFSETS > trimmedThrough || oldest.getValue() == writing) {
                    return;
                }
                chunks.remove(oldest.getKey());
                from = Math.max(from, (oldest.getKey() + 1) * CHUNK_OFFSETS + 1);
                oldest.getValue().delete();
            }
        }

        Found find(long offset) throws IOException {
            long last = through; // read first: the chunk's starts and end written before it are visible
            if (offset > last || offset < from) {
                throw new IOException("offset " + offset + " is not in this node's copy");
            }
            long chunkIndex = (offset - 1) / CHUNK_OFFSETS;
            Chunk chunk = chunks.get(chunkIndex);
            if (chunk == null) {
                throw new IOException("offset " + offset + " is no longer in this node's copy");
            }
            int recordSlot = (int) (offset - 1 - chunkIndex * CHUNK_OFFSETS) / STRIDE;
            long start = chunk.starts[recordSlot];
            if (start < 0) {
                return null; // no keyed event in its run
            }
            long end = chunk.end;
            for (int next = recordSlot + 1; next < chunk.starts.length; next++) {
                if (chunk.starts[next] >= 0 && chunk.starts[next] <= end) {
                    end = chunk.starts[next];
                    break;
                }
            }
            ByteBuffer run = ByteBuffer.allocate((int) (end - start));
            chunk.read(run, start);
            run.flip();
            long at = 0;
            long current = chunkIndex * CHUNK_OFFSETS + (long) recordSlot * STRIDE;
            while (run.hasRemaining()) {
                current += getVarLong(run);
                at += unzigzag(getVarLong(run));
                int length = (int) getVarLong(run);
                if (current == offset) {
                    byte[] key = new byte[length];
                    run.get(key);
                    return new Found(new String(key, StandardCharsets.UTF_8), at);
                }
                if (current > offset) {
                    return null;
                }
                run.position(run.position() + length);
            }
            return null;
        }

        void close() {
            chunks.values().forEach(Chunk::close);
        }
    }

    /** One file of {@value #CHUNK_OFFSETS} offsets' records. */
    private static final class Chunk {
        final long index;
        final Path file;
        final FileChannel channel;
        /** Where the records of each run of {@value #STRIDE} offsets start in the file (-1: none). */
        final long[] starts = new long[CHUNK_OFFSETS / STRIDE];
        /** Bytes written (the writer's). */
        long written;
        /** Bytes flushed, for lookups. */
        volatile long end;

        Chunk(long index, Path file) throws IOException {
            this.index = index;
            this.file = file;
            java.util.Arrays.fill(starts, -1);
            this.channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                    StandardOpenOption.READ, StandardOpenOption.WRITE);
        }

        void write(ByteBuffer buffer) throws IOException {
            buffer.flip();
            while (buffer.hasRemaining()) {
                written += channel.write(buffer, written);
            }
            buffer.clear();
        }

        void read(ByteBuffer into, long position) throws IOException {
            while (into.hasRemaining()) {
                int read = channel.read(into, position + into.position());
                if (read < 0) {
                    throw new IOException(file + " ends before its records");
                }
            }
        }

        void close() {
            try {
                channel.close();
            } catch (IOException e) {
                LOG.log(Level.FINE, "closing " + file, e);
            }
        }

        void delete() {
            close();
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) {
                LOG.log(Level.WARNING, "cannot delete " + file, e);
            }
        }
    }

    private static void putVarLong(ByteBuffer out, long value) {
        while ((value & ~0x7FL) != 0) {
            out.put((byte) ((value & 0x7F) | 0x80));
            value >>>= 7;
        }
        out.put((byte) value);
    }

    private static long getVarLong(ByteBuffer in) {
        long value = 0;
        int shift = 0;
        byte b;
        do {
            b = in.get();
            value |= (long) (b & 0x7F) << shift;
            shift += 7;
        } while (b < 0);
        return value;
    }

    private static long zigzag(long value) {
        return (value << 1) ^ (value >> 63);
    }

    private static long unzigzag(long value) {
        return (value >>> 1) ^ -(value & 1);
    }
}
