package dev.interlace.client;

import java.util.List;

/**
 * The outcome of a publish, summed over every request it took.
 *
 * @param lastOffset highest offset among accepted and duplicate events, or null when there was none
 * @param requestIds the id of each request, in order
 */
public record PublishResult(long accepted, long deduplicated, long quarantined, Long lastOffset,
        List<String> requestIds) {}
