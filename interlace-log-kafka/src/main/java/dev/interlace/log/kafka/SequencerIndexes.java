package dev.interlace.log.kafka;

import dev.interlace.runtime.dedup.DedupIndex;
import dev.interlace.runtime.dedup.SegmentListener;
import dev.interlace.runtime.log.LogUnavailableException;
import dev.interlace.runtime.ops.EpochMicros;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The deduplication indexes of the streams this node sequences: each in {@code <directory>/<stream>-<topic id>/},
 * built from
 * the stream's key blocks ({@link KeyBlockTopic}), sealed and merged by the log's two background threads. A node
 * holds an index only while it sequences its stream; it keeps the segment files when it loses the stream, so that
 * taking it over again reads only the key blocks written meanwhile.
 */
final class SequencerIndexes {

    private final Path directory;
    private final DedupIndex.Settings settings;
    private final SegmentListener listener;
    private final Clock clock;
    private final ExecutorService background = DedupIndex.backgroundThreads();
    /** The open indexes by stream name, for gauges on other threads. */
    private final Map<String, DedupIndex> byStream = new ConcurrentHashMap<>();

    SequencerIndexes(Path directory, DedupIndex.Settings settings, SegmentListener listener, Clock clock) {
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
        try {
            DedupIndex index = DedupIndex.open(directory.resolve(view.name + "-" + blocks.topicId()), blocks, view.trimmedThrough(),
                    view.headOffset(), () -> windowStart(view), settings, background, listener);
            byStream.put(view.name, index);
            return index;
        } catch (IOException e) {
            throw new LogUnavailableException("cannot open the deduplication index of stream " + view.name + ": "
                    + e.getMessage(), e);
        }
    }

    /** Closes the index of a stream this node no longer sequences; its files stay for the next takeover. */
    void closed(StreamView view, DedupIndex index) {
        byStream.remove(view.name, index);
        index.close();
    }

    Optional<DedupIndex.Stats> stats(String stream) {
        return Optional.ofNullable(byStream.get(stream)).map(DedupIndex::stats);
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
        background.shutdown();
        try {
            background.awaitTermination(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
