package dev.interlace.runtime.ingest;

import dev.interlace.runtime.log.AppendResult;
import dev.interlace.runtime.log.ReplayResult;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Where a part of a partitioned publish or quarantine replay is appended: here, or — on a log with one sequencer per
 * log stream, in a cluster whose nodes may send each other requests — on the node that sequences the part's
 * partition, as a publish of that partition ({@code POST /streams/<stream>?partition=<p>}) or a replay into it
 * ({@code POST /streams/<stream>/quarantine/replay?partition=<p>}) whose answer becomes the part's result.
 */
public interface RemoteParts {

    /** Every part appended here (the SQLite log; a node without a cluster secret). */
    RemoteParts NONE = new RemoteParts() {
        @Override
        public Optional<String> holderElsewhere(String logStream) {
            return Optional.empty();
        }

        @Override
        public CompletableFuture<AppendResult> append(String node, String stream, int partition, String requestId,
                List<byte[]> payloads, String keyId, String keyName) {
            throw new IllegalStateException("no part is appended elsewhere");
        }

        @Override
        public CompletableFuture<ReplayResult> replay(String node, String stream, int partition, String requestId,
                List<Long> seqs, boolean dryRun, String keyId, String keyName) {
            throw new IllegalStateException("no part is replayed elsewhere");
        }
    };

    /** The node (its URL) that appends to {@code logStream} when that is another node a part may be sent to. */
    Optional<String> holderElsewhere(String logStream);

    /**
     * Publishes {@code payloads} (the part's events as sent) to partition {@code partition} of {@code stream} on
     * {@code node}: completed with each event's result, in order, or exceptionally as a local append would be
     * ({@link dev.interlace.runtime.log.LogUnavailableException}, {@link dev.interlace.runtime.log.NoSequencerException})
     * or with {@link dev.interlace.runtime.log.Backpressure} as the result.
     */
    CompletableFuture<AppendResult> append(String node, String stream, int partition, String requestId,
            List<byte[]> payloads, String keyId, String keyName);

    /**
     * Replays the quarantined entries {@code seqs} of {@code stream} (whose events hash to partition
     * {@code partition}) into that partition on {@code node}: completed with each entry's result, in the order of
     * {@code seqs}, or {@link dev.interlace.runtime.log.Backpressure}, or exceptionally as a local replay would be.
     */
    CompletableFuture<ReplayResult> replay(String node, String stream, int partition, String requestId,
            List<Long> seqs, boolean dryRun, String keyId, String keyName);
}
