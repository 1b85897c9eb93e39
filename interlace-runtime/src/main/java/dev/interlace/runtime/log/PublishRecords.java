package dev.interlace.runtime.log;

/**
 * The publish records the log keeps, one per accepted publish request (written atomically with the request's
 * entries by {@link EventLog#append}), and their retention.
 */
public interface PublishRecords {

    /** Publish records matching {@code filter}, newest first, with the total number of matches. */
    PublishRecord.Page publishes(PublishRecord.Filter filter);

    /** Removes publish records received before {@code beforeMicros} (record retention); returns how many. */
    long trimPublishes(long beforeMicros);
}
