package dev.interlace.log.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.runtime.log.AppendResult;
import dev.interlace.runtime.log.LogEntry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A node with an empty data directory, the only one left, takes over a keyed stream with a history longer than what
 * its tailer reads ({@link Tailer#RECENT}): it answers old keys deduplicated at their original offsets and reads old
 * events by offset, its positions found by {@link PositionSearch}, without having read the whole topic.
 */
class FreshTakeoverTest extends SharedBrokerTest {

    /** Half again as many events as the tailer reads of a topic ({@link Tailer#RECENT}). */
    private static final int KEYS = 12_288;
    private static final int BATCH = 400;

    @Test
    void aFreshNodeTakesOverWithoutReadingTheStreamsHistory() throws Exception {
        List<Long> offsets;
        try (KafkaStreamLog first = open("first")) {
            first.register(orders);
            offsets = KeyedAppends.append(first, KEYS, BATCH);
        }
        try (KafkaStreamLog fresh = open("fresh")) {
            fresh.register(orders);
            long tailerRead = fresh.tailerReads()[0];
            assertThat(tailerRead).as("records the tailer read").isLessThan(KEYS - KEYS / 4);

            for (int i = 0; i < KEYS / 3; i += 97) {
                AppendResult.EntryResult entry = KeyedOrders.entry(KeyedOrders.appendUntilServed(fresh, "key-" + i));
                assertThat(entry.status()).as("key-" + i).isEqualTo(AppendResult.Status.DUPLICATE);
                assertThat(entry.offset()).as("key-" + i).isEqualTo(offsets.get(i));
            }
            List<LogEntry> oldest = fresh.read("orders", 0, 5, 1 << 20, Duration.ZERO);
            assertThat(oldest).extracting(LogEntry::offset).containsExactlyElementsOf(offsets.subList(0, 5));
            List<LogEntry> old = fresh.read("orders", offsets.get(1000), 3, 1 << 20, Duration.ZERO);
            assertThat(old).extracting(LogEntry::offset).containsExactlyElementsOf(offsets.subList(1001, 1004));
            assertThat(new String(old.get(0).payload(), StandardCharsets.UTF_8)).contains("key-1001");
            assertThat(fresh.tailerReads()[1]).as("positions found by search").isPositive();
            assertThat(fresh.tailerReads()[0] - tailerRead).as("the tailer read no old events afterwards")
                    .isLessThan(KEYS / 4);
            assertThat(KeyedOrders.entry(KeyedOrders.appendUntilServed(fresh, "key-new")).status())
                    .isEqualTo(AppendResult.Status.ACCEPTED);
        }
    }

    private KafkaStreamLog open(String node) {
        return KeyedOrders.log(prefix, directory.resolve(node), node, true, 1000);
    }
}
