package dev.interlace.log.kafka;

import dev.interlace.runtime.dedup.RemoteRuns;
import dev.interlace.runtime.dedup.SegmentFile;
import dev.interlace.runtime.log.LogUnavailableException;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;

/**
 * A keyed stream's deduplication segments as its holder publishes them, so that the next holder serves after reading
 * their filters instead of every key block. {@code <prefix><stream>__segments} holds each segment file in parts of
 * {@value #PART_BYTES} bytes (keyed by file name, copy and part number); {@code <prefix><stream>__index} holds the
 * seals, each naming the copies that hold every key of the window through an offset and the Kafka offset of each of
 * their parts, with a checksum. Both compacted: a seal replaces the last, the parts of copies no seal names any more
 * are deleted with tombstones.
 *
 * <p>A node restoring the stream ({@link #restore}) reads the latest seal and, of each copy beyond what its own disk
 * holds, only the parts before the run (header, filter, fences, block checksums: about 1.6 bytes a key), into a
 * {@link SegmentFile#REMOTE_SUFFIX} file of the segment's size; the index then opens them as any segment (checked) and
 * reads only the key blocks after them. A run part is fetched by its Kafka offset when a lookup first needs it
 * ({@link #part}; checked against the block checksums). Exactness does not rest on the copy: a segment holds only
 * committed keys (its holder built it from the key blocks), a candidate is confirmed by the stored key, and a seal, a
 * head or a part that fails its checksum or is gone is rebuilt from the key blocks, as today, and the log says so.
 */
final class IndexTopic implements RemoteRuns {

    private static final Logger LOG = Logger.getLogger(IndexTopic.class.getName());
    /** A part of a segment file: a multiple of the run's 4 KiB blocks, below the brokers' 1 MB message limit. */
    static final int PART_BYTES = 512 * 1024;
    private static final int SEAL_VERSION = 1;
    private static final byte[] SEAL_KEY = Codec.text("seal");
    private static final long SEND_SECONDS = 60;

    private final String stream;
    private final TopicPartition seals;
    private final TopicPartition parts;
    private final Topics topics;
    private final Readers readers;
    private final IndexTopics shared;
    /** The copies this node knows on the topic (restored, read from the last seal or published), by file name. */
    private final Map<String, Copy> known = new ConcurrentHashMap<>();
    /** The copies the last seal this node wrote or read names; null until the publisher first looks. */
    private Map<String, Copy> lastSeal;
    /** What the holder's index had in use when it last said, not yet published; null when nothing is pending. */
    private final java.util.concurrent.atomic.AtomicReference<InUse> pending = new java.util.concurrent.atomic
            .AtomicReference<>();
    private volatile boolean publishing;
    private final AtomicLong fetchedParts = new AtomicLong();

    /** One published copy of a segment file. */
    record Copy(String copy, long afterOffset, long throughOffset, long fileBytes, long runOffset,
            long[] partOffsets) {}

    /** A seal: the copies that hold every key of the window through {@code sealedThrough}, in offset order. */
    record Seal(long sealedThrough, Map<String, Copy> copies) {}

    private record InUse(List<Path> files, long sealedThrough) {}

    private record Tombstone(String file, int part, Future<RecordMetadata> sent) {}

    IndexTopic(String stream, Topics topics, Readers readers, IndexTopics shared) {
        this.stream = stream;
        this.seals = topics.indexSeals(stream);
        this.parts = topics.indexParts(stream);
        this.topics = topics;
        this.readers = readers;
        this.shared = shared;
    }

    // ================================================================== restoring

