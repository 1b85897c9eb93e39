package dev.interlace.runtime.dedup;

import dev.interlace.runtime.ops.FatalErrors;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One stream's deduplication index: from a key's hash to the offsets of the events that may have carried it, with a
 * heap that does not grow with the window. The keys accepted since the last seal are in memory ({@link RecentKeys},
 * at most {@link Settings#recentKeys()} of them, about 21 bytes each); every older key is in a {@link SegmentFile} on
 * disk, whose filter (1.5 bytes a key, memory-mapped) answers "not here" for a new key without reading the disk.
 *
 * <p>The index is derived data. The log's durable record of each group commit's keys ({@link KeySource}) is the
 * authority: a full recent table is frozen and sealed into a segment from that record on a background thread while
 * lookups go on; segments are merged in fours of similar size so that a lookup tests few filters (about 3 per
 * factor of 4 in keys); a trim deletes the segments it empties. At start-up the segments are opened and checked, a
 * missing or corrupt one is rebuilt from the log (and the log says so), and only the keys after the last segment are
 * read.
 *
 * <p>Every candidate is only a candidate: the log confirms it by the key stored with the event, so a filter's false
 * "maybe", a stale segment or a key in two segments never makes a duplicate of a new key; a key missing from every
 * part would, which is why a segment is built only from committed keys and covers a range only once it holds all of
 * them.
 *
 * <p>Owned by the log's writer thread (lookups, additions, trims); the background threads only write new files and
 * hand them back through a queue the writer drains after each commit.
 */
public final class DedupIndex implements Closeable {

    private static final Logger LOG = Logger.getLogger(DedupIndex.class.getName());
    /**
     * After a failed seal, how long the frozen keys wait before the next try: well inside the grace after which a
     * sealer still failed ends the process ({@code ComponentHealth}, 10 s), so that a cause that passes (a directory
     * back, space freed) is recovered from in the process instead of always ending it.
     */
    private static final long RETRY_SEAL_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** How many tables of keys an opening seals at once (see {@link Builder}). */
    private static final int BUILD_WRITERS = 2;
    /** How many keys a merge writes between two looks at whether it is cancelled. */
    private static final long CANCEL_CHECK_KEYS = 1 << 16;

    /**
     * @param recentKeys how many keys the index keeps in memory before sealing them into a segment: the heap bound
     *     (about 21 bytes a key, twice that while a seal runs; an opening or a standby run that seals a backlog holds
     *     up to three tables of 16-32 bytes a key) and the size of the smallest segments
     * @param fanIn how many segments of similar size are merged into one
     */
    public record Settings(int recentKeys, int fanIn) {

        /** A million keys in memory (about 21 MiB); segments merged four at a time. */
        public static final Settings DEFAULTS = new Settings(1 << 20, 4);
        /** The fewest recent keys {@link #forHeap} gives a stream: below it, segments would be sealed too often. */
        static final int MIN_RECENT_KEYS = 1 << 13;
        /** Heap a recent key takes, counting the frozen table a seal holds beside the live one. */
        static final long HEAP_BYTES_PER_RECENT_KEY = 2 * 21;

        /**
         * The settings for {@code keyedStreams} streams sharing {@code heapBytes} of heap for their recent keys:
         * each gets its share, at most {@link #DEFAULTS}' million and at least {@link #MIN_RECENT_KEYS}, so that
         * the heap the index takes depends on the heap given, not on how many streams are declared.
         */
        public static Settings forHeap(long heapBytes, int keyedStreams) {
            long share = heapBytes / HEAP_BYTES_PER_RECENT_KEY / Math.max(1, keyedStreams);
            int recentKeys = (int) Math.max(MIN_RECENT_KEYS, Math.min(DEFAULTS.recentKeys(), share));
            return new Settings(recentKeys, DEFAULTS.fanIn());
        }

        public Settings {
            if (recentKeys < 1 || fanIn < 2) {
                throw new IllegalArgumentException("recentKeys must be at least 1 and fanIn at least 2, got "
                        + recentKeys + " and " + fanIn);
            }
        }
    }

    private final Path directory;
    private final KeySource source;
    private final ExecutorService background;
    private final SegmentListener listener;
    private final Settings settings;
    /** The window's start now (micros; {@link Long#MIN_VALUE} for a window without end). */
    private final LongSupplier windowStart;
    private final Queue<Runnable> finished = new ConcurrentLinkedQueue<>();
    /** Seals and merges running on the background threads (they go on after a close). */
    private final AtomicInteger running = new AtomicInteger();

    private RecentKeys recent = new RecentKeys();
    /** The recent keys being sealed (still looked up until their segment is in use), or null. */
    private RecentKeys frozen;
    private long frozenThrough;
    /** Every key up to this offset (and not trimmed) is in {@link #segments}. */
    private long sealedThrough;
    private long trimmedThrough;
    /** By offset range. */
    private final List<SegmentFile> segments = new ArrayList<>();
    private boolean sealing;
    /** Why the last seal failed; null after a seal succeeds. */
    private volatile Throwable sealFailure;
    private boolean merging;
    private long retrySealAtNanos;
    private boolean closed;

    /**
     * What the index holds, as a gauge reads it from any thread: refreshed by the writer after each change.
     *
     * @param keys keys in memory and in segments (those older than the window included until trimmed)
     * @param heapBytes the recent (and frozen) keys' tables
     * @param mappedBytes the segments' filters, fences and checksums, memory-mapped
     * @param fileBytes the segment files on disk
     * @param segments how many segment files are in use
     */
    public record Stats(long keys, long heapBytes, long mappedBytes, long fileBytes, int segments) {}

    private volatile Stats stats = new Stats(0, 0, 0, 0, 0);

    private DedupIndex(Path directory, KeySource source, ExecutorService background, SegmentListener listener,
            Settings settings, LongSupplier windowStart) {
        this.directory = directory;
        this.source = source;
        this.background = background;
        this.listener = listener;
        this.settings = settings;
        this.windowStart = windowStart;
    }

    /**
     * Opens the index in {@code directory} for a stream trimmed through {@code trimmedThrough} whose head is
     * {@code head}: checks its segments, rebuilds what is missing from {@code source} and reads the keys after the
     * last segment into memory (sealing them first when there are more than {@link Settings#recentKeys()}).
     */
    public static DedupIndex open(Path directory, KeySource source, long trimmedThrough, long head,
            LongSupplier windowStart, Settings settings, ExecutorService background, SegmentListener listener)
            throws IOException {
        DedupIndex index = new DedupIndex(directory, source, background, listener, settings, windowStart);
        try {
            index.load(trimmedThrough, head);
        } catch (IOException | RuntimeException e) {
            index.close();
            throw e;
        }
        return index;
    }

    /** The threads that seal and merge segments, for every index of a log; the log shuts it down. */
    public static ExecutorService backgroundThreads() {
        AtomicInteger number = new AtomicInteger();
        ThreadPoolExecutor executor = new ThreadPoolExecutor(2, 2, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
                runnable -> {
                    Thread thread = new Thread(runnable, "interlace-dedup-" + number.incrementAndGet());
                    thread.setDaemon(true);
                    thread.setPriority(Thread.NORM_PRIORITY - 1);
                    return thread;
                });
        executor.allowCoreThreadTimeOut(true);
        return executor;
    }

    /**
     * Brings the segments in {@code directory} up to date with {@code source} without keeping any key in memory, for a
     * node that may take the stream over (a standby): seals whole recent tables of the keys after the last segment
     * and merges what is due, on the calling thread, then closes the segments. The keys after the last whole table
     * are read and dropped; the index that opens the directory later reads only those. Stops early, leaving only
     * complete segments, once {@code cancelled} says so (the stream is being taken over).
     *
     * @return the offset through which the segments now hold every key
     */
    public static long sealAhead(Path directory, KeySource source, long trimmedThrough, LongSupplier windowStart,
            Settings settings, SegmentListener listener, BooleanSupplier cancelled) throws IOException {
        DedupIndex index = new DedupIndex(directory, source, null, listener, settings, windowStart);
        try {
            index.loadSegments(trimmedThrough);
            index.sealWholeTables(cancelled);
            index.mergeAllDue(cancelled);
            return index.sealedThrough;
        } finally {
            index.close();
        }
    }

    private void load(long trimmed, long head) throws IOException {
        loadSegments(trimmed);
        fillRecent(head, true);
        refreshStats();
    }

    /** Opens and checks the segments of the directory, rebuilding missing ranges; sets {@link #sealedThrough}. */
    private void loadSegments(long trimmed) throws IOException {
        trimmedThrough = trimmed;
        Files.createDirectories(directory);
        List<SegmentFile> found = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(directory)) {
            for (Path file : files) {
                String name = file.getFileName().toString();
                if (name.endsWith(SegmentFile.TEMPORARY_SUFFIX)) {
                    Files.deleteIfExists(file); // a seal or merge the last process did not finish
                } else if (name.endsWith(SegmentFile.SUFFIX)) {
                    try {
                        found.add(SegmentFile.open(file));
                    } catch (IOException e) {
                        LOG.log(Level.WARNING, e.getMessage() + "; rebuilding its keys from the log");
                        Files.deleteIfExists(file);
                    }
                }
            }
        }
        // Widest first among equal starts: a merge's output wins over inputs it did not get to delete.
        found.sort(Comparator.comparingLong(SegmentFile::afterOffset)
                .thenComparing(Comparator.comparingLong(SegmentFile::throughOffset).reversed()));
        long position = trimmed;
        for (SegmentFile segment : found) {
            if (segment.throughOffset() <= position) {
                delete(segment); // trimmed, or merged into a segment already taken
                continue;
            }
            if (segment.afterOffset() > position) {
                LOG.warning("deduplication keys of offsets " + (position + 1) + " to " + segment.afterOffset()
                        + " in " + directory + " have no segment; rebuilding them from the log");
                segments.addAll(build(position, segment.afterOffset(), windowStart.getAsLong()));
            }
            segments.add(segment);
            position = segment.throughOffset();
        }
        sealedThrough = position;
    }

    /** Seals the keys after the last segment into segments of a whole recent table each; drops the rest. */
    private void sealWholeTables(BooleanSupplier cancelled) throws IOException {
        try (Builder builder = new Builder()) {
            long[] chunkAfter = {sealedThrough};
            source.scan(sealedThrough, windowStart.getAsLong(), (lastOffset, newest, keys) -> {
                if (cancelled.getAsBoolean()) {
                    return false;
                }
                builder.filling.addGroup(keys, chunkAfter[0], Long.MAX_VALUE, newest);
                if (builder.filling.count >= settings.recentKeys()) {
                    builder.seal(chunkAfter[0], lastOffset);
                    chunkAfter[0] = lastOffset;
                }
                return true;
            });
            builder.finish();
        }
    }

    /** Runs every merge that is due, one after another on the calling thread, until none is or it is cancelled. */
    private void mergeAllDue(BooleanSupplier cancelled) throws IOException {
        List<SegmentFile> inputs;
        while (!cancelled.getAsBoolean() && (inputs = dueMerge()) != null) {
            long keys = inputs.stream().mapToLong(SegmentFile::keys).sum();
            SegmentFile merged = merge(inputs, keys, cancelled);
            if (merged == null) {
                return;
            }
            merged(inputs, merged);
        }
    }

    /**
     * Reads the keys after the sealed ones (through {@code head}) into {@link #recent}; at start-up ({@code seal}),
     * whole {@link Settings#recentKeys()} of them are sealed into segments first.
     */
    private void fillRecent(long head, boolean seal) throws IOException {
        recent = new RecentKeys();
        long after = frozen != null ? frozenThrough : sealedThrough;
        if (head <= after) {
            return;
        }
        try (Builder builder = new Builder()) {
            long[] chunkAfter = {after};
            source.scan(after, windowStart.getAsLong(), (lastOffset, newest, keys) -> {
                builder.filling.addGroup(keys, chunkAfter[0], Long.MAX_VALUE, newest);
                if (seal && builder.filling.count >= settings.recentKeys()) {
                    builder.seal(chunkAfter[0], lastOffset);
                    chunkAfter[0] = lastOffset;
                }
                return true;
            });
            builder.finish();
            Collected collected = builder.filling;
            for (int i = 0; i < collected.count; i++) {
                recent.add(collected.hashes[i], collected.offsets[i]);
            }
        }
    }

    /**
     * Seals whole tables of keys read from the source into segments on {@value #BUILD_WRITERS} threads of its own
     * while the caller goes on reading: sorting, writing and syncing a table took three times as long as reading its
     * keys. Segments are put in use in offset order, each once it is durable; at most {@value #BUILD_WRITERS} tables
     * are being written besides the one filling. Closing it waits for the tables under way.
     */
    private final class Builder implements Closeable {

        private record Pending(java.util.concurrent.Future<SegmentFile> segment, long through, Collected table) {}

        private final java.util.ArrayDeque<Pending> pending = new java.util.ArrayDeque<>();
        private final java.util.ArrayDeque<Collected> spare = new java.util.ArrayDeque<>();
        private ExecutorService writers;
        Collected filling = new Collected();

        /** Hands the filling table, the keys of {@code (after, through]}, to a writer. */
        void seal(long after, long through) throws IOException {
            if (pending.size() == BUILD_WRITERS) {
                awaitOldest();
            }
            if (writers == null) {
                AtomicInteger number = new AtomicInteger();
                writers = java.util.concurrent.Executors.newFixedThreadPool(BUILD_WRITERS, runnable -> {
                    Thread thread = new Thread(runnable, "interlace-dedup-build-" + number.incrementAndGet());
                    thread.setDaemon(true);
                    return thread;
                });
            }
            Collected full = filling;
            pending.add(new Pending(writers.submit(() -> full.write(after, through)), through, full));
            filling = spare.isEmpty() ? new Collected() : spare.poll();
        }

        /** Waits for every table under way and puts its segment in use. */
        void finish() throws IOException {
            while (!pending.isEmpty()) {
                awaitOldest();
            }
        }

        private void awaitOldest() throws IOException {
            Pending oldest = pending.poll();
            SegmentFile segment;
            try {
                segment = oldest.segment().get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new java.io.InterruptedIOException("interrupted while sealing deduplication keys");
            } catch (java.util.concurrent.ExecutionException e) {
                if (e.getCause() instanceof IOException io) {
                    throw io;
                }
                throw new IllegalStateException("sealing deduplication keys failed: " + e.getCause(), e.getCause());
            }
            segments.add(segment);
            sealedThrough = oldest.through();
            oldest.table().clear();
            spare.add(oldest.table());
        }

        @Override
        public void close() throws IOException {
            try {
                finish(); // after a failure: the tables written in time are complete segments, closed with the index
            } finally {
                while (!pending.isEmpty()) { // after a failed one: let the others end, closing what they wrote
                    try {
                        closeQuietly(pending.poll().segment().get());
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    } catch (java.util.concurrent.ExecutionException e) {
                        LOG.log(Level.FINE, "sealing deduplication keys into " + directory + " failed", e);
                    }
                }
                if (writers != null) {
                    writers.shutdown();
                }
            }
        }
    }

    /** Segments of every key in {@code (after, through]} read from the source, each of at most a recent table. */
    private List<SegmentFile> build(long after, long through, long notBefore) throws IOException {
        List<SegmentFile> built = new ArrayList<>();
        Collected collected = new Collected();
        long[] chunkAfter = {after};
        try {
            source.scan(after, notBefore, (lastOffset, newest, keys) -> {
                collected.addGroup(keys, chunkAfter[0], through, newest);
                if (lastOffset >= through) {
                    return false;
                }
                if (collected.count >= settings.recentKeys()) {
                    built.add(collected.write(chunkAfter[0], lastOffset));
                    chunkAfter[0] = lastOffset;
                    collected.clear();
                }
                return true;
            });
            built.add(collected.write(chunkAfter[0], through));
        } catch (IOException | RuntimeException e) {
            for (SegmentFile segment : built) {
                delete(segment);
            }
            throw e;
        }
        return built;
    }

    /**
     * Calls {@code candidate} with the offset of every event that may have carried a key of this hash accepted after
     * {@code notBeforeMicros}; the caller confirms each by the key stored with the event.
     */
    public void candidates(long hash, long notBeforeMicros, LongConsumer candidate) {
        recent.candidates(hash, candidate);
        if (frozen != null) {
            frozen.candidates(hash, candidate);
        }
        for (int i = 0; i < segments.size(); i++) {
            SegmentFile segment = segments.get(i);
            if (segment.newestIngestedAtMicros() <= notBeforeMicros) {
                continue; // every key in it is older than the window
            }
            try {
                segment.candidates(hash, candidate);
            } catch (IOException e) {
                replaceUnreadable(i, e);
                i--; // look the hash up again in what replaced it
            }
        }
    }

    /**
     * Rebuilds segment {@code index}, which failed a read, from the source, here on the writer thread: until it is
     * rebuilt no key of its range can be ruled out.
     */
    private void replaceUnreadable(int index, IOException failure) {
        SegmentFile broken = segments.get(index);
        LOG.log(Level.SEVERE, failure.getMessage() + "; rebuilding its keys from the log");
        try {
            List<SegmentFile> rebuilt = build(broken.afterOffset(), broken.throughOffset(), windowStart.getAsLong());
            segments.remove(index);
            delete(broken);
            segments.addAll(index, rebuilt);
        } catch (IOException e) {
            throw new IllegalStateException("cannot rebuild the deduplication segment " + broken.file() + ": "
                    + e.getMessage(), e);
        }
    }

    /** Adds a key first accepted at {@code offset}, once its commit is durable. */
    public void add(long hash, long offset) {
        recent.add(hash, offset);
    }

    /**
     * After a durable commit that moved the stream's head to {@code head}: puts finished seals and merges in use,
     * freezes the recent keys once there are enough of them, and starts the next seal or merge.
     */
    public void committed(long head) {
        drainFinished();
        if (frozen == null && recent.size() >= settings.recentKeys()) {
            frozen = recent;
            frozenThrough = head;
            recent = new RecentKeys();
        }
        if (frozen != null && !sealing && System.nanoTime() - retrySealAtNanos >= 0) {
            startSeal();
        }
        if (!merging) {
            startMergeIfDue();
        }
        refreshStats();
    }

    /** After a commit whose outcome is unknown: rereads the keys after the sealed and frozen ones from the source. */
    public void reload(long head) throws IOException {
        drainFinished();
        fillRecent(head, false);
        refreshStats();
    }

    /** Forgets the keys of events at or below {@code throughOffset} (trimmed): deletes the segments it empties. */
    public void removeThrough(long throughOffset) {
        trimmedThrough = Math.max(trimmedThrough, throughOffset);
        recent.removeThrough(throughOffset);
        if (frozen != null) {
            frozen.removeThrough(throughOffset);
        }
        segments.removeIf(segment -> {
            if (segment.throughOffset() <= throughOffset) {
                delete(segment);
                return true;
            }
            return false;
        });
        refreshStats();
    }

    /** The latest {@link Stats}; any thread. */
    public Stats stats() {
        return stats;
    }

    private void refreshStats() {
        stats = new Stats(keys(), heapBytes(), mappedBytes(), fileBytes(), segments.size());
    }

    private void startSeal() {
        sealing = true;
        long after = sealedThrough;
        long through = frozenThrough;
        long notBefore = windowStart.getAsLong();
        running.incrementAndGet();
        background.execute(() -> {
            try {
                List<SegmentFile> built = build(after, through, notBefore);
                finished.add(() -> sealed(built, through));
            } catch (Throwable e) {
                FatalErrors.exitIfFatal(e); // out of memory: retrying every 10 s would keep a broken process up
                finished.add(() -> sealFailed(e));
            } finally {
                running.decrementAndGet();
            }
        });
    }

    private void sealed(List<SegmentFile> built, long through) {
        sealing = false;
        if (closed) {
            built.forEach(DedupIndex::closeQuietly);
            return;
        }
        for (SegmentFile segment : built) {
            if (segment.throughOffset() <= trimmedThrough) {
                delete(segment);
            } else {
                segments.add(segment);
            }
        }
        sealedThrough = through;
        frozen = null;
        sealFailure = null;
    }

    /**
     * Why the last seal failed, or null when it succeeded (or none ran yet): while seals fail, the keys stay in memory
     * and grow, so the owner reports it (see {@code ComponentHealth}).
     */
    public Throwable sealFailure() {
        return sealFailure;
    }

    private void sealFailed(Throwable e) {
        sealing = false;
        sealFailure = e;
        retrySealAtNanos = System.nanoTime() + RETRY_SEAL_NANOS;
        LOG.log(Level.WARNING, "sealing deduplication keys into " + directory + " failed; they stay in memory and"
                + " the seal is retried in " + TimeUnit.NANOSECONDS.toSeconds(RETRY_SEAL_NANOS) + " s", e);
    }

    /**
     * Merges the oldest {@link Settings#fanIn()} neighbouring segments of one size class, if any: in steady state
     * those are the newest (seals arrive one by one), after a start that sealed a backlog they are anywhere.
     */
    private void startMergeIfDue() {
        List<SegmentFile> inputs = dueMerge();
        if (inputs == null) {
            return;
        }
        merging = true;
        long totalKeys = inputs.stream().mapToLong(SegmentFile::keys).sum();
        running.incrementAndGet();
        background.execute(() -> {
            try {
                SegmentFile merged = merge(inputs, totalKeys, () -> false);
                finished.add(() -> merged(inputs, merged));
            } catch (Throwable e) {
                FatalErrors.exitIfFatal(e);
                finished.add(() -> {
                    merging = false;
                    LOG.log(Level.WARNING, "merging deduplication segments " + inputs + " failed; they stay", e);
                });
            } finally {
                running.decrementAndGet();
            }
        });
    }

    /** The oldest {@link Settings#fanIn()} neighbouring segments of one size class, or null when none are due. */
    private List<SegmentFile> dueMerge() {
        int fanIn = settings.fanIn();
        List<SegmentFile> inputs = null;
        long keys = 0;
        for (int first = 0; inputs == null && first + fanIn <= segments.size(); first++) {
            int sizeClass = sizeClass(segments.get(first));
            keys = 0;
            boolean same = true;
            for (int i = first; same && i < first + fanIn; i++) {
                same = sizeClass(segments.get(i)) == sizeClass;
                keys += segments.get(i).keys();
            }
            if (same && keys <= SegmentFile.MAX_KEYS) {
                inputs = List.copyOf(segments.subList(first, first + fanIn));
            }
        }
        return inputs;
    }

    /** Which power of {@link Settings#fanIn()} times a recent table a segment's size is nearest below. */
    private int sizeClass(SegmentFile segment) {
        long units = Math.max(1, segment.keys() / settings.recentKeys());
        int sizeClass = 0;
        while (units >= settings.fanIn()) {
            units /= settings.fanIn();
            sizeClass++;
        }
        return sizeClass;
    }

    /** The merged segment of {@code inputs}, or null when {@code cancelled} said so first (nothing is left behind). */
    private SegmentFile merge(List<SegmentFile> inputs, long keys, BooleanSupplier cancelled) throws IOException {
        long after = inputs.get(0).afterOffset();
        long through = inputs.get(inputs.size() - 1).throughOffset();
        long newest = Long.MIN_VALUE;
        List<SegmentFile.Cursor> cursors = new ArrayList<>();
        Path file = directory.resolve(SegmentFile.name(after, through));
        try (SegmentFile.Writer writer = new SegmentFile.Writer(file, after, through,
                inputs.stream().mapToLong(SegmentFile::newestIngestedAtMicros).max().orElse(newest), keys)) {
            PriorityQueue<SegmentFile.Cursor> byHash = new PriorityQueue<>(
                    Comparator.comparingLong(SegmentFile.Cursor::hash).thenComparingLong(SegmentFile.Cursor::offset));
            for (SegmentFile input : inputs) {
                SegmentFile.Cursor cursor = input.cursor();
                cursors.add(cursor);
                if (cursor.next()) {
                    byHash.add(cursor);
                }
            }
            long lastHash = 0;
            long lastOffset = -1;
            long written = 0;
            while (!byHash.isEmpty()) {
                if (++written % CANCEL_CHECK_KEYS == 0 && cancelled.getAsBoolean()) {
                    return null; // the writer's close deletes the unfinished file
                }
                SegmentFile.Cursor cursor = byHash.poll();
                if (cursor.hash() != lastHash || cursor.offset() != lastOffset) {
                    writer.add(cursor.hash(), cursor.offset());
                    lastHash = cursor.hash();
                    lastOffset = cursor.offset();
                }
                if (cursor.next()) {
                    byHash.add(cursor);
                }
            }
            writer.finish(listener);
        } finally {
            for (SegmentFile.Cursor cursor : cursors) {
                cursor.close();
            }
        }
        return SegmentFile.open(file);
    }

    private void merged(List<SegmentFile> inputs, SegmentFile merged) {
        merging = false;
        int at = segments.indexOf(inputs.get(0));
        boolean stillThere = at >= 0 && at + inputs.size() <= segments.size();
        for (int i = 0; stillThere && i < inputs.size(); i++) {
            stillThere = segments.get(at + i) == inputs.get(i);
        }
        if (closed || !stillThere) {
            // Closed, or a trim or a rebuild changed the inputs meanwhile: the merge is redone from what is there.
            if (closed) {
                closeQuietly(merged);
            } else {
                delete(merged);
            }
            return;
        }
        segments.subList(at, at + inputs.size()).clear();
        segments.add(at, merged);
        for (SegmentFile input : inputs) {
            delete(input);
        }
    }

    private void drainFinished() {
        Runnable done;
        while ((done = finished.poll()) != null) {
            done.run();
        }
    }

    private void delete(SegmentFile segment) {
        closeQuietly(segment);
        try {
            listener.deleting(segment.file());
            Files.deleteIfExists(segment.file());
        } catch (IOException e) {
            LOG.log(Level.WARNING, "cannot delete the deduplication segment " + segment.file()
                    + "; the next start deletes it", e);
        }
    }

    private static void closeQuietly(SegmentFile segment) {
        try {
            segment.close();
        } catch (IOException e) {
            LOG.log(Level.FINE, "closing " + segment.file(), e);
        }
    }

    /** How many keys the index holds (in memory and in segments; keys older than the window included until trimmed). */
    public long keys() {
        long keys = recent.size() + (frozen == null ? 0 : frozen.size());
        for (SegmentFile segment : segments) {
            keys += segment.keys();
        }
        return keys;
    }

    /** Heap bytes of the keys in memory (the recent and frozen tables). */
    public long heapBytes() {
        return recent.bytes() + (frozen == null ? 0 : frozen.bytes());
    }

    /** Bytes of the segments' filters, fences and checksums: memory-mapped, resident while lookups touch them. */
    public long mappedBytes() {
        return segments.stream().mapToLong(SegmentFile::mappedBytes).sum();
    }

    /** Bytes of the segment files on disk. */
    public long fileBytes() {
        return segments.stream().mapToLong(SegmentFile::fileBytes).sum();
    }

    public int segmentCount() {
        return segments.size();
    }

    /**
     * Whether a seal or merge is running or waiting to be put in use; on the writer thread, which it lets put finished
     * ones in use (for benchmarks and tests that wait them out).
     */
    public boolean busy() {
        drainFinished();
        return sealing || merging || !finished.isEmpty();
    }

    /**
     * Whether a seal or merge of this index is still writing files (any thread): another index must not open the
     * directory until none is, even after this one is closed.
     */
    public boolean writingInBackground() {
        return running.get() > 0;
    }

    /** Closes the segments; seals and merges still running finish on their own, and the next start uses them. */
    @Override
    public void close() {
        closed = true;
        drainFinished();
        for (SegmentFile segment : segments) {
            closeQuietly(segment);
        }
    }

    /** Keys read from the source for a segment or the recent table: parallel arrays, grown as needed. */
    private final class Collected {
        long[] hashes = new long[1024];
        long[] offsets = new long[1024];
        int count;
        long newest = Long.MIN_VALUE;

        /** Adds the pairs of one group whose offsets are in {@code (after, through]}. */
        void addGroup(ByteBuffer keys, long after, long through, long newestIngestedAtMicros) {
            ByteBuffer pairs = keys.duplicate();
            while (pairs.remaining() >= 2 * Long.BYTES) {
                long offset = pairs.getLong();
                long hash = pairs.getLong();
                if (offset > after && offset <= through && offset > trimmedThrough) {
                    if (count == hashes.length) {
                        hashes = java.util.Arrays.copyOf(hashes, count * 2);
                        offsets = java.util.Arrays.copyOf(offsets, count * 2);
                    }
                    hashes[count] = hash;
                    offsets[count] = offset;
                    count++;
                    newest = Math.max(newest, newestIngestedAtMicros);
                }
            }
        }

        SegmentFile write(long after, long through) throws IOException {
            PairSort.sort(hashes, offsets, count);
            Path file = directory.resolve(SegmentFile.name(after, through));
            try (SegmentFile.Writer writer = new SegmentFile.Writer(file, after, through, newest, count)) {
                for (int i = 0; i < count; i++) {
                    writer.add(hashes[i], offsets[i]);
                }
                writer.finish(listener);
            }
            return SegmentFile.open(file);
        }

        void clear() {
            count = 0;
            newest = Long.MIN_VALUE;
            if (hashes.length > 4 * settings.recentKeys()) {
                hashes = new long[1024];
                offsets = new long[1024];
            }
        }
    }
}
