package dev.interlace.log.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.log.kafka.testing.KafkaCluster;
import dev.interlace.runtime.cluster.WarehouseNode;
import dev.interlace.runtime.flush.FlushLease;
import dev.interlace.runtime.log.AppendRequest;
import dev.interlace.runtime.log.Leases;
import dev.interlace.runtime.log.LogSettings;
import dev.interlace.runtime.ops.RequestIds;
import dev.interlace.runtime.records.SystemRecords;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The warehouses as every node reads them from the log's flusher groups: trims wait for the slowest replica until it
 * has been silent for the timeout, queries go to the live one, and a dropped replica that leases again counts again.
 */
class WarehouseReplicaSetTest {

    private static final Duration TIMEOUT = Duration.ofMinutes(1);

    @TempDir
    Path directory;

    private final String prefix = "replicaset-" + UUID.randomUUID().toString().substring(0, 8) + ".";

    @Test
    void trimsWaitForTheSlowestReplicaUntilItHasBeenSilentForTheTimeout() throws Exception {
        try (KafkaStreamLog log = new KafkaStreamLog(new KafkaLogSettings(KafkaCluster.shared().bootstrap(), prefix,
                1, 1, "http://node.test", Duration.ofSeconds(6), Duration.ofSeconds(20), directory),
                LogSettings.defaults(1000), KeyedOrders.EVERYTHING_FLUSHED, Clock.systemUTC())) {
            log.register(KeyedOrders.declaredBy(WarehouseReplicaSetTest.class));
            List<AppendRequest.Entry> events = new ArrayList<>();
            for (int i = 1; i <= 10; i++) {
                events.add(new AppendRequest.Event(("{\"id\": \"o" + i + "\"}").getBytes(StandardCharsets.UTF_8),
                        "o" + i));
            }
            log.append(new AppendRequest("orders", "req-1", 1_000_000L, "v1", events)).get(30, TimeUnit.SECONDS);

            // Replica a flushed 8 and holds its lease; replica b flushed 3 and stopped (released its lease).
            Leases.Token a = lease(log, "a", "http://a.test", Duration.ofMinutes(10));
            log.commit("orders", FlushLease.group("a"), a, 8, Leases.Actor.SERVER);
            Leases.Token b = lease(log, "b", "http://b.test", Duration.ofSeconds(15));
            log.commit("orders", FlushLease.group("b"), b, 3, Leases.Actor.SERVER);
            log.release("orders", FlushLease.group("b"), b, Leases.Actor.SERVER);

            SimpleMeterRegistry now = new SimpleMeterRegistry();
            FlushLeaseHolders seenNow = holders(log, Clock.systemUTC(), now);
            assertThat(seenNow.retained("orders")).as("the slowest replica's").isEqualTo(3);
            assertThat(seenNow.urls()).as("queries go to the live one").containsExactly("http://a.test");
            assertThat(seenNow.replicas()).extracting(WarehouseNode.Replica::id, WarehouseNode.Replica::live,
                    WarehouseNode.Replica::dropped).containsExactly(org.assertj.core.groups.Tuple.tuple("a", true,
                    false), org.assertj.core.groups.Tuple.tuple("b", false, false));

            // Two minutes on, b has been silent longer than the timeout: trims no longer wait for it.
            SimpleMeterRegistry later = new SimpleMeterRegistry();
            FlushLeaseHolders seenLater = holders(log, Clock.offset(Clock.systemUTC(), Duration.ofMinutes(2)), later);
            assertThat(seenLater.retained("orders")).isEqualTo(8);
            seenLater.replicas();
            assertThat(later.get("interlace.warehouse.replicas.dropped").counter().count()).as("counted once")
                    .isEqualTo(1.0);
            assertThat(seenLater.replicas()).filteredOn(WarehouseNode.Replica::dropped)
                    .extracting(WarehouseNode.Replica::id).containsExactly("b");

            // b comes back: it counts again.
            lease(log, "b", "http://b.test", Duration.ofMinutes(10));
            assertThat(seenLater.retained("orders")).isEqualTo(3);
            assertThat(now.get("interlace.warehouse.replicas.dropped").counter().count()).isZero();
        }
    }

    private static Leases.Token lease(KafkaStreamLog log, String replica, String node, Duration ttl) {
        Leases.LeaseResult result = log.lease("orders", FlushLease.group(replica), node, ttl, Leases.Actor.SERVER);
        assertThat(result).isInstanceOf(Leases.Granted.class);
        return ((Leases.Granted) result).token();
    }

    private static FlushLeaseHolders holders(KafkaStreamLog log, Clock clock, SimpleMeterRegistry registry) {
        return new FlushLeaseHolders(log, clock, null, TIMEOUT.toMillis(), SystemRecords.DISCARD,
                new RequestIds(clock), registry);
    }
}
