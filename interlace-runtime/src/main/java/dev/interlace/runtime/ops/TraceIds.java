package dev.interlace.runtime.ops;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The W3C trace ids of the requests a flush (or a model run) materialised, bounded: the first {@value #LIMIT} distinct
 * ones in offset order, and how many there were in all. A flush of ten thousand single-event requests keeps sixteen
 * ids and the count, not ten thousand ids; {@code GET /correlate?trace_id=} finds every request of a trace.
 *
 * @param ids distinct trace ids, at most {@value #LIMIT}, in the order their requests' events were stored
 * @param count how many distinct trace ids there were; at least {@code ids.size()}
 */
public record TraceIds(List<String> ids, long count) {

    /** How many ids a record keeps. */
    public static final int LIMIT = 16;

    /** No traced request (a quarantine batch, a run started by hand, a record from before traces). */
    public static final TraceIds NONE = new TraceIds(List.of(), 0);

    public TraceIds {
        ids = List.copyOf(ids);
        if (ids.size() > LIMIT || count < ids.size()) {
            throw new IllegalArgumentException("at most " + LIMIT + " ids and a count of at least as many, got "
                    + ids.size() + " ids and a count of " + count);
        }
    }

    /** The first {@value #LIMIT} of {@code traceIds} (nulls skipped, duplicates counted once) and their count. */
    public static TraceIds of(Collection<String> traceIds) {
        Set<String> distinct = new LinkedHashSet<>(traceIds);
        distinct.remove(null);
        return new TraceIds(distinct.stream().limit(LIMIT).toList(), distinct.size());
    }

    /**
     * These ids followed by {@code later}'s, for a run that several flushes triggered. The count is exact while both
     * lists are whole; once one was cut at the limit, ids beyond it cannot be compared, and a trace whose requests
     * were in two flushes may be counted twice.
     */
    public TraceIds plus(TraceIds later) {
        if (later.count == 0) {
            return this;
        }
        if (count == 0) {
            return later;
        }
        Set<String> union = new LinkedHashSet<>(ids);
        long shared = 0;
        for (String id : later.ids) {
            if (!union.add(id)) {
                shared++;
            }
        }
        List<String> kept = new ArrayList<>(union).subList(0, Math.min(LIMIT, union.size()));
        return new TraceIds(kept, Math.max(kept.size(), count + later.count - shared));
    }

    /** The ids joined by commas, as stored; null when there are none. */
    public String joined() {
        return ids.isEmpty() ? null : String.join(",", ids);
    }

    /** Ids as {@link #joined} wrote them, with their count. */
    public static TraceIds parse(String joined, long count) {
        if (joined == null || joined.isEmpty()) {
            return count == 0 ? NONE : new TraceIds(List.of(), count);
        }
        List<String> ids = List.of(joined.split(","));
        return new TraceIds(ids, Math.max(count, ids.size()));
    }
}
