package dev.interlace.log.kafka;

import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * Finds where an old event sits in its stream's topic (or an old entry in its quarantine topic) when what the node
 * knows of the positions ({@link EventPositions}) would leave a read more than {@link #SPAN} records to go through
 * first: a node reads only the newest records of a stream's topics when it registers the stream ({@link Tailer#RECENT}), so the positions of
 * everything older are found on demand. Kafka offsets grow with the events' offsets (only transaction markers and
 * aborted records lie between), so a search of single-record fetches finds an event's Kafka offset in a few fetches
 * (at most twice log2 of the records between); the view remembers what it found ({@link EventPositions#learn}), and
 * the next search of a nearby offset starts from there. Each fetch is a point read ({@link Readers#first}: a small
 * fetch), so the search goes on until it is within {@link #NEAR} records of the event, and the read that follows
 * (a page, a candidate's confirmation) starts next to it.
 */
final class PositionSearch {

    /** Records a read may go through before reaching the one it wants, rather than searching first. */
    static final long SPAN = 4096;
    /** Records before the event a search may stop at: reading forward from there is about one small fetch. */
    static final long NEAR = 64;
    /** Fetches a search makes at most (a binary search of 2^32 records takes 32). */
    private static final int MAX_PROBES = 64;

    private final Topics topics;
    /** The log's readers, set once they exist (null before: reads go forward from what is known, as before). */
    private volatile Readers readers;
    private final AtomicLong fetches = new AtomicLong();

    PositionSearch(Topics topics) {
        this.topics = topics;
    }

    /** From now on, searches fetch with {@code readers}. */
    void readWith(Readers readers) {
        this.readers = readers;
    }

    /** How many single-record fetches the searches made; for tests and benchmarks. */
    long fetches() {
        return fetches.get();
    }

    /**
     * The number and Kafka offset of a committed event of {@code stream} at or before event {@code offset} and close
     * enough to it that reading forward from there is short, found between the known positions {@code from} (at or
     * before {@code offset}'s) and {@code end} (past it); null when no search is needed or none can be made.
     *
     * <p>An interpolation search (events are spread evenly enough over Kafka offsets that a guess from two known
     * points lands near), every step that does not halve the range followed by a bisection, so that it never takes
     * more than twice a binary search's fetches. The events known at both ends (a checkpoint, a position learned by an
     * earlier read or search) are its first two points, so that its first fetch is already a guess near the event.
     */
    long[] atOrBefore(String stream, long offset, EventPositions.Known from, EventPositions.Known end) {
        return atOrBefore(topics.events(stream), Codec.OFFSET, offset, from, end);
    }

    /**
     * The same for quarantined entry {@code seq} of {@code stream} in its quarantine topic, which a node reads from its
     * newest {@link Tailer#RECENT} records too.
     */
    long[] quarantinedAtOrBefore(String stream, long seq, EventPositions.Known from, EventPositions.Known end) {
        return atOrBefore(topics.quarantine(stream), Codec.SEQ, seq, from, end);
    }

    /** The same in {@code events}, whose records carry their number in header {@code numberHeader}. */
    private long[] atOrBefore(TopicPartition events, String numberHeader, long offset, EventPositions.Known from,
            EventPositions.Known end) {
        Readers fetcher = readers;
        if (fetcher == null || end.kafka() - from.kafka() <= SPAN) {
            return null;
        }
        long low = from.kafka();
        long high = end.kafka();
        long lowNumber = from.offset();
        long highNumber = end.offset() > offset ? end.offset() : -1;
        long[] best = null;
        boolean bisect = false;
        // Invariant: the record of event `offset` lies at a Kafka offset in [low, high).
        for (int probes = 0; high - low > NEAR && probes < MAX_PROBES; probes++) {
            if (lowNumber >= 0 && offset - lowNumber <= NEAR) {
                break; // close enough: the read goes forward from there
            }
            long guess;
            boolean interpolated = false;
            if (lowNumber < 0) {
                guess = low;
            } else if (highNumber < 0) {
                guess = high - NEAR;
            } else if (bisect) {
                guess = low + (high - low) / 2;
            } else {
                double perEvent = (double) (high - low) / Math.max(1, highNumber - lowNumber);
                guess = low + (long) ((offset - NEAR / 2 - lowNumber) * perEvent);
                guess = Math.max(low + 1, Math.min(guess, high - 1));
                interpolated = true;
            }
            long range = high - low;
            ConsumerRecord<byte[], byte[]> record = fetcher.first(events, guess, high);
            fetches.incrementAndGet();
            long number = record == null ? Long.MAX_VALUE : Codec.longHeader(record.headers(), numberHeader);
            if (number <= offset) {
                low = record.offset();
                lowNumber = number;
                best = new long[] {number, low};
                if (number == offset) {
                    break;
                }
            } else {
                high = guess; // none committed in [guess, high), or a later event first: it lies before
                if (record != null) {
                    highNumber = number;
                }
            }
            bisect = interpolated && high - low > range / 2;
        }
        return best;
    }
}
