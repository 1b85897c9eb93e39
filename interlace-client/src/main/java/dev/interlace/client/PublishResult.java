package dev.interlace.client;

import java.util.List;

/**
 * The outcome of a publish, summed over every request it took.
 *
 * @param lastOffset highest offset among accepted and duplicate events, or null when there was none (and for a
 *     stream of several partitions, whose offsets are per partition)
 * @param position where those events are in the log, for {@link InterlaceClient#sql(String, String...)} to read
 *     after them (read-your-writes): the furthest position of each partition they fell in; opaque, null when none
 * @param requestIds the id of each request, in order
 */
public record PublishResult(long accepted, long deduplicated, long quarantined, Long lastOffset, String position,
        List<String> requestIds) {}
