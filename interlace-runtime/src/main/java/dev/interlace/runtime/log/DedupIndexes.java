package dev.interlace.runtime.log;

import dev.interlace.runtime.dedup.DedupIndex;
import dev.interlace.runtime.dedup.SegmentListener;
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

/**
 * Opens the streams' deduplication indexes of the SQLite log: each in {@code <data-dir>/dedup/<stream id>/}, built
 * from the stream's key blocks, sealed and merged by the log's two background threads. Used on the writer thread.
 */
final class DedupIndexes {

    /** The folder of the data directory that holds the indexes' segment files. */
    static final String DIRECTORY = "dedup";

    private final Path directory;
    private final LogConnections connections;
    private final DedupIndex.Settings settings;
    private final SegmentListener listener;
    private final Clock clock;
    private final ExecutorService background = DedupIndex.backgroundThreads();
    /** The open indexes by stream name, for gauges on other threads. */
    private final Map<String, DedupIndex> byStream = new ConcurrentHashMap<>();

    DedupIndexes(Path dataDirectory, LogConnections connections, DedupIndex.Settings settings,
            SegmentListener listener, Clock clock) {
        this.directory = dataDirectory.resolve(DIRECTORY);
        this.connections = connections;
        this.settings = settings;
        this.listener = listener;
        this.clock = clock;
    }

    /** Opens the index of a registered, keyed stream whose keys are in blocks from {@code blocksFrom} on. */
    DedupIndex open(StreamState state, long blocksFrom) {
        try {
            DedupIndex index = DedupIndex.open(directory.resolve(Integer.toString(state.id)),
                    KeyBlocks.source(connections, state.id, blocksFrom), state.trimmedThrough, state.head,
                    () -> windowStart(state), settings, background, listener);
            byStream.put(state.name, index);
            return index;
        } catch (IOException e) {
            throw new LogUnavailableException("cannot open the deduplication index of stream " + state.name + ": "
                    + e.getMessage(), e);
        }
    }

    /** What the index of {@code stream} holds, if the stream is keyed and registered; any thread. */
    Optional<DedupIndex.Stats> stats(String stream) {
        return Optional.ofNullable(byStream.get(stream)).map(DedupIndex::stats);
    }

    /** Rereads a stream's recent keys after a commit whose outcome is unknown. */
    void reload(StreamState state) {
        try {
            state.dedup.reload(state.head);
        } catch (IOException e) {
            throw new LogUnavailableException("cannot reread the deduplication keys of stream " + state.name + ": "
                    + e.getMessage(), e);
        }
    }

    /** The start of the stream's deduplication window now. */
    long windowStart(StreamState state) {
        return state.retentionMicros > 0 ? EpochMicros.now(clock) - state.retentionMicros : Long.MIN_VALUE;
    }

    /** Lets running seals and merges finish (the next start would redo them otherwise), then stops the threads. */
    void close() {
        background.shutdown();
        DaemonThreads.awaitTermination(background, Duration.ofSeconds(30));
    }
}
