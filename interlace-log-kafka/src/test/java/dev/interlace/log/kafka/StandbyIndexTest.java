package dev.interlace.log.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.runtime.dedup.DedupIndex;
import dev.interlace.runtime.log.AppendRequest;
import dev.interlace.runtime.log.AppendResult;
import dev.interlace.runtime.testing.Eventually;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A node that may take a stream over keeps the stream's deduplication segments on its own disk while another node
 * sequences it, holding none of its keys in its heap; when it takes the stream over, its index starts from those
 * segments, and every key stored before is still answered as a duplicate with its original offset.
 */
class StandbyIndexTest extends SharedBrokerTest {

    /** Keys a recent table holds before it is sealed: small, so that the standby seals several segments. */
    private static final int RECENT_KEYS = 50;

    @Test
    void theNodeThatTakesAStreamOverStartsFromTheSegmentsItSealedAsAStandbyAndFindsEveryOldKey() throws Exception {
        List<Long> offsets = new ArrayList<>();
        KafkaStreamLog first = open("first");
        try (KafkaStreamLog second = open("second")) {
            try {
                first.register(orders);
                offsets.add(accepted(appendUntilServed(first, List.of("key-0"))));
                second.register(orders);
                for (int request = 0; request < 20; request++) {
                    List<String> keys = new ArrayList<>();
                    for (int i = 0; i < 20; i++) {
                        keys.add("key-" + (1 + request * 20 + i));
                    }
                    AppendResult result = first.append(request(keys)).get(30, TimeUnit.SECONDS);
                    for (AppendResult.EntryResult entry : ((AppendResult.Committed) result).entries()) {
                        assertThat(entry.status()).isEqualTo(AppendResult.Status.ACCEPTED);
                        offsets.add(entry.offset());
                    }
                }
                assertThat(offsets).hasSize(401);

                // The standby seals whole tables of keys: everything but the last, partial one.
                Eventually.until("the standby sealed the whole tables", Duration.ofSeconds(60),
                        () -> second.standbySealedThrough("orders") >= 401 - RECENT_KEYS);
                assertThat(second.standbySealedThrough("orders")).isGreaterThanOrEqualTo(401 - RECENT_KEYS);
                assertThat(second.dedupStats("orders")).as("a standby holds no index in its heap").isEmpty();
                assertThat(segmentFiles(directory.resolve("second"))).isNotEmpty();
            } finally {
                first.close(); // leaves the sequencer group: the second node takes the stream over
            }

            for (int i = 0; i < 401; i += 7) {
                AppendResult retried = appendUntilServed(second, List.of("key-" + i));
                AppendResult.EntryResult entry = ((AppendResult.Committed) retried).entries().get(0);
                assertThat(entry.status()).as("key-%d", i).isEqualTo(AppendResult.Status.DUPLICATE);
                assertThat(entry.offset()).as("key-%d", i).isEqualTo(offsets.get(i));
            }
            assertThat(accepted(second.append(request(List.of("key-new"))).get(30, TimeUnit.SECONDS)))
                    .isEqualTo(402);
            DedupIndex.Stats stats = second.dedupStats("orders").orElseThrow();
            assertThat(stats.keys()).isGreaterThanOrEqualTo(402);
            assertThat(stats.segments()).as("started from the standby's segments").isPositive();
        }
    }

    private KafkaStreamLog open(String node) {
        return KeyedOrders.log(prefix, directory.resolve(node), node, true, RECENT_KEYS);
    }

    private static List<Path> segmentFiles(Path dataDirectory) throws Exception {
        try (Stream<Path> files = Files.walk(dataDirectory)) {
            return files.filter(file -> file.getFileName().toString().endsWith(".seg")).toList();
        }
    }

    private static long accepted(AppendResult result) {
        AppendResult.EntryResult entry = ((AppendResult.Committed) result).entries().get(0);
        assertThat(entry.status()).isEqualTo(AppendResult.Status.ACCEPTED);
        return entry.offset();
    }

    /** Appends once the node sequences the stream (a takeover under way fails the append with no_sequencer). */
    private static AppendResult appendUntilServed(KafkaStreamLog log, List<String> keys) throws Exception {
        return Eventually.retrying("the node sequences the stream", Duration.ofSeconds(60), ExecutionException.class,
                () -> log.append(request(keys)).get(30, TimeUnit.SECONDS));
    }

    private static AppendRequest request(List<String> keys) {
        List<AppendRequest.Entry> events = new ArrayList<>();
        for (String key : keys) {
            events.add(new AppendRequest.Event(("{\"id\":\"" + key + "\"}").getBytes(StandardCharsets.UTF_8), key));
        }
        return new AppendRequest("orders", "req-" + UUID.randomUUID(), System.currentTimeMillis() * 1_000, "v1",
                events);
    }
}
