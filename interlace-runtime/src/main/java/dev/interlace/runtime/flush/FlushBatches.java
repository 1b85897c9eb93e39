package dev.interlace.runtime.flush;

import dev.interlace.runtime.log.EventLog;
import dev.interlace.runtime.log.LogEntry;
import dev.interlace.runtime.log.PublishRecords;
import dev.interlace.runtime.log.StreamHead;
import dev.interlace.runtime.log.StreamLog;
import dev.interlace.runtime.log.QuarantineEntry;
import dev.interlace.runtime.ops.DaemonThreads;
import dev.interlace.runtime.stream.DecodeResult;
import dev.interlace.runtime.stream.StreamDescriptor;
import dev.interlace.runtime.stream.StreamEvent;
import dev.interlace.runtime.warehouse.Warehouse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Reads the flusher's batches and turns them into warehouse rows: the events this process acknowledged lately come
 * from {@link RecentEvents}, decoded already; the rest of a batch is read from the log and decoded again with the
 * stream's generated decoder. The next batch of a stream can be read ahead on a thread of its own
 * ({@code interlace-flush-read-N}) while the current one is written to the warehouse, so that the log read and the
 * JSON decoding overlap with DuckDB's work instead of following it. A batch holds at most {@code flush-batch-rows}
 * events, and reads no more from the log once its events reach {@code flush-batch-bytes}: an event may be as large as
 * a request body, and two batches of a stream are in memory at once.
 */
