package dev.interlace.runtime.records;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * The last refused requests (4xx and 5xx), in memory: a bounded ring, so that a flood of bad requests costs a fixed
 * amount of memory and nothing on disk. It is bounded twice: by count, and by bytes, since a request's path and the
 * message about it are the client's to choose (both are cut to {@link #MAX_TEXT_CHARS} characters, and the ring holds
 * at most {@link #MAX_BYTES} of text). What it holds is lost on restart, and the oldest entries are dropped when it
 * is full; every list built from it says so ({@code completeness: ring}, with {@link #since()} and {@link #dropped()}).
 */
public final class RefusedRequests {

    /** Longest path, message or error code kept; longer ones are cut and end with an ellipsis. */
    public static final int MAX_TEXT_CHARS = 512;
    /** Most bytes of text (two per character) the ring holds, all entries together. */
    public static final long MAX_BYTES = 16L << 20;
    /** Bytes counted for an entry besides its text: the record, its strings' headers, the ring's slot. */
    private static final int ENTRY_OVERHEAD_BYTES = 256;

    private final int capacity;
    private final long sinceMicros;
    private final ArrayDeque<ApiRecord> ring;
    private long bytes;
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
        ApiRecord kept = new ApiRecord(record.source(), cut(record.requestId()), cut(record.method()),
                cut(record.path()), cut(record.stream()), record.status(), cut(record.error()), cut(record.message()),
                record.receivedAtMicros(), record.durationMicros(), cut(record.keyId()), cut(record.keyName()),
                cut(record.servedBy()));
        long size = size(kept);
        while (!ring.isEmpty() && (ring.size() == capacity || bytes + size > MAX_BYTES)) {
            bytes -= size(ring.removeFirst());
            dropped++;
        }
        ring.addLast(kept);
        bytes += size;
    }

    /** Bytes of text the ring holds now (an estimate that bounds the real figure). */
    public synchronized long bytes() {
        return bytes;
    }

    private static String cut(String text) {
        return text == null || text.length() <= MAX_TEXT_CHARS ? text : text.substring(0, MAX_TEXT_CHARS - 1) + "…";
    }

    private static long size(ApiRecord record) {
        return ENTRY_OVERHEAD_BYTES + 2L * (length(record.source()) + length(record.requestId())
                + length(record.method()) + length(record.path()) + length(record.stream()) + length(record.error())
                + length(record.message()) + length(record.keyId()) + length(record.keyName())
                + length(record.servedBy()));
    }

    private static int length(String text) {
        return text == null ? 0 : text.length();
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
