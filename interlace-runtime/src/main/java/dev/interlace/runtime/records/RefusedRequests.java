package dev.interlace.runtime.records;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * The last refused requests (4xx and 5xx), in memory: a bounded ring, so that a flood of bad requests costs a fixed
 * amount of memory and nothing on disk. What it holds is lost on restart, and the oldest entries are dropped when it
 * is full; every list built from it says so ({@code completeness: ring}, with {@link #since()} and {@link #dropped()}).
 */
public final class RefusedRequests {

    private final int capacity;
    private final long sinceMicros;
    private final ArrayDeque<ApiRecord> ring;
    private long dropped;

    public RefusedRequests(int capacity, long sinceMicros) {
        this.capacity = capacity;
        this.sinceMicros = sinceMicros;
        this.ring = new ArrayDeque<>(Math.min(capacity, 1024));
    }

    /** Keeps a refused request, dropping the oldest one when the ring is full. */
    public synchronized void add(ApiRecord record) {
        if (capacity == 0) {
            dropped++;
            return;
        }
        if (ring.size() == capacity) {
            ring.removeFirst();
            dropped++;
        }
        ring.addLast(record);
    }

    /** The matching requests the ring holds, newest first (at most {@code filter.limit()}), and how many match. */
    public synchronized Page list(ApiRecord.Filter filter) {
        List<ApiRecord> records = new ArrayList<>();
        long total = 0;
        for (Iterator<ApiRecord> newestFirst = ring.descendingIterator(); newestFirst.hasNext();) {
            ApiRecord record = newestFirst.next();
            if (filter.matches(record)) {
                total++;
                if (records.size() < filter.limit()) {
                    records.add(record);
                }
            }
        }
        return new Page(records, total);
    }

    /** How many refused requests were dropped since start-up (the ring was full). */
    public synchronized long dropped() {
        return dropped;
    }

    /** When the ring started (the process start), epoch microseconds: nothing older is in it. */
    public long since() {
        return sinceMicros;
    }

    public int capacity() {
        return capacity;
    }

    /** A page of the ring. */
    public record Page(List<ApiRecord> records, long total) {}
}
