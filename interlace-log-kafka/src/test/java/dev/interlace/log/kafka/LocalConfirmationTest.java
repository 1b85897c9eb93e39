package dev.interlace.log.kafka;

import static dev.interlace.log.kafka.KeyedOrders.appendUntilServed;
import static dev.interlace.log.kafka.KeyedOrders.entry;
import static dev.interlace.log.kafka.KeyedOrders.request;
import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.log.kafka.testing.KafkaCluster;
import dev.interlace.runtime.log.AppendResult;
import dev.interlace.runtime.testing.Eventually;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * The sequencer confirms a deduplication candidate from its node's own copy of the events' keys, not by reading the
 * topic: once the stream's events are deleted from their topic behind the log's back, a retry of each stored key is
 * still answered {@code deduplicated} with its original offset (confirming from the topic would find no event and
 * accept the retry as new), and a new key is still accepted.
 */
class LocalConfirmationTest extends SharedBrokerTest {

    private static final int STORED = 60;

    @Test
    void aRetryIsConfirmedFromTheNodesOwnCopyOfTheKeysWhenTheTopicNoLongerHasItsEvent() throws Exception {
        try (KafkaStreamLog log = open()) {
            log.register(orders);
            assertThat(entry(appendUntilServed(log, "order-1")).offset()).isEqualTo(1);
            for (int i = 2; i <= STORED; i++) {
                AppendResult.EntryResult entry = entry(log.append(request("order-" + i)).get(30, TimeUnit.SECONDS));
                assertThat(entry.status()).isEqualTo(AppendResult.Status.ACCEPTED);
                assertThat(entry.offset()).isEqualTo(i);
            }
            // The node's tailer copies the keys as it reads the events.
            Eventually.until("the node copied every key", Duration.ofSeconds(60),
                    () -> log.localKeysThrough("orders") >= STORED);
            assertThat(log.localKeysThrough("orders")).as("the node has copied every key").isEqualTo(STORED);
            deleteEveryEventFromTheTopic();

            assertThat(log.dedupStats("orders").orElseThrow().segments()).as("old keys are in sealed segments")
                    .isPositive();
            for (int i = 1; i <= STORED; i++) {
                AppendResult.EntryResult entry = entry(log.append(request("order-" + i)).get(30, TimeUnit.SECONDS));
                assertThat(entry.status()).as("order-%d again", i).isEqualTo(AppendResult.Status.DUPLICATE);
                assertThat(entry.offset()).as("order-%d again", i).isEqualTo(i);
            }
            AppendResult.EntryResult fresh = entry(log.append(request("order-new")).get(30, TimeUnit.SECONDS));
            assertThat(fresh.status()).isEqualTo(AppendResult.Status.ACCEPTED);
            assertThat(fresh.offset()).isEqualTo(STORED + 1);
        }
    }

    private void deleteEveryEventFromTheTopic() throws Exception {
        TopicPartition events = new Topics(null, prefix, 1, 1).events("orders");
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                KafkaCluster.shared().bootstrap()))) {
            long end = admin.listOffsets(Map.of(events, OffsetSpec.latest())).partitionResult(events)
                    .get(30, TimeUnit.SECONDS).offset();
            admin.deleteRecords(Map.of(events, RecordsToDelete.beforeOffset(end))).all().get(30, TimeUnit.SECONDS);
            assertThat(admin.listOffsets(Map.of(events, OffsetSpec.earliest())).partitionResult(events)
                    .get(30, TimeUnit.SECONDS).offset()).as("the topic keeps no event").isEqualTo(end);
        }
    }

    private KafkaStreamLog open() {
        return KeyedOrders.log(prefix, directory.resolve("node"), "node", true, 8);
    }
}
