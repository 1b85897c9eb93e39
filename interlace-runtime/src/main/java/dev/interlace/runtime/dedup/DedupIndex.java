package dev.interlace.runtime.dedup;

import dev.interlace.runtime.ops.DaemonThreads;
import dev.interlace.runtime.ops.FatalErrors;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
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
 * hand them back through a queue the writer drains after each commit. The index holds the keys in memory and
 * schedules that work; {@link SealedSegments} holds the segments, {@link TableSealer} seals a backlog of keys,
 * {@link SegmentMerge} merges segments.
 */
public final class DedupIndex implements Closeable {

    private static final Logger LOG = Logger.getLogger(DedupIndex.class.getName());
    /**
     * After a failed seal, how long the frozen keys wait before the next try: well inside the grace after which a
     * sealer still failed ends the process ({@code ComponentHealth}, 10 s), so that a cause that passes (a directory
     * back, space freed) is recovered from in the process instead of always ending it.
     */
    private static final long RETRY_SEAL_NANOS = TimeUnit.SECONDS.toNanos(1);

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

    private final KeySource source;
    private final ExecutorService background;
    private final Settings settings;
    /** The window's start now (micros; {@link Long#MIN_VALUE} for a window without end). */
    private final LongSupplier windowStart;
    private final Queue<Runnable> finished = new ConcurrentLinkedQueue<>();
    /** Seals and merges running on the background threads (they go on after a close). */
    private final AtomicInteger running = new AtomicInteger();
    /** Every key up to {@link SealedSegments#sealedThrough()} (and not trimmed). */
    private final SealedSegments segments;

    private RecentKeys recent = new RecentKeys();
    /** The recent keys being sealed (still looked up until their segment is in use), or null. */
    private RecentKeys frozen;
    private long frozenThrough;
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
     * @param runBytesToFetch run bytes of restored segments not on this disk yet (copied in the background)
     */
    public record Stats(long keys, long heapBytes, long mappedBytes, long fileBytes, int segments,
            long runBytesToFetch) {}

    private volatile Stats stats = new Stats(0, 0, 0, 0, 0, 0);
    /** The runs of the segments restored without them that the index opened with; set once, read by any thread. */
    private volatile List<RemoteRun> restoredRuns = List.of();

    private DedupIndex(Path directory, KeySource source, ExecutorService background, SegmentListener listener,
            Settings settings, LongSupplier windowStart, RemoteRuns remote) {
        this.source = source;
        this.background = background;
        this.settings = settings;
        this.windowStart = windowStart;
        this.segments = new SealedSegments(directory, source, listener, settings, windowStart, remote);
    }

    /**
     * Opens the index in {@code directory} for a stream trimmed through {@code trimmedThrough} whose head is
     * {@code head}: checks its segments, rebuilds what is missing from {@code source} and reads the keys after the
     * last segment into memory (sealing them first when there are more than {@link Settings#recentKeys()}).
     */
    public static DedupIndex open(Path directory, KeySource source, long trimmedThrough, long head,
            LongSupplier windowStart, Settings settings, ExecutorService background, SegmentListener listener)
            throws IOException {
        return open(directory, source, trimmedThrough, head, windowStart, settings, background, listener, null);
    }

