package dev.interlace.log.kafka;

import dev.interlace.runtime.log.PayloadAllowance;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongPredicate;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * Pages of a stream's topic read for an answer (events, quarantined entries): forward from the nearest position the
 * stream's view knows, within a budget of bytes and what the caller's {@link PayloadAllowance} admits, teaching the
 * view where the page ended.
 */
final class TopicPages {

    /**
     * How long a read of events for an answer (a page, the recent events, the quarantine) may see no record come
     * before it fails {@code log_unavailable}: a client waits seconds, not the 30 s the log's own reads allow.
     */
    private static final Duration ANSWER_PATIENCE = Duration.ofSeconds(5);

    /** Builds the entry of a record numbered {@code number}. */
    @FunctionalInterface
    interface Entry<E> {
        E of(ConsumerRecord<byte[], byte[]> record, long number);
    }

    private final Readers readers;

    TopicPages(Readers readers) {
        this.readers = readers;
    }

    /**
     * The entries numbered {@code from} through {@code through} in {@code topic} that {@code wanted} takes (a record's
     * number is its header {@code numberHeader}: the events' offset, the quarantined entries' sequence number), up to
     * and including the one whose payload brings their total to {@code maxBytes}, or before the first whose payload
     * {@code allowance} refuses (each value is offered to it as the read comes to it, before the entry is built).
     */
    <E> List<E> read(TopicPartition topic, TopicPositions positions, String numberHeader, long from, long through,
            long maxBytes, LongPredicate wanted, PayloadAllowance allowance, Entry<E> entry) {
        return read(topic, positions, numberHeader, from, through, maxBytes, wanted, allowance,
                Readers.ReadAhead.NONE, entry);
    }

    /**
     * As {@link #read(TopicPartition, TopicPositions, String, long, long, long, LongPredicate, PayloadAllowance,
     * Entry)}; then the reader's consumer reads ahead as {@code readAhead} says, for the page that follows this one.
     */
    <E> List<E> read(TopicPartition topic, TopicPositions positions, String numberHeader, long from, long through,
            long maxBytes, LongPredicate wanted, PayloadAllowance allowance, Readers.ReadAhead readAhead,
            Entry<E> entry) {
        List<E> entries = new ArrayList<>();
        long[] bytes = {0};
        long[] last = {0, 0};
        Readers.RecordVisitor visitor = record -> {
            long number = Codec.longHeader(record.headers(), numberHeader);
            if (number >= from && number <= through && wanted.test(number)) {
                long length = record.value() == null ? 0 : record.value().length;
                if (!allowance.admit(length)) {
                    return false;
                }
                entries.add(entry.of(record, number));
                bytes[0] += length;
                last[0] = number;
                last[1] = record.offset();
            }
            // Ends with the record whose value brings the total to maxBytes.
            return number < through && bytes[0] < maxBytes;
        };
        try {
            readers.scan(topic, positions.readFrom(from), positions.readEnd(through), ANSWER_PATIENCE, readAhead,
                    visitor);
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e); // the visitor throws none
        }
        if (last[0] > 0) {
            positions.learn(last[0], last[1]);
        }
        return entries;
    }
}
