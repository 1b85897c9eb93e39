package dev.interlace.log.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.interlace.log.kafka.testing.KafkaCluster;
import dev.interlace.runtime.flush.FlushLease;
import dev.interlace.runtime.log.Leases;
import dev.interlace.runtime.log.LogEntry;
import dev.interlace.runtime.log.StreamHead;
import dev.interlace.runtime.testing.Eventually;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupListing;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The query process's view of the Kafka log: it reads what a node appended and trimmed, and the flush leases it takes
 * are its own, in its memory: the node's log and the cluster's consumer groups never see them, so trims do not wait
 * for it. Appends are refused.
 */
class KafkaLogFollowerTest {

    @TempDir
    Path directory;

    @Test
    void readsWhatTheNodeAppendedAndTrimmedAndLeasesNothingInTheLog() throws Exception {
        String prefix = KeyedOrders.prefix("follower");
        String bootstrap = KafkaCluster.shared().bootstrap();
        try (KafkaStreamLog node = KeyedOrders.log(prefix, directory.resolve("node"), "node", true, 1000)) {
            node.register(KeyedOrders.declaredBy(KafkaLogFollowerTest.class));
            for (int i = 1; i <= 5; i++) {
                KeyedOrders.appendUntilServed(node, "k" + i);
            }
            try (KafkaLogFollower follower = follower(prefix)) {
                follower.register(KeyedOrders.declaredBy(KafkaLogFollowerTest.class));
                assertThat(follower.heads().get("orders").head()).isEqualTo(5);
                List<LogEntry> read = follower.read("orders", 0, 10, Long.MAX_VALUE, Duration.ZERO);
                assertThat(read).extracting(LogEntry::offset).containsExactly(1L, 2L, 3L, 4L, 5L);

                // Its flusher's lease and commit are its own.
                Leases.LeaseResult lease = follower.lease("orders", FlushLease.GROUP, "interlace-flusher",
                        Duration.ofSeconds(15), Leases.Actor.SERVER);
                assertThat(lease).isInstanceOf(Leases.Granted.class);
                assertThat(follower.commit("orders", FlushLease.GROUP, ((Leases.Granted) lease).token(), 2,
                        Leases.Actor.SERVER)).isInstanceOf(Leases.Committed.class);
                assertThat(follower.groups("orders")).extracting(Leases.Group::committedOffset).containsExactly(2L);
                assertThat(node.groups("orders")).as("nothing of it on the log").isEmpty();
                try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
                    assertThat(admin.listConsumerGroups().all().get()).extracting(ConsumerGroupListing::groupId)
                            .filteredOn(id -> id.startsWith(prefix)).containsExactly(prefix + "sequencers");
                }

                // The node trims past the follower's watermark: nothing waits, and the follower sees the log start
                // after the trim (its flush then stops: the query process is rebuilt).
                assertThat(node.trim("orders", 4)).isEqualTo(4);
                StreamHead head = Eventually.get("the follower reads the trim", Duration.ofSeconds(30),
                        () -> follower.heads().get("orders"), seen -> seen.earliest() == 5);
                assertThat(head.head()).isEqualTo(5);

                assertThatThrownBy(() -> follower.append(KeyedOrders.request("k6")).get())
                        .isInstanceOf(ExecutionException.class)
                        .hasCauseInstanceOf(UnsupportedOperationException.class);
                assertThat(follower.trim("orders", 5)).isZero();
                assertThat(follower.health().writable()).as("a follower that reads is healthy").isTrue();
            }
        }
    }

    /**
     * A flusher's reads go forward batch by batch, each read reading the next batch ahead: every event comes once, in
     * order, whatever the batches' sizes and the reads elsewhere that take the reading-ahead consumer in between.
     */
    @Test
    void readsBatchAfterBatchEveryEventOnceWithReadsElsewhereInBetween() throws Exception {
        String prefix = KeyedOrders.prefix("follower-batches");
        try (KafkaStreamLog node = KeyedOrders.log(prefix, directory.resolve("node"), "node", true, 100_000)) {
            node.register(KeyedOrders.declaredBy(KafkaLogFollowerTest.class));
            KeyedAppends.append(node, 3_000, 500);
            try (KafkaLogFollower follower = follower(prefix)) {
                follower.register(KeyedOrders.declaredBy(KafkaLogFollowerTest.class));
                List<Long> offsets = new ArrayList<>();
                long after = 0;
                int batch = 0;
                while (after < 3_000) {
                    // Batches of 1 to 700 events, some ended by their bytes (an event is about 16 bytes here).
                    int limit = 1 + (batch * 263) % 700;
                    long maxBytes = batch % 3 == 0 ? 2_000 : Long.MAX_VALUE;
                    List<LogEntry> read = follower.read("orders", after, limit, maxBytes, Duration.ZERO);
                    assertThat(read).as("batch %d after %d", batch, after).isNotEmpty();
                    read.forEach(entry -> offsets.add(entry.offset()));
                    after = read.get(read.size() - 1).offset();
                    if (batch % 4 == 1) {
                        // A client's page elsewhere, and the newest events, in between.
                        assertThat(follower.read("orders", batch, 3, Long.MAX_VALUE, Duration.ZERO))
                                .extracting(LogEntry::offset).containsExactly(batch + 1L, batch + 2L, batch + 3L);
                        assertThat(follower.latest("orders", 1, Long.MAX_VALUE)).extracting(LogEntry::offset)
                                .containsExactly(3_000L);
                    }
                    batch++;
                }
                assertThat(offsets).containsExactlyElementsOf(LongStream.rangeClosed(1, 3_000).boxed().toList());
                assertThat(new String(follower.read("orders", 2_999, 1, Long.MAX_VALUE, Duration.ZERO).get(0)
                        .payload(), java.nio.charset.StandardCharsets.UTF_8)).isEqualTo("{\"id\":\"key-2999\"}");
            }
        }
    }

    /** A query process's follower of the log under {@code prefix}, its copy of the publish records in its own folder. */
    private KafkaLogFollower follower(String prefix) {
        return new KafkaLogFollower(new KafkaLogSettings(KafkaCluster.shared().bootstrap(), prefix, 1, 1,
                "http://query-process.invalid", Duration.ofSeconds(6), Duration.ofSeconds(20), false,
                directory.resolve("follower")), Clock.systemUTC());
    }
}
