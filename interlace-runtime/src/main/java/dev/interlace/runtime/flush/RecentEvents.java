package dev.interlace.runtime.flush;

import dev.interlace.runtime.warehouse.Warehouse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The events this process acknowledged lately, already decoded into warehouse rows, kept for the flusher so that it
 * need not read them back from the log and decode their JSON a second time.
 *
 * <p>The publisher adds each request's accepted events once their append is durable, with the offsets the log
 * assigned; the flusher takes the run of rows that starts right after its watermark and reads the rest of a batch from
 * the log (after a restart, for events another node appended, for replays, or once rows were evicted). A row here is
 * what the flusher would decode from the same bytes with the same decoder, so where a batch comes from changes
 * nothing in the warehouse.
 *
 * <p>Memory is bounded twice: each stream keeps at most {@code rowsPerStream} rows, the newest, and all streams
 * together at most {@code maxBytes}, counting each row as its payload's size plus {@value #ROW_OVERHEAD_BYTES} bytes
 * (a decoded row's objects); a request that would not fit is not kept, and its events are read from the log.
 */
public final class RecentEvents {

    /** What a decoded row costs beyond its payload's bytes: the row, its value list and the values' headers. */
    static final int ROW_OVERHEAD_BYTES = 256;

    /** Keeps nothing: for a process without a flusher ({@code --role ingest}) and for flushers built by hand. */
    public static final RecentEvents NONE = new RecentEvents(0, 0);

    private final int rowsPerStream;
    private final long maxBytes;
    private final AtomicLong bytes = new AtomicLong();
    private final Map<String, Tail> tails = new ConcurrentHashMap<>();

    /**
     * @param rowsPerStream rows kept per stream at most; 0 keeps none
     * @param maxBytes bytes kept for all streams together at most (payloads plus a fixed cost per row)
     */
    public RecentEvents(int rowsPerStream, long maxBytes) {
        if (rowsPerStream < 0 || maxBytes < 0) {
            throw new IllegalArgumentException("limits must not be negative: " + rowsPerStream + " rows, "
                    + maxBytes + " bytes");
        }
        this.rowsPerStream = rowsPerStream;
        this.maxBytes = maxBytes;
    }

    /** Whether anything added may be kept (so that publishers need not build rows for nobody). */
    public boolean keeps() {
        return rowsPerStream > 0 && maxBytes > 0;
    }

    /**
     * Keeps the rows of one acknowledged request, whose events' payloads took {@code payloadBytes}. Their offsets
     * must follow each other without a gap (a request's accepted events do); rows that do not, or that do not fit,
     * are not kept, which only means they are read from the log.
     */
    public void add(String stream, List<Warehouse.Row> rows, long payloadBytes) {
        add(stream, rows, payloadBytes, null);
    }

    /** {@link #add(String, List, long)} for a request of the W3C trace {@code traceId} (null: none). */
    public void add(String stream, List<Warehouse.Row> rows, long payloadBytes, String traceId) {
        if (!keeps() || rows.isEmpty() || rows.size() > rowsPerStream) {
            return;
        }
        for (int i = 1; i < rows.size(); i++) {
            if (rows.get(i).offset() != rows.get(i - 1).offset() + 1) {
                return;
            }
        }
        long weight = payloadBytes + (long) ROW_OVERHEAD_BYTES * rows.size();
        tails.computeIfAbsent(stream, name -> new Tail()).add(new Run(List.copyOf(rows), weight, traceId));
    }

    /**
     * Removes and returns up to {@code limit} rows of {@code stream} with the offsets right after {@code watermark},
     * without a gap; empty when the row right after the watermark is not here. Rows at or below the watermark are
     * dropped (they are in the warehouse already).
     */
    public List<Warehouse.Row> take(String stream, long watermark, int limit) {
        return take(stream, watermark, limit, new ArrayList<>());
    }

    /** {@link #take(String, long, int)}, adding the trace id of each request whose rows it took to {@code traceIds}. */
    public List<Warehouse.Row> take(String stream, long watermark, int limit, List<String> traceIds) {
        Tail tail = tails.get(stream);
        return tail == null ? List.of() : tail.take(watermark, limit, traceIds);
    }

    /**
     * The first offset after {@code watermark} whose row is held for {@code stream}, or {@link Long#MAX_VALUE} when
     * none is: where the events read from the log to fill a gap may stop.
     */
    public long firstHeldAfter(String stream, long watermark) {
        Tail tail = tails.get(stream);
        return tail == null ? Long.MAX_VALUE : tail.firstHeldAfter(watermark);
    }

    /** Rows held for {@code stream}. */
    public int size(String stream) {
        Tail tail = tails.get(stream);
        return tail == null ? 0 : tail.size();
    }

    /** Bytes held for all streams, as counted against the limit. */
    public long bytes() {
        return bytes.get();
    }

    /** One request's rows (consecutive offsets), what they count against the byte limit, and its trace id. */
    private record Run(List<Warehouse.Row> rows, long weight, String traceId) {
        long firstOffset() {
            return rows.get(0).offset();
        }

        /** The rows from index {@code from} on, with their share of the weight. */
        Run from(int from) {
            List<Warehouse.Row> rest = List.copyOf(rows.subList(from, rows.size()));
            return new Run(rest, weight * rest.size() / rows.size(), traceId);
        }
    }

    /** One stream's rows in runs of consecutive offsets, by their first offset. */
    private final class Tail {
        private final TreeMap<Long, Run> runs = new TreeMap<>();
        private int size;

        synchronized void add(Run run) {
            // The oldest runs of this stream make room first; other streams' rows are never evicted for it.
            while (!runs.isEmpty() && (size + run.rows().size() > rowsPerStream
                    || bytes.get() + run.weight() > maxBytes)) {
                remove(runs.firstEntry().getValue());
            }
            if (bytes.get() + run.weight() > maxBytes) {
                return;
            }
            Run replaced = runs.get(run.firstOffset());
            if (replaced != null) {
                remove(replaced);
            }
            runs.put(run.firstOffset(), run);
            size += run.rows().size();
            bytes.addAndGet(run.weight());
        }

        synchronized List<Warehouse.Row> take(long watermark, int limit, List<String> traceIds) {
            List<Warehouse.Row> taken = new ArrayList<>(Math.min(limit, size));
            long next = watermark + 1;
            while (!runs.isEmpty() && taken.size() < limit) {
                Run run = runs.firstEntry().getValue();
                long lastOffset = run.firstOffset() + run.rows().size() - 1;
                if (lastOffset < next) {
                    remove(run);
                    continue;
                }
                if (run.firstOffset() > next) {
                    break;
                }
                remove(run);
                int from = (int) (next - run.firstOffset());
                int to = Math.min(run.rows().size(), from + limit - taken.size());
                taken.addAll(run.rows().subList(from, to));
                if (run.traceId() != null) {
                    traceIds.add(run.traceId());
                }
                if (to < run.rows().size()) {
                    Run rest = run.from(to);
                    runs.put(rest.firstOffset(), rest);
                    size += rest.rows().size();
                    bytes.addAndGet(rest.weight());
                }
                next = taken.get(taken.size() - 1).offset() + 1;
            }
            return taken;
        }

        synchronized long firstHeldAfter(long watermark) {
            for (Run run : runs.values()) {
                long lastOffset = run.firstOffset() + run.rows().size() - 1;
                if (lastOffset > watermark) {
                    return Math.max(run.firstOffset(), watermark + 1);
                }
            }
            return Long.MAX_VALUE;
        }

        private void remove(Run run) {
            runs.remove(run.firstOffset());
            size -= run.rows().size();
            bytes.addAndGet(-run.weight());
        }

        synchronized int size() {
            return size;
        }
    }
}
