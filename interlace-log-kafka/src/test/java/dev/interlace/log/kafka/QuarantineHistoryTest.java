package dev.interlace.log.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.runtime.log.AppendRequest;
import dev.interlace.runtime.log.AppendResult;
import dev.interlace.runtime.log.QuarantineEntry;
import dev.interlace.runtime.log.ReplayRequest;
import dev.interlace.runtime.log.ReplayResult;
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
 * A node with an empty data directory, the only one left, takes over a stream whose quarantine is longer than what
 * its tailer reads of a topic ({@link Tailer#RECENT}): it reads old quarantined entries by sequence number (their
 * positions found by {@link PositionSearch}), replays one and lists what that replay moved, without having read the
 * whole quarantine topic.
 */
class QuarantineHistoryTest extends SharedBrokerTest {

    /** Half again as many quarantined entries as the tailer reads of a topic ({@link Tailer#RECENT}). */
    private static final int ENTRIES = 12_288;
    private static final int BATCH = 512;

    @Test
    void aFreshNodeServesOldQuarantinedEntriesWithoutReadingTheWholeQuarantine() throws Exception {
        try (KafkaStreamLog first = open("first")) {
            first.register(orders);
            for (int from = 0; from < ENTRIES; from += BATCH) {
                List<AppendRequest.Entry> entries = new ArrayList<>();
                for (int i = from; i < from + BATCH; i++) {
                    entries.add(new AppendRequest.Quarantined(payload(i), List.of()));
                }
                AppendRequest request = new AppendRequest("orders", "req-" + UUID.randomUUID(),
                        System.currentTimeMillis() * 1_000, "v1", entries);
                AppendResult result = Eventually.retrying("the node sequences the stream", Duration.ofSeconds(60),
                        ExecutionException.class, () -> first.append(request).get(30, TimeUnit.SECONDS));
                assertThat(result).isInstanceOf(AppendResult.Committed.class);
            }
            assertThat(first.readQuarantine("orders", ENTRIES - 1, 10)).extracting(QuarantineEntry::seq)
                    .containsExactly((long) ENTRIES);
        }
        try (KafkaStreamLog fresh = open("fresh")) {
            fresh.register(orders);
            long tailerRead = fresh.tailerReads()[0];
            assertThat(tailerRead).as("records the tailer read").isLessThan(ENTRIES - ENTRIES / 4);

            List<QuarantineEntry> oldest = fresh.readQuarantine("orders", 0, 3);
            assertThat(oldest).extracting(QuarantineEntry::seq).containsExactly(1L, 2L, 3L);
            assertThat(oldest.get(0).payload()).isEqualTo(payload(0));
            List<QuarantineEntry> old = fresh.readQuarantine("orders", 1000, 2);
            assertThat(old).extracting(QuarantineEntry::seq).containsExactly(1001L, 1002L);
            assertThat(old.get(1).payload()).isEqualTo(payload(1001));
            assertThat(fresh.tailerReads()[1]).as("positions found by search").isPositive();

            ReplayRequest replay = new ReplayRequest("orders", "replay-old", System.currentTimeMillis() * 1_000, "v1",
                    List.of(new ReplayRequest.Entry(7, new AppendRequest.Event(payload(6), "replayed-7"))), null, null,
                    false);
            ReplayResult replayed = Eventually.retrying("the node sequences the stream", Duration.ofSeconds(60),
                    ExecutionException.class, () -> fresh.replay(replay).get(30, TimeUnit.SECONDS));
            assertThat(((ReplayResult.Replayed) replayed).entries()).containsExactly(
                    new ReplayResult.EntryResult(7, ReplayResult.Status.ACCEPTED, 1));
            List<QuarantineEntry> moved = Eventually.get("the replay is listed", Duration.ofSeconds(30),
                    () -> fresh.replayedBy("orders", "replay-old", 10), entries -> !entries.isEmpty());
            assertThat(moved).extracting(QuarantineEntry::seq).containsExactly(7L);
            assertThat(moved.get(0).payload()).isEqualTo(payload(6));
            assertThat(moved.get(0).replay().offset()).isEqualTo(1);
            assertThat(fresh.readQuarantine("orders", 6, 1).get(0).replay().requestId()).isEqualTo("replay-old");
            assertThat(fresh.tailerReads()[0] - tailerRead).as("the tailer read no old entries afterwards")
                    .isLessThan(ENTRIES / 4);
        }
    }

    /** Quarantined entry {@code i}'s payload (entry {@code i} has sequence number {@code i + 1}). */
    private static byte[] payload(int i) {
        return ("{\"id\":\"q-" + i + "\"}").getBytes(StandardCharsets.UTF_8);
    }

    private KafkaStreamLog open(String node) {
        return KeyedOrders.log(prefix, directory.resolve(node), node, true, 1000);
    }
}