final class FlushBatches implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(FlushBatches.class.getName());

    /** One per flush thread: a read-ahead never waits for anything but the log. */
    private static final int READ_THREADS = 2;

    private final EventLog log;
    private final PublishRecords publishRecords;
    private final RecentEvents recent;
    private final int batchRows;
    private final long batchBytes;
    private final ExecutorService readAhead;

    FlushBatches(StreamLog log, RecentEvents recent, int batchRows, long batchBytes) {
        this.log = log;
        this.publishRecords = log;
        this.recent = recent;
        this.batchRows = batchRows;
        this.batchBytes = batchBytes;
        this.readAhead = new ThreadPoolExecutor(READ_THREADS, READ_THREADS, 30, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), DaemonThreads.numbered("interlace-flush-read-"));
        ((ThreadPoolExecutor) readAhead).allowCoreThreadTimeOut(true);
    }

    /**
     * A batch of rows after {@code watermark}: the rows, the watermark they lead to, whether the batch was full, in
     * rows or in bytes read (so that more may be waiting right behind it), how many of its rows were read from
     * the log rather than kept in memory, and the trace ids of its requests (one per request, in offset order).
     */
    record Batch(List<Warehouse.Row> rows, long newWatermark, boolean full, int rowsFromLog, List<String> traceIds) {
        boolean isEmpty() {
            return rows.isEmpty();
        }
    }

    /**
     * The events after {@code watermark}, on the calling thread, up to a full batch: those kept decoded in memory, and
     * between them (and after them) those read from the log and decoded: the events whose publishers have not handed
     * them over yet, or that memory never held. A read from the log stops where memory holds the next event, so that a
     * request still being handed over costs the read of its own events, not of every event after it; the reads take
     * at most {@code flush-batch-bytes} of events in all.
     *
     * @param holdsRows whether the warehouse holds rows already (of any stream): then the log must still hold the
     *     events right after the watermark, else the read refuses with a {@link LogTrimmedException}
     */
    Batch events(StreamDescriptor stream, long watermark, boolean holdsRows) {
        List<String> traceIds = new ArrayList<>();
        List<Warehouse.Row> rows = new ArrayList<>();
        long after = watermark;
        long bytes = 0;
        int fromLog = 0;
        while (rows.size() < batchRows && bytes < batchBytes) {
            List<Warehouse.Row> held = recent.take(stream.name(), after, batchRows - rows.size(), traceIds);
            rows.addAll(held);
            after = rows.isEmpty() ? watermark : rows.get(rows.size() - 1).offset();
            if (rows.size() >= batchRows) {
                break;
            }
            long gapEnd = recent.firstHeldAfter(stream.name(), after);
            int wanted = (int) Math.min(batchRows - rows.size(), gapEnd - after - 1);
            if (wanted <= 0) {
                break; // handed over since the take: the next batch takes it
            }
            List<LogEntry> entries = read(stream, after, wanted, batchBytes - bytes, holdsRows);
            for (LogEntry entry : entries) {
                rows.add(decode(stream, entry));
                bytes += entry.payload().length;
            }
            if (entries.isEmpty()) {
                break;
            }
            fromLog += entries.size();
            long through = entries.get(entries.size() - 1).offset();
            traceIds.addAll(traceIds(stream, after, through));
            after = through;
            if (entries.size() < wanted && gapEnd == Long.MAX_VALUE) {
                break; // the log holds no more now, and memory none after it
            }
        }
        long newWatermark = rows.isEmpty() ? watermark : rows.get(rows.size() - 1).offset();
        return new Batch(rows, newWatermark, rows.size() >= batchRows || bytes >= batchBytes, fromLog, traceIds);
    }

    /** Up to {@code limit} events after {@code after} from the log, within {@code maxBytes}, as they are now. */
    private List<LogEntry> read(StreamDescriptor stream, long after, int limit, long maxBytes, boolean holdsRows) {
        StreamHead head = log.heads().get(stream.name());
        if (head != null) {
            LogTrimmedException.check(stream.name(), after, head.head(), head.earliest(), holdsRows);
        }
        try {
            return log.read(stream.name(), after, limit, maxBytes, Duration.ZERO);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return List.of();
        }
    }

    /**
     * The trace ids of the requests of events read from the log, from their publish records; none when those cannot
     * be read, which costs the flush record its trace ids, not the flush.
     */
    private List<String> traceIds(StreamDescriptor stream, long after, long through) {
        try {
            return publishRecords.traceIds(stream.name(), after, through);
        } catch (RuntimeException e) {
            LOG.log(Level.FINE, "the trace ids of events " + after + "-" + through + " of stream " + stream.name()
                    + " could not be read", e);
            return List.of();
        }
    }

    /** {@link #events} on the read-ahead thread: the next batch, read while the current one is written. */
    CompletableFuture<Batch> eventsAhead(StreamDescriptor stream, long watermark) {
        return CompletableFuture.supplyAsync(() -> events(stream, watermark, true), readAhead);
    }

    /** Waits for a batch read ahead; its failure (a log error, an event that no longer decodes) is thrown as is. */
    static Batch await(CompletableFuture<Batch> ahead) {
        try {
            return ahead.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw e;
        }
    }

    /** Reads the quarantined entries after {@code watermark}: their payload as text and their errors. */
    Batch quarantine(StreamDescriptor stream, long watermark) {
        List<QuarantineEntry> entries = log.readQuarantine(stream.name(), watermark, batchRows, batchBytes);
        List<Warehouse.Row> rows = new ArrayList<>(entries.size());
        long bytes = 0;
        for (QuarantineEntry entry : entries) {
            rows.add(new Warehouse.Row(entry.seq(), entry.ingestedAtMicros(), entry.requestId(),
                    List.of(new String(entry.payload(), StandardCharsets.UTF_8), entry.errorsJson())));
            bytes += entry.payload().length;
        }
        long newWatermark = entries.isEmpty() ? watermark : entries.get(entries.size() - 1).seq();
        return new Batch(rows, newWatermark, entries.size() >= batchRows || bytes >= batchBytes, entries.size(),
                List.of());
    }

    /**
     * Coerces a logged event with the stream's decoder, the same code that validated it at publish time. An entry
     * that no longer decodes (its schema changed incompatibly) stops the stream's flush with an error naming it.
     */
    static Warehouse.Row decode(StreamDescriptor stream, LogEntry entry) {
        DecodeResult<? extends StreamEvent> result;
        try {
            result = stream.decoder().decode(entry.payload());
        } catch (IOException e) {
            throw new IllegalStateException("event " + entry.offset() + " of stream " + stream.name()
                    + " cannot be read: " + e.getMessage(), e);
        }
        if (result instanceof DecodeResult.Invalid<? extends StreamEvent> invalid) {
            throw new IllegalStateException("event " + entry.offset() + " of stream " + stream.name()
                    + " (schema version " + entry.schemaVersion() + ") does not match schema version "
                    + stream.schemaVersion() + ": " + invalid.errors());
        }
        return Warehouse.Row.decoded(entry.offset(), entry.ingestedAtMicros(), entry.requestId(), stream,
                (DecodeResult.Valid<? extends StreamEvent>) result);
    }

    @Override
    public void close() {
        readAhead.shutdownNow();
    }
}
