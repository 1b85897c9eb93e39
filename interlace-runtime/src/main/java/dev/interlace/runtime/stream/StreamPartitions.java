package dev.interlace.runtime.stream;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The one place that knows how a stream's partitions map to log streams and how an event's partition is chosen.
 *
 * <p>Partition 0 of stream {@code orders} is the log stream {@code orders} (so that a stream with one partition is
 * the stream it always was, on disk too); partition p &ge; 1 is the log stream {@code orders__p<p>}. A declared
 * stream name never contains {@code __}, so the mapping is unambiguous, and the suffixes the logs add to a log
 * stream's name ({@code __keys}, {@code __quarantine}) come after it.
 *
 * <p>An event's partition: {@link dev.interlace.client.Partitioning}, the unsigned remainder of the 64-bit hash of its
 * canonical idempotency key (the hash the deduplication index stores, the same on every node and version) by the
 * partition count, which the Java client computes too to send each event to its partition's sequencer; for a keyless
 * stream the same hash of its partition key column's canonical value; else round robin.
 */
public final class StreamPartitions {

    /** The most partitions a stream may declare. */
    public static final int MAX = 256;

    private static final String SEPARATOR = "__p";

    private StreamPartitions() {}

    /** The name of partition {@code p}'s log stream of {@code stream}. */
    public static String logStream(String stream, int p) {
        if (p < 0 || p >= MAX) {
            throw new IllegalArgumentException("partition " + p + " of " + stream + " is out of range");
        }
        return p == 0 ? stream : stream + SEPARATOR + p;
    }

    /** The declared stream a log stream belongs to ({@code orders} for {@code orders__p3} and {@code orders}). */
    public static String streamOf(String logStream) {
        int at = separator(logStream);
        return at < 0 ? logStream : logStream.substring(0, at);
    }

    /** The partition a log stream holds (3 for {@code orders__p3}, 0 for {@code orders}). */
    public static int partitionOf(String logStream) {
        int at = separator(logStream);
        return at < 0 ? 0 : Integer.parseInt(logStream.substring(at + SEPARATOR.length()));
    }

    /** Where {@code __p<digits>} starts at the end of the name, or -1. */
    private static int separator(String logStream) {
        int at = logStream.lastIndexOf(SEPARATOR);
        if (at <= 0 || at + SEPARATOR.length() == logStream.length()) {
            return -1;
        }
        String digits = logStream.substring(at + SEPARATOR.length());
        if (digits.length() > 3 || digits.charAt(0) == '0' || !digits.chars().allMatch(Character::isDigit)) {
            return -1;
        }
        return Integer.parseInt(digits) < MAX ? at : -1;
    }

    /** The partition of an event whose canonical key (or partition key) is {@code canonicalKey}, of {@code count}. */
    public static int partitionOfKey(String canonicalKey, int count) {
        return dev.interlace.client.Partitioning.partitionOf(canonicalKey, count);
    }

    /** Chooses the partitions of one stream's events, round robin for those without a key. */
    public static final class Chooser {

        private final int count;
        private final AtomicLong next = new AtomicLong();

        public Chooser(int count) {
            this.count = count;
        }

        /** The partition of an event with canonical key {@code canonicalKey}, or the next one when it is null. */
        public int partition(String canonicalKey) {
            if (count == 1) {
                return 0;
            }
            if (canonicalKey == null) {
                return (int) Long.remainderUnsigned(next.getAndIncrement(), count);
            }
            return partitionOfKey(canonicalKey, count);
        }
    }
}
