package dev.interlace.runtime.log;

import java.util.List;

/**
 * The publish records the log keeps, one per accepted publish request (written atomically with the request's
 * entries by {@link EventLog#append}), and their retention.
 */
public interface PublishRecords {

    /** Publish records matching {@code filter}, newest first, with the total number of matches. */
    PublishRecord.Page publishes(PublishRecord.Filter filter);

    /**
     * The trace ids of the requests whose accepted events have offsets in {@code (afterOffset, throughOffset]} of
     * {@code stream}, one per request in the order of their events (a trace's repeats kept; requests without a trace
     * left out): what a flush of those offsets materialised for. A request reaching beyond either end counts.
     */
    List<String> traceIds(String stream, long afterOffset, long throughOffset);

    /**
     * Removes publish records from before {@code beforeMicros} (record retention); returns how many. A record goes once
     * it was received before that time; one whose commit came after it may stay until the next trim.
     */
    long trimPublishes(long beforeMicros);
}
