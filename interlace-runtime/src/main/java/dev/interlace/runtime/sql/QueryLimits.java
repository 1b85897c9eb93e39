package dev.interlace.runtime.sql;

import java.time.Duration;

/**
 * Bounds on what one {@code POST /sql} query may cost.
 *
 * @param maxRows most rows an answer carries; more are cut off and the answer says {@code truncated}
 * @param maxAnswerBytes roughly the most bytes of values an answer carries (strings by length, other values by
 *     their text); rows are collected until it is reached and the answer says {@code truncated}, so a few wide rows
 *     cannot build an answer of gigabytes
 * @param timeout how long a query may run before it is cancelled
 * @param maxConcurrent most queries running at once; one more is refused as busy instead of queueing
 */
public record QueryLimits(int maxRows, long maxAnswerBytes, Duration timeout, int maxConcurrent) {

    /** 10 000 rows, 16 MiB, 30 s, four queries at once. */
    public static final QueryLimits DEFAULTS = new QueryLimits(10_000, 16L << 20, Duration.ofSeconds(30), 4);

    public QueryLimits {
        if (maxRows < 1 || maxAnswerBytes < 1 || maxConcurrent < 1 || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("query limits must be positive: " + maxRows + " rows, "
                    + maxAnswerBytes + " bytes, " + timeout + ", " + maxConcurrent + " at once");
        }
    }

    public QueryLimits withTimeout(Duration newTimeout) {
        return new QueryLimits(maxRows, maxAnswerBytes, newTimeout, maxConcurrent);
    }
}