    /**
     * Restores into {@code directory} the published segments beyond what its own segments hold (from
     * {@code trimmedThrough} on), when the latest seal reaches at least {@code worthKeys} offsets further: their heads
     * only, their runs fetched when read. A seal or head that is unusable is skipped with a warning: the index then
     * builds those keys from the key blocks.
     *
     * @return the offset through which the restored segments hold every key, or -1 when nothing was restored
     */
    long restore(Path directory, long trimmedThrough, long worthKeys) {
        long started = System.nanoTime();
        Seal seal;
        try {
            seal = latestSeal();
        } catch (IOException | LogUnavailableException e) {
            LOG.warning("the published deduplication index of stream " + stream + " is unusable (" + e.getMessage()
                    + "); building it from the key blocks");
            return -1;
        }
        if (seal == null) {
            return -1;
        }
        long local;
        try {
            local = localCoverage(directory, trimmedThrough);
        } catch (IOException e) {
            local = trimmedThrough;
        }
        if (seal.sealedThrough() - local < worthKeys) {
            return -1;
        }
        long bytes = 0;
        int restored = 0;
        try {
            Files.createDirectories(directory);
            for (Map.Entry<String, Copy> entry : seal.copies().entrySet()) {
                Copy copy = entry.getValue();
                if (copy.throughOffset() > local && copy.throughOffset() > trimmedThrough) {
                    bytes += restoreHead(directory, entry.getKey(), copy);
                    known.put(entry.getKey(), copy);
                    restored++;
                }
            }
        } catch (IOException | LogUnavailableException e) {
            LOG.warning("restoring the published deduplication index of stream " + stream + " failed ("
                    + e.getMessage() + "); building what is missing from the key blocks");
            return -1;
        }
        long megabytes = bytes >> 20;
        int segments = restored;
        LOG.info(() -> "restored " + segments + " deduplication segments of stream " + stream + " through offset "
                + seal.sealedThrough() + " from " + seals.topic() + " (" + megabytes + " MiB of filters and fences, "
                + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)
                + " ms); their runs are copied in the background, a part a lookup needs first");
        return seal.sealedThrough();
    }

    /** Writes the parts of {@code copy} before its run into a remote segment file of its whole size; the bytes read. */
    private long restoreHead(Path directory, String name, Copy copy) throws IOException {
        Path file = directory.resolve(name.substring(0, name.length() - ".seg".length()) + SegmentFile.REMOTE_SUFFIX);
        int head = (int) Math.min(copy.partOffsets().length, RemoteRuns.headParts(copy.runOffset(), PART_BYTES));
        long[] written = {0};
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE,
                StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
            int[] next = {0};
            readers.scan(parts, copy.partOffsets()[0], copy.partOffsets()[head - 1] + 1, record -> {
                if (next[0] < head && record.offset() == copy.partOffsets()[next[0]]) {
                    byte[] value = checkedPart(record, name, copy, next[0]);
                    ByteBuffer buffer = ByteBuffer.wrap(value);
                    while (buffer.hasRemaining()) {
                        channel.write(buffer, (long) next[0] * PART_BYTES + buffer.position());
                    }
                    written[0] += value.length;
                    next[0]++;
                }
                return next[0] < head;
            });
            if (next[0] < head) {
                throw new IOException("part " + next[0] + " of " + name + " is no longer on " + parts.topic());
            }
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(file);
            throw e;
        }
        try (RandomAccessFile sized = new RandomAccessFile(file.toFile(), "rw")) {
            sized.setLength(copy.fileBytes()); // the run: a hole until its parts are fetched
        }
        return written[0];
    }

    /**
     * How far the complete segment files in {@code directory} (and the restored ones this node can fetch) hold every
     * key, from {@code trimmedThrough} on.
     */
    private long localCoverage(Path directory, long trimmedThrough) throws IOException {
        if (!Files.isDirectory(directory)) {
            return trimmedThrough;
        }
        List<long[]> ranges = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(directory)) {
            for (Path file : files) {
                String name = file.getFileName().toString();
                boolean remote = name.endsWith(SegmentFile.REMOTE_SUFFIX) && has(name.substring(0,
                        name.length() - SegmentFile.REMOTE_SUFFIX.length()) + ".seg");
                if (name.endsWith(".seg") || remote) {
                    try {
                        ranges.add(SegmentFile.range(file));
                    } catch (IOException e) {
                        // unreadable: not counted, the index rebuilds it
                    }
                }
            }
        }
        ranges.sort((a, b) -> Long.compare(a[0], b[0]));
        long position = trimmedThrough;
        for (long[] range : ranges) {
            if (range[0] <= position && range[1] > position) {
                position = range[1];
            }
        }
        return position;
    }

    @Override
    public boolean has(String name) {
        return known.containsKey(name);
    }

    @Override
    public int partBytes() {
        return PART_BYTES;
    }

    @Override
    public byte[] part(String name, int index) throws IOException {
        Copy copy = known.get(name);
        if (copy == null || index >= copy.partOffsets().length) {
            throw new IOException("no published copy of " + name + " part " + index);
        }
        long offset = copy.partOffsets()[index];
        ConsumerRecord<byte[], byte[]> record;
        try {
            record = readers.first(parts, offset, offset + 1);
        } catch (LogUnavailableException e) {
            throw new IOException("cannot fetch part " + index + " of " + name + ": " + e.getMessage(), e);
        }
        fetchedParts.incrementAndGet();
        return checkedPart(record, name, copy, index);
    }

    /** Run parts fetched by lookups and merges; for tests and benchmarks. */
    long fetchedParts() {
        return fetchedParts.get();
    }

    private byte[] checkedPart(ConsumerRecord<byte[], byte[]> record, String name, Copy copy, int index)
            throws IOException {
        if (record == null || record.value() == null
                || !Arrays.equals(record.key(), partKey(name, copy.copy(), index))) {
            throw new IOException("part " + index + " of " + name + " is no longer on " + parts.topic());
        }
        long expected = Math.min(PART_BYTES, copy.fileBytes() - (long) index * PART_BYTES);
        if (record.value().length != expected) {
            throw new IOException("part " + index + " of " + name + " on " + parts.topic() + " has "
                    + record.value().length + " bytes, not " + expected);
        }
        return record.value();
    }

    /**
     * The latest seal on the topic, or null when there is none (or its last record is a tombstone); throws when it
     * fails its checksum.
     */
    Seal latestSeal() throws IOException {
        long end = topics.stableEnds(List.of(seals)).get(seals);
        long start = topics.start(seals);
        for (long back = 16; ; back *= 16) {
            long from = Math.max(start, end - back);
            byte[][] last = new byte[1][];
            boolean[] found = {false};
            readers.scan(seals, from, end, record -> {
                if (Arrays.equals(record.key(), SEAL_KEY)) {
                    found[0] = true;
                    last[0] = record.value(); // a tombstone: no published index
                }
                return true;
            });
            if (found[0]) {
                return last[0] == null ? null : decode(last[0]);
            }
            if (from == start) {
                return null;
            }
        }
    }

    // ================================================================== publishing

    /**
     * The holder's index says which segments it uses now (on its own thread): they are published on the log's
     * publishing thread, the latest set winning over one not yet published.
     */
    void inUse(List<Path> files, long sealedThrough) {
        if (!publishing) {
            return;
        }
        if (pending.getAndSet(new InUse(List.copyOf(files), sealedThrough)) == null) {
            shared.publishLater(this::publishPending);
        }
    }

    /** This node holds the stream's index now (true) or no longer (false: what is pending is dropped). */
    void publishing(boolean on) {
        publishing = on;
        if (!on) {
            pending.set(null);
        }
    }

    private void publishPending() {
        InUse next = pending.getAndSet(null);
        if (next == null || !publishing) {
            return;
        }
        try {
            publish(next);
        } catch (IOException | LogUnavailableException | KafkaException | ExecutionException | TimeoutException e) {
            LOG.log(Level.WARNING, "publishing the deduplication segments of stream " + stream + " failed; the next"
                    + " change publishes them again", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void publish(InUse inUse) throws IOException, ExecutionException, TimeoutException,
            InterruptedException {
        if (lastSeal == null) {
            Seal seal;
            try {
                seal = latestSeal();
            } catch (IOException e) {
                seal = null; // unusable: overwritten by this one, its parts left to compaction's tombstones below
            }
            lastSeal = seal == null ? Map.of() : seal.copies();
            known.putAll(lastSeal);
        }
        Map<String, Copy> copies = new LinkedHashMap<>();
        for (Path file : inUse.files()) {
            String name = file.getFileName().toString();
            if (name.endsWith(SegmentFile.REMOTE_SUFFIX)) {
                name = name.substring(0, name.length() - SegmentFile.REMOTE_SUFFIX.length()) + ".seg";
            }
            Copy copy = known.get(name);
            if (copy == null) {
                copy = upload(file, name);
                if (copy == null) {
                    return; // the file is gone (merged or trimmed): a later set is on its way
                }
                known.put(name, copy);
            }
            copies.put(name, copy);
        }
        KafkaProducer<byte[], byte[]> producer = shared.producer();
        producer.send(new ProducerRecord<>(seals.topic(), 0, SEAL_KEY, encode(new Seal(inUse.sealedThrough(),
                copies)))).get(SEND_SECONDS, TimeUnit.SECONDS);
        shared.listener().sealed(stream, inUse.sealedThrough());
        // The copies no seal names any more: the last seal's, and any uploaded for a set that changed before its seal.
        List<Tombstone> tombstones = new ArrayList<>();
        for (Map.Entry<String, Copy> old : known.entrySet()) {
            if (copies.get(old.getKey()) != old.getValue()) {
                for (int i = 0; i < old.getValue().partOffsets().length; i++) {
                    tombstones.add(new Tombstone(old.getKey(), i, producer.send(new ProducerRecord<>(parts.topic(), 0,
                            partKey(old.getKey(), old.getValue().copy(), i), null))));
                }
            }
        }
        for (Tombstone tombstone : tombstones) {
            tombstone.sent().get(SEND_SECONDS, TimeUnit.SECONDS);
            shared.listener().tombstoned(stream, tombstone.file(), tombstone.part());
        }
        known.keySet().retainAll(copies.keySet());
        lastSeal = copies;
    }

    /** Sends segment file {@code file} in parts; its copy, or null when the file is gone. */
    private Copy upload(Path file, String name) throws IOException, ExecutionException, TimeoutException,
            InterruptedException {
        String copy = UUID.randomUUID().toString();
        FileChannel channel;
        try {
            channel = FileChannel.open(file, StandardOpenOption.READ);
        } catch (NoSuchFileException e) {
            return null;
        }
        try (channel) {
            long[] range = SegmentFile.range(file);
            ByteBuffer header = ByteBuffer.allocate(96);
            channel.read(header, 0);
            long runOffset = header.getLong(88);
            long size = channel.size();
            int count = (int) ((size + PART_BYTES - 1) / PART_BYTES);
            List<Future<RecordMetadata>> sends = new ArrayList<>(count);
            KafkaProducer<byte[], byte[]> producer = shared.producer();
            for (int i = 0; i < count; i++) {
                ByteBuffer part = ByteBuffer.allocate((int) Math.min(PART_BYTES, size - (long) i * PART_BYTES));
                while (part.hasRemaining()) {
                    if (channel.read(part, (long) i * PART_BYTES + part.position()) < 0) {
                        throw new IOException(file + " ends before its size");
                    }
                }
                sends.add(producer.send(new ProducerRecord<>(parts.topic(), 0, partKey(name, copy, i), part.array())));
            }
            long[] offsets = new long[count];
            for (int i = 0; i < count; i++) {
                offsets[i] = sends.get(i).get(SEND_SECONDS, TimeUnit.SECONDS).offset();
                shared.listener().partSent(stream, name, i, count);
            }
            return new Copy(copy, range[0], range[1], size, runOffset, offsets);
        }
    }

    private static byte[] partKey(String name, String copy, int index) {
        return Codec.text(name + "/" + copy + "/" + index);
    }

    // ================================================================== the seal's bytes

    static byte[] encode(Seal seal) {
        int size = 4 + 8 + 4;
        for (Map.Entry<String, Copy> entry : seal.copies().entrySet()) {
            size += 2 + Codec.text(entry.getKey()).length + 2 + Codec.text(entry.getValue().copy()).length
                    + 5 * 8 + 4 + 8 * entry.getValue().partOffsets().length;
        }
        ByteBuffer buffer = ByteBuffer.allocate(size + 4);
        buffer.putInt(SEAL_VERSION).putLong(seal.sealedThrough()).putInt(seal.copies().size());
        for (Map.Entry<String, Copy> entry : seal.copies().entrySet()) {
            Copy copy = entry.getValue();
            putText(buffer, entry.getKey());
            putText(buffer, copy.copy());
            buffer.putLong(copy.afterOffset()).putLong(copy.throughOffset()).putLong(copy.fileBytes())
                    .putLong(copy.runOffset()).putLong(0).putInt(copy.partOffsets().length);
            for (long offset : copy.partOffsets()) {
                buffer.putLong(offset);
            }
        }
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(buffer.array(), 0, size);
        buffer.putInt((int) crc.getValue());
        return buffer.array();
    }

    static Seal decode(byte[] value) throws IOException {
        if (value.length < 20) {
            throw new IOException("its seal has " + value.length + " bytes");
        }
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(value, 0, value.length - 4);
        ByteBuffer buffer = ByteBuffer.wrap(value);
        if ((int) crc.getValue() != buffer.getInt(value.length - 4)) {
            throw new IOException("its seal does not match its checksum");
        }
        if (buffer.getInt() != SEAL_VERSION) {
            throw new IOException("its seal is of another version");
        }
        long sealedThrough = buffer.getLong();
        int count = buffer.getInt();
        Map<String, Copy> copies = new LinkedHashMap<>();
        for (int i = 0; i < count; i++) {
            String name = getText(buffer);
            String copy = getText(buffer);
            long after = buffer.getLong();
            long through = buffer.getLong();
            long fileBytes = buffer.getLong();
            long runOffset = buffer.getLong();
            buffer.getLong(); // reserved
            long[] offsets = new long[buffer.getInt()];
            for (int j = 0; j < offsets.length; j++) {
                offsets[j] = buffer.getLong();
            }
            copies.put(name, new Copy(copy, after, through, fileBytes, runOffset, offsets));
        }
        return new Seal(sealedThrough, copies);
    }

    private static void putText(ByteBuffer buffer, String text) {
        byte[] bytes = Codec.text(text);
        buffer.putShort((short) bytes.length).put(bytes);
    }

    private static String getText(ByteBuffer buffer) {
        byte[] bytes = new byte[buffer.getShort()];
        buffer.get(bytes);
        return Codec.text(bytes);
    }
}
