package dev.interlace.client;

import java.util.List;

/**
 * The outcome of a publish, summed over every request it took.
 *
 * @param lastOffset highest offset among accepted and duplicate events, or null when there was none (and for a
 *     stream of several partitions, whose offsets are per partition: see {@code partitions})
 * @param position where those events are in the log, for {@link InterlaceClient#sql(String, String...)} to read
 *     after them (read-your-writes): the furthest position of each partition they fell in; opaque, null when none
 * @param requestIds the id of each request, in order
 * @param partitions for a stream of several partitions, each partition the events fell in, by partition, with the
 *     highest offset of all the requests' shares in it; empty for a stream of one partition
 */
public record PublishResult(long accepted, long deduplicated, long quarantined, Long lastOffset, String position,
        List<String> requestIds, List<PartitionResult> partitions) {

    public PublishResult {
        requestIds = List.copyOf(requestIds);
        partitions = List.copyOf(partitions);
    }

    /** The result of a publish to a stream of one partition. */
    public PublishResult(long accepted, long deduplicated, long quarantined, Long lastOffset, String position,
            List<String> requestIds) {
        this(accepted, deduplicated, quarantined, lastOffset, position, requestIds, List.of());
    }
}
