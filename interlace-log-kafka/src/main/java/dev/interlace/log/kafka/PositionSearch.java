package dev.interlace.log.kafka;

import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * Finds where an old event sits in its stream's topic when what the node knows of the positions
 * ({@link EventPositions}) would leave a read more than {@link #SPAN} records to go through first: a node reads only
 * the newest records of a stream's topic when it registers the stream ({@link Tailer#RECENT}), so the positions of
 * everything older are found on demand. Kafka offsets grow with the events' offsets (only transaction markers and
 * aborted records lie between), so a binary search of single-record fetches finds an event's Kafka offset in about
 * log2(records) fetches; the view remembers what it found ({@link EventPositions#learn}), and the next search of a
 * nearby offset starts from there.
 */
final class PositionSearch {

    /** Records a read may go through before reaching the one it wants, rather than searching first. */
    static final long SPAN = 4096;

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
     * The number and Kafka offset of the newest committed event of {@code stream} at or before event {@code offset},
     * found between Kafka offsets {@code from} (at or before {@code offset}'s) and {@code end} (past it), or null when
     * no search is needed or none can be made.
     */
    long[] atOrBefore(String stream, long offset, long from, long end) {
        Readers fetcher = readers;
        if (fetcher == null || end - from <= SPAN) {
            return null;
        }
        TopicPartition events = topics.events(stream);
        long low = from;
        long high = end;
        long[] best = null;
        // Invariant: the record of event `offset` lies at a Kafka offset in [low, high).
        while (high - low > SPAN) {
            long middle = low + (high - low) / 2;
            ConsumerRecord<byte[], byte[]> record = fetcher.first(events, middle, high);
            fetches.incrementAndGet();
            long number = record == null ? Long.MAX_VALUE : Codec.longHeader(record.headers(), Codec.OFFSET);
            if (number <= offset) {
                low = record.offset();
                best = new long[] {number, low};
                if (number == offset) {
                    break;
                }
            } else {
                high = middle; // none committed in [middle, high), or a later event first: it lies before
            }
        }
        return best;
    }
}
