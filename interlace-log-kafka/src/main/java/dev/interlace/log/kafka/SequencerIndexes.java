package dev.interlace.log.kafka;

import dev.interlace.runtime.dedup.DedupIndex;
import dev.interlace.runtime.dedup.SegmentListener;
import dev.interlace.runtime.log.LogUnavailableException;
import dev.interlace.runtime.ops.DaemonThreads;
import dev.interlace.runtime.ops.EpochMicros;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The deduplication indexes of the streams this node sequences: each in {@code <directory>/<stream>-<topic id>/},
 * built from the stream's key blocks ({@link KeyBlockTopic}), sealed and merged by the log's two background threads.
 * A node holds an index only while it sequences its stream; it keeps the segment files when it loses the stream, so
 * that taking it over again reads only the key blocks written meanwhile.
 *
 * <p>A node that may sequence a stream it does not hold keeps that stream's segments up to date on its disk as a
 * standby ({@link #standby}): every {@link DedupIndex.Settings#recentKeys()} new keys it seals them from the key
 * blocks and merges what is due, holding nothing in its heap between two such runs. So whichever node takes a stream
 * over reads at most that many keys' blocks, not the whole window: a takeover does not grow with the window.
 *
 * <p>The holder publishes the segments its index uses ({@link IndexTopic}); a node whose segments are far behind the
 * published seal (one that never followed the stream) restores their heads before a standby run and before opening
 * the index, so that it reads only the key blocks after the seal, and fetches their run parts when read.
 */
final class SequencerIndexes {

    private static final Logger LOG = Logger.getLogger(SequencerIndexes.class.getName());

    private final Path directory;
    private final DedupIndex.Settings settings;
    private final SegmentListener listener;
    private final Clock clock;
    private final ExecutorService background = DedupIndex.backgroundThreads();
    /** The open indexes by stream name, for gauges on other threads. */
    private final Map<String, DedupIndex> byStream = new ConcurrentHashMap<>();
    private final Map<String, Folder> folders = new ConcurrentHashMap<>();
    private volatile boolean closed;
    /** This node's copy of its streams' keys, which confirms candidates without reading the topic; or null. */
    private final LocalKeys localKeys;
    /** The streams' published indexes, restored from and published to; or null (then each node builds its own). */
    private final IndexTopics published;

    /** Who uses a stream's folder on this node: its sequencer's index, or a standby run, never both. */
    private static final class Folder {
        final ReentrantLock lock = new ReentrantLock();
        /** This node's sequencer has the index open (or is opening it): a standby run stops. */
        volatile boolean held;
        /** The index this node closed last, whose seals and merges may still be writing files. */
        volatile DedupIndex lastClosed;
        /** What the last standby run left: the segments hold every key through this offset (-1: unknown). */
        volatile long sealedThrough = -1;
        /** The stream's head when the last standby run started. */
        long runAtHead = -1;
    }

    /** Indexes built from the key blocks alone: no copy of the keys on this node, no published indexes. */
    SequencerIndexes(Path directory, DedupIndex.Settings settings, SegmentListener listener, Clock clock) {
        this(directory, settings, listener, clock, null, null);
    }

    SequencerIndexes(Path directory, DedupIndex.Settings settings, SegmentListener listener, Clock clock,
            LocalKeys localKeys, IndexTopics published) {
        this.published = published;
        this.localKeys = localKeys;
        this.directory = directory;
        this.settings = settings;
        this.listener = listener;
        this.clock = clock;
    }

    /**
     * Opens the index of a keyed stream this node has just caught up with, to sequence it: in a folder named after
     * the stream and the id of its key blocks' topic.
     */
    DedupIndex open(StreamView view, KeyBlockTopic blocks) {
        Folder folder = folder(view.name);
        folder.held = true;
        folder.lock.lock(); // a standby run under way sees held and stops at its next group of keys
        IndexTopic topic = published == null ? null : published.of(view.name);
        try {
            Path path = path(view, blocks);
            SegmentListener told = listener;
            if (topic != null) {
                topic.restore(path, view.trimmedThrough(), settings.recentKeys());
                topic.publishing(true);
                told = publishingTo(topic);
            }
            DedupIndex index = DedupIndex.open(path, blocks, view.trimmedThrough(), view.headOffset(),
                    () -> windowStart(view), settings, background, told, topic);
            byStream.put(view.name, index);
            return index;
        } catch (IOException e) {
            if (topic != null) {
                topic.publishing(false);
            }
            folder.held = false;
            throw new LogUnavailableException("cannot open the deduplication index of stream " + view.name + ": "
                    + e.getMessage(), e);
        } finally {
            folder.lock.unlock();
        }
    }

    /**
     * This node's listener, also telling {@code topic} which segments the holder uses, so that it publishes them for
     * the next holder.
     */
    private SegmentListener publishingTo(IndexTopic topic) {
        SegmentListener base = listener;
        return new SegmentListener() {
            @Override
            public void writing(Path temporary) {
                base.writing(temporary);
            }

            @Override
            public void written(Path file) {
                base.written(file);
            }

            @Override
            public void deleting(Path file) {
                base.deleting(file);
            }

            @Override
            public void inUse(java.util.List<Path> files, long sealedThrough) {
                base.inUse(files, sealedThrough);
                topic.inUse(files, sealedThrough);
            }
        };
    }

    /** Closes the index of a stream this node no longer sequences; its files stay for the next takeover. */
    void closed(StreamView view, DedupIndex index) {
        if (published != null) {
            published.of(view.name).publishing(false);
        }
        byStream.remove(view.name, index);
        index.close();
        Folder folder = folder(view.name);
        folder.lastClosed = index;
        folder.sealedThrough = -1;
        folder.held = false;
    }

    /**
     * For a keyed stream this node may sequence but does not: once at least a recent table's worth of offsets came
     * after what its segments hold, seals the new keys into segments and merges what is due, here on the caller's
     * thread (the log's standby thread). Skipped while this node's own index of the stream, or its last seals, use
     * the folder.
     */
    void standby(StreamView view, KeyBlockTopic blocks) {
        Folder folder = folder(view.name);
        DedupIndex previous = folder.lastClosed;
        if (folder.held || closed || previous != null && previous.writingInBackground()) {
            return;
        }
        long head = view.headOffset();
        if (folder.sealedThrough >= 0
                && head - Math.max(folder.sealedThrough, folder.runAtHead) < settings.recentKeys()) {
            return;
        }
        if (!folder.lock.tryLock()) {
            return;
        }
        try {
            if (folder.held) {
                return;
            }
            folder.runAtHead = head;
            long started = System.nanoTime();
            IndexTopic topic = published == null ? null : published.of(view.name);
            if (topic != null) {
                topic.restore(path(view, blocks), view.trimmedThrough(), settings.recentKeys());
            }
            folder.sealedThrough = DedupIndex.sealAhead(path(view, blocks), blocks, view.trimmedThrough(),
                    () -> windowStart(view), settings, listener, () -> folder.held || closed, topic);
            LOG.fine(() -> "standby deduplication segments of stream " + view.name + " hold every key through offset "
                    + folder.sealedThrough + " (" + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)
                    + " ms)");
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.WARNING, "keeping the standby deduplication segments of stream " + view.name
                    + " up to date failed; the next run tries again", e);
        } finally {
            folder.lock.unlock();
        }
    }

    /**
     * Whether a takeover of {@code view}'s stream would serve within seconds: the stream is unkeyed, or this node's
     * segments (its last standby run's) leave fewer than two recent tables' worth of offsets to read from the key
     * blocks (what a standby keeps between two runs). A node far behind becomes a candidate for the stream only when
     * no node holds it ({@link Candidacy}).
     */
    boolean caughtUp(StreamView view) {
        return !view.keyed() || behind(view) < 2L * settings.recentKeys();
    }

    /** How many offsets of {@code view}'s stream this node's segments lack (as far as its last standby run knows). */
    long behind(StreamView view) {
        long sealed = Math.max(0, Math.max(folder(view.name).sealedThrough, view.trimmedThrough()));
        return Math.max(0, view.headOffset() - sealed);
    }

    /** Where the standby segments of {@code stream} reach (-1 before the first run); for tests and benchmarks. */
    long standbySealedThrough(String stream) {
        return folder(stream).sealedThrough;
    }

    private Folder folder(String stream) {
        return folders.computeIfAbsent(stream, name -> new Folder());
    }

    private Path path(StreamView view, KeyBlockTopic blocks) {
        return directory.resolve(view.name + "-" + blocks.topicId());
    }

    Optional<DedupIndex.Stats> stats(String stream) {
        return Optional.ofNullable(byStream.get(stream)).map(DedupIndex::stats);
    }

    /** Why the last seal of the stream's open index failed, or null (see {@link DedupIndex#sealFailure}). */
    Throwable sealFailure(String stream) {
        DedupIndex index = byStream.get(stream);
        return index == null ? null : index.sealFailure();
    }

    /** This node's copy of its streams' keys ({@link LocalKeys}), or null when it keeps none. */
    LocalKeys localKeys() {
        return localKeys;
    }

    /** The start of the stream's deduplication window now. */
    long windowStart(StreamView view) {
        long retention = view.retentionMicros();
        if (retention <= 0) {
            return Long.MIN_VALUE;
        }
        return EpochMicros.now(clock) - retention;
    }

    /** Lets running seals and merges finish, then stops the threads. */
    void close() {
        closed = true;
        if (published != null) {
            published.close();
        }
        background.shutdown();
        DaemonThreads.awaitTermination(background, Duration.ofSeconds(30));
    }
}
