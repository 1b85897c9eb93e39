package dev.interlace.runtime.flush;

import dev.interlace.runtime.warehouse.Warehouse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The events this process acknowledged lately, already decoded into warehouse rows, kept for the flusher so that it
 * need not read them back from the log and decode their JSON a second time.
 *
 * <p>The publisher adds each request's accepted events once their append is durable, with the offsets the log
 * assigned; the flusher takes the run of rows that starts right after its watermark and, wherever that run is not
 * here (after a restart, for events another node appended, for replays, or once rows were evicted), reads the log as
 * before. A row here is what the flusher would decode from the same bytes with the same decoder, so where a batch
 * comes from changes nothing in the warehouse. Each stream keeps at most {@code capacity} rows, the newest: a backlog
 * larger than that is read from the log up to the rows still held here.
 */
public final class RecentEvents {

    /** Keeps nothing: for a process without a flusher ({@code --role ingest}) and for flushers built by hand. */
    public static final RecentEvents NONE = new RecentEvents(0);

    private final int capacity;
    private final Map<String, Tail> tails = new ConcurrentHashMap<>();

    /** @param capacity rows kept per stream at most; 0 keeps none */
    public RecentEvents(int capacity) {
        if (capacity < 0) {
            throw new IllegalArgumentException("capacity must not be negative: " + capacity);
        }
        this.capacity = capacity;
    }

    /** Whether anything added is kept (so that publishers need not build rows for nobody). */
    public boolean keeps() {
        return capacity > 0;
    }

    /**
     * Keeps the rows of one acknowledged request. Their offsets must follow each other without a gap (a request's
     * accepted events do); rows that do not are not kept, which only means they are read from the log.
     */
    public void add(String stream, List<Warehouse.Row> rows) {
        if (capacity == 0 || rows.isEmpty() || rows.size() > capacity) {
            return;
        }
        for (int i = 1; i < rows.size(); i++) {
            if (rows.get(i).offset() != rows.get(i - 1).offset() + 1) {
                return;
            }
        }
        tails.computeIfAbsent(stream, name -> new Tail()).add(List.copyOf(rows), capacity);
    }

    /**
     * Removes and returns up to {@code limit} rows of {@code stream} with the offsets right after {@code watermark},
     * without a gap; empty when the row right after the watermark is not here. Rows at or below the watermark are
     * dropped (they are in the warehouse already).
     */
    public List<Warehouse.Row> take(String stream, long watermark, int limit) {
        Tail tail = tails.get(stream);
        return tail == null ? List.of() : tail.take(watermark, limit);
    }

    /** Rows held for {@code stream}. */
    public int size(String stream) {
        Tail tail = tails.get(stream);
        return tail == null ? 0 : tail.size();
    }

    /** One stream's rows in runs of consecutive offsets, by their first offset. */
    private static final class Tail {
        private final TreeMap<Long, List<Warehouse.Row>> runs = new TreeMap<>();
        private int size;

        synchronized void add(List<Warehouse.Row> run, int capacity) {
            List<Warehouse.Row> replaced = runs.put(run.get(0).offset(), run);
            size += run.size() - (replaced == null ? 0 : replaced.size());
            while (size > capacity) {
                size -= runs.pollFirstEntry().getValue().size();
            }
        }

        synchronized List<Warehouse.Row> take(long watermark, int limit) {
            List<Warehouse.Row> taken = new ArrayList<>(Math.min(limit, size));
            long next = watermark + 1;
            while (!runs.isEmpty() && taken.size() < limit) {
                Map.Entry<Long, List<Warehouse.Row>> first = runs.firstEntry();
                List<Warehouse.Row> run = first.getValue();
                long firstOffset = first.getKey();
                long lastOffset = firstOffset + run.size() - 1;
                if (lastOffset < next) {
                    runs.pollFirstEntry();
                    size -= run.size();
                    continue;
                }
                if (firstOffset > next) {
                    break;
                }
                runs.pollFirstEntry();
                size -= run.size();
                int from = (int) (next - firstOffset);
                int to = Math.min(run.size(), from + limit - taken.size());
                taken.addAll(run.subList(from, to));
                if (to < run.size()) {
                    List<Warehouse.Row> rest = List.copyOf(run.subList(to, run.size()));
                    runs.put(rest.get(0).offset(), rest);
                    size += rest.size();
                }
                next = taken.get(taken.size() - 1).offset() + 1;
            }
            return taken;
        }

        synchronized int size() {
            return size;
        }
    }
}
