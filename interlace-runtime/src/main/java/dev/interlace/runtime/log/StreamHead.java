package dev.interlace.runtime.log;

/**
 * Positions of one stream in the log.
 *
 * @param stream stream name
 * @param head the highest offset written (0 when empty)
 * @param quarantineHead the highest quarantine sequence number written (0 when none)
 * @param earliest the lowest offset still stored, {@code head + 1} when every event was trimmed
 */
public record StreamHead(String stream, long head, long quarantineHead, long earliest) {}
