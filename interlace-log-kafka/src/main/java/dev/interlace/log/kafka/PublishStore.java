package dev.interlace.log.kafka;

import dev.interlace.runtime.log.PublishRecord;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * The publish records this node has seen on {@code _publishes}, in the topic's order (the order their transactions
 * committed), keyed as on the topic so that a record seen twice (from the sequencer and the tailer) is kept once and
 * a tombstone removes it.
 */
final class PublishStore {

    /** Position of each record in commit order: its Kafka offset on {@code _publishes}. */
    private final NavigableMap<Long, Stored> byPosition = new TreeMap<>();
    private final Map<String, Long> positionOfKey = new HashMap<>();

    private record Stored(String key, PublishRecord record) {}

    synchronized void apply(String key, PublishRecord record, long position) {
        Long previous = positionOfKey.get(key);
        if (previous != null) {
            if (previous >= position) {
                return;
            }
            byPosition.remove(previous);
        }
        if (record == null) {
            positionOfKey.remove(key);
            return;
        }
        positionOfKey.put(key, position);
        byPosition.put(position, new Stored(key, record));
    }

    synchronized PublishRecord.Page page(PublishRecord.Filter filter) {
        List<PublishRecord> records = new ArrayList<>();
        long total = 0;
        for (Stored stored : byPosition.descendingMap().values()) {
            PublishRecord record = stored.record();
            if (filter.stream() != null && !filter.stream().equals(record.stream())
                    || filter.requestId() != null && !filter.requestId().equals(record.requestId())
                    || filter.sinceMicros() != null && record.receivedAtMicros() < filter.sinceMicros()
                    || filter.untilMicros() != null && record.receivedAtMicros() >= filter.untilMicros()) {
                continue;
            }
            total++;
            if (records.size() < filter.limit()) {
                records.add(record);
            }
        }
        return new PublishRecord.Page(records, total);
    }

    /** The keys of records received before {@code beforeMicros}. */
    synchronized List<String> keysReceivedBefore(long beforeMicros) {
        List<String> keys = new ArrayList<>();
        for (Stored stored : byPosition.values()) {
            if (stored.record().receivedAtMicros() < beforeMicros) {
                keys.add(stored.key());
            }
        }
        return keys;
    }

    /** Forgets {@code key} at once (its tombstone is on its way to the topic). */
    synchronized void remove(String key) {
        Long position = positionOfKey.remove(key);
        if (position != null) {
            byPosition.remove(position);
        }
    }

    /** A tombstone of {@code key} at {@code position}: drops the record unless a newer one replaced it. */
    synchronized void applyTombstone(String key, long position) {
        Long current = positionOfKey.get(key);
        if (current != null && current < position) {
            remove(key);
        }
    }
}
