package dev.interlace.log.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.runtime.log.AppendRequest;
import dev.interlace.runtime.log.AppendResult;
import dev.interlace.runtime.log.LogEntry;
import dev.interlace.runtime.testing.Eventually;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
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
        List<Long> offsets = new ArrayList<>();
        try (KafkaStreamLog first = open("first")) {
            first.register(orders);
            for (int from = 0; from < KEYS; from += BATCH) {
                List<AppendRequest.Entry> events = new ArrayList<>();
                for (int i = from; i < Math.min(KEYS, from + BATCH); i++) {
                    events.add(new AppendRequest.Event(("{\"id\":\"key-" + i + "\"}").getBytes(
                            StandardCharsets.UTF_8), "key-" + i));
                }
                AppendResult result = Eventually.retrying("the node sequences the stream", Duration.ofSeconds(60),
                        ExecutionException.class, () -> first.append(new AppendRequest("orders", "req-"
                                + UUID.randomUUID(), System.currentTimeMillis() * 1_000, "v1", events))
                                .get(30, TimeUnit.SECONDS));
                for (AppendResult.EntryResult entry : ((AppendResult.Committed) result).entries()) {
                    assertThat(entry.status()).isIn(AppendResult.Status.ACCEPTED, AppendResult.Status.DUPLICATE);
                    offsets.add(entry.offset());
                }
            }
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