    /**
     * As {@link #open(Path, KeySource, long, long, LongSupplier, Settings, ExecutorService, SegmentListener)}, using
     * too the segments restored in {@code directory} without their runs, fetched from {@code remote} when read.
     */
    public static DedupIndex open(Path directory, KeySource source, long trimmedThrough, long head,
            LongSupplier windowStart, Settings settings, ExecutorService background, SegmentListener listener,
            RemoteRuns remote) throws IOException {
        DedupIndex index = new DedupIndex(directory, source, background, listener, settings, windowStart, remote);
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
        ThreadPoolExecutor executor = new ThreadPoolExecutor(2, 2, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
                DaemonThreads.numbered("interlace-dedup-", Thread.NORM_PRIORITY - 1));
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
     * @param remote where the runs of segments restored without them are fetched from, or null
     * @return the offset through which the segments now hold every key
     */
    public static long sealAhead(Path directory, KeySource source, long trimmedThrough, LongSupplier windowStart,
            Settings settings, SegmentListener listener, BooleanSupplier cancelled, RemoteRuns remote)
            throws IOException {
        DedupIndex index = new DedupIndex(directory, source, null, listener, settings, windowStart, remote);
        try {
            index.segments.load(trimmedThrough);
            index.sealWholeTables(cancelled);
            index.segments.mergeAllDue(cancelled);
            return index.segments.sealedThrough();
        } finally {
            index.close();
        }
    }

    private void load(long trimmed, long head) throws IOException {
        segments.load(trimmed);
        fillRecent(head, true);
        refreshStats();
        List<SegmentFile> restored = segments.remote();
        restoredRuns = restored.stream().map(SegmentFile::remoteRun).toList();
        for (SegmentFile segment : restored) {
            copyRunInBackground(segment);
        }
    }

    /**
     * Copies the run of a segment restored without it to the disk on a background thread while lookups go on, so that
     * candidates soon read the local disk only; a part that cannot be fetched is left to the lookup that needs it
     * (which rebuilds the segment from the log if it still cannot).
     */
    private void copyRunInBackground(SegmentFile restored) {
        running.incrementAndGet();
        background.execute(() -> {
            try {
                restored.remoteRun().fetchAll();
            } catch (IOException | RuntimeException e) {
                LOG.log(Level.WARNING, "copying the run of " + restored + " failed; its parts are fetched when read",
                        e);
            } finally {
                running.decrementAndGet();
            }
        });
    }

    /** Seals the keys after the last segment into segments of a whole recent table each; drops the rest. */
    private void sealWholeTables(BooleanSupplier cancelled) throws IOException {
        try (TableSealer builder = new TableSealer(segments)) {
            long[] chunkAfter = {segments.sealedThrough()};
            source.scan(segments.sealedThrough(), windowStart.getAsLong(), (lastOffset, newest, keys) -> {
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

    /**
     * Reads the keys after the sealed ones (through {@code head}) into {@link #recent}; at start-up ({@code seal}),
     * whole {@link Settings#recentKeys()} of them are sealed into segments first.
     */
    private void fillRecent(long head, boolean seal) throws IOException {
        recent = new RecentKeys();
        long after = frozen != null ? frozenThrough : segments.sealedThrough();
        if (head <= after) {
            return;
        }
        try (TableSealer builder = new TableSealer(segments)) {
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
            KeyTable collected = builder.filling;
            for (int i = 0; i < collected.count; i++) {
                recent.add(collected.hashes[i], collected.offsets[i]);
            }
        }
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
        segments.candidates(hash, notBeforeMicros, candidate);
    }

    /**
     * Whether {@link #candidates} may give any offset for this hash, answered from memory and the segments' filters
     * without reading a run: false is certain (no key of this hash was accepted after {@code notBeforeMicros}), true
     * only possible.
     */
    public boolean mayHold(long hash, long notBeforeMicros) {
        return recent.mayHold(hash) || frozen != null && frozen.mayHold(hash)
                || segments.mayHold(hash, notBeforeMicros);
    }

    /**
     * The run parts of restored segments that {@link #candidates} would fetch for this hash, as a fetch to run outside
     * the lock that guards the index (the lookup then reads the disk only); null when there are none. So a lookup
     * that needs a part stalls neither the other lookups nor the owner's additions for the fetch's round trip.
     */
    public RunFetch missingRuns(long hash, long notBeforeMicros) {
        return segments.missingRuns(hash, notBeforeMicros);
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
        recent.removeThrough(throughOffset);
        if (frozen != null) {
            frozen.removeThrough(throughOffset);
        }
        segments.removeThrough(throughOffset);
        refreshStats();
    }

    /** The latest {@link Stats}, with the run bytes still to fetch as they are now; any thread. */
    public Stats stats() {
        Stats latest = stats;
        long toFetch = runBytesToFetch();
        return toFetch == latest.runBytesToFetch() ? latest : new Stats(latest.keys(), latest.heapBytes(),
                latest.mappedBytes(), latest.fileBytes(), latest.segments(), toFetch);
    }

    private void refreshStats() {
        stats = new Stats(keys(), heapBytes(), mappedBytes(), fileBytes(), segments.count(), runBytesToFetch());
    }

    /** Bytes of the restored runs not on this disk yet (0 for those of segments merged away or trimmed). */
    private long runBytesToFetch() {
        return restoredRuns.stream().mapToLong(RemoteRun::missingBytes).sum();
    }

    private void startSeal() {
        sealing = true;
        long after = segments.sealedThrough();
        long through = frozenThrough;
        long notBefore = windowStart.getAsLong();
        running.incrementAndGet();
        background.execute(() -> {
            try {
                List<SegmentFile> built = segments.build(after, through, notBefore);
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
            built.forEach(SealedSegments::closeQuietly);
            return;
        }
        segments.addSealed(built, through);
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
        LOG.log(Level.WARNING, "sealing deduplication keys into " + segments.directory() + " failed; they stay in"
                + " memory and the seal is retried in " + TimeUnit.NANOSECONDS.toSeconds(RETRY_SEAL_NANOS) + " s", e);
    }

    /**
     * Merges the oldest {@link Settings#fanIn()} neighbouring segments of one size class, if any: in steady state
     * those are the newest (seals arrive one by one), after a start that sealed a backlog they are anywhere.
     */
    private void startMergeIfDue() {
        List<SegmentFile> inputs = segments.dueMerge();
        if (inputs == null) {
            return;
        }
        merging = true;
        long totalKeys = inputs.stream().mapToLong(SegmentFile::keys).sum();
        running.incrementAndGet();
        background.execute(() -> {
            try {
                SegmentFile merged = segments.merge(inputs, totalKeys, () -> false);
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

    private void merged(List<SegmentFile> inputs, SegmentFile merged) {
        merging = false;
        if (closed) {
            SealedSegments.closeQuietly(merged); // the next start puts it in use
            return;
        }
        segments.replace(inputs, merged);
    }

    private void drainFinished() {
        Runnable done;
        while ((done = finished.poll()) != null) {
            done.run();
        }
    }

    /** How many keys the index holds (in memory and in segments; keys older than the window included until trimmed). */
    public long keys() {
        return recent.size() + (frozen == null ? 0 : frozen.size()) + segments.keys();
    }

    /** Heap bytes of the keys in memory (the recent and frozen tables). */
    public long heapBytes() {
        return recent.bytes() + (frozen == null ? 0 : frozen.bytes());
    }

    /** Bytes of the segments' filters, fences and checksums: memory-mapped, resident while lookups touch them. */
    public long mappedBytes() {
        return segments.mappedBytes();
    }

    /** Bytes of the segment files on disk. */
    public long fileBytes() {
        return segments.fileBytes();
    }

    public int segmentCount() {
        return segments.count();
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
        segments.close();
    }
}
