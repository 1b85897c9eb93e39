package dev.interlace.integration.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.interlace.client.EventPage;
import dev.interlace.client.InterlaceClient;
import dev.interlace.client.PartitionResult;
import dev.interlace.client.PublishException;
import dev.interlace.client.PublishResult;
import dev.interlace.client.ServerException;
import dev.interlace.client.StreamConsumer;
import dev.interlace.integration.ClicksStream;
import dev.interlace.integration.OrdersStream;
import dev.interlace.runtime.cli.CliHarness;
import dev.interlace.runtime.stream.StreamCatalog;
import dev.interlace.runtime.stream.StreamDescriptor;
import dev.interlace.runtime.stream.StreamPartitions;
import dev.interlace.runtime.testing.Eventually;
import dev.interlace.runtime.testing.FaultModules;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentSkipListSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Java client and the CLI on a stream of several partitions: a publish's result per partition, a refusal that
 * says which partitions were stored, reads and consumers of one partition, {@code interlace tail --partition} and
 * {@code interlace publish}'s answer per partition.
 */
class PartitionedClientTest {

    private static final int PARTITIONS = 4;

    private static final String PAYMENTS = """
            package partitioned.client;

            import dev.interlace.annotations.Stream;

            @Stream(name = "payments", schema = {"payment_id string not null", "amount bigint"},
                    idempotencyKey = "payment_id", partitions = 4)
            public final class Payments {}
            """;

    private static StreamCatalog catalog(Path build) {
        StreamDescriptor payments = RebuiltStream.compile(build, "partitioned.client", "Payments", PAYMENTS);
        return StreamCatalog.of(List.of(OrdersStream.DESCRIPTOR, ClicksStream.DESCRIPTOR, payments));
    }

    private static List<Map<String, Object>> payments(String prefix, int count) {
        List<Map<String, Object>> events = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            events.add(Map.of("payment_id", prefix + i, "amount", i));
        }
        return events;
    }

    private static int partitionOf(String key) {
        return StreamPartitions.partitionOfKey(key, PARTITIONS);
    }

    @Test
    void theClientAnswersPerPartitionAndReadsAndConsumesOnePartition(@TempDir Path data, @TempDir Path build)
            throws Exception {
        try (TestServer server = TestServer.startWith(data, catalog(build))) {
            InterlaceClient client = InterlaceClient.builder(server.server.uri()).maxEventsPerRequest(7).build();
            PublishResult published = client.publish("payments", payments("c-", 30));
            assertThat(published.accepted()).isEqualTo(30);
            assertThat(published.lastOffset()).isNull();
            // Each partition's last offset is how many of the 30 keys fell in it (dense offsets from 1).
            Map<Integer, Long> expected = new TreeMap<>();
            for (int i = 0; i < 30; i++) {
                expected.merge(partitionOf("c-" + i), 1L, Long::sum);
            }
            Map<Integer, Long> answered = new TreeMap<>();
            List<String> positions = new ArrayList<>();
            for (PartitionResult part : published.partitions()) {
                answered.put(part.partition(), part.lastOffset());
                assertThat(part.position()).isEqualTo(StreamPartitions.logStream("payments", part.partition()) + ":"
                        + part.lastOffset());
                positions.add(part.position());
            }
            assertThat(answered).isEqualTo(expected);
            assertThat(new TreeSet<>(List.of(published.position().split(",")))).isEqualTo(new TreeSet<>(positions));
            // A stream of one partition has no partitions to list.
            assertThat(client.publish("orders", Map.of("order_id", "o-1")).partitions()).isEmpty();

            // A read of one partition holds its keys only, at the offsets the publish gave them.
            EventPage two = client.read("payments", 2, 0, 1000);
            assertThat(two.events()).hasSize(expected.get(2).intValue());
            assertThat(two.head()).isEqualTo(expected.get(2));
            for (StreamConsumer.ConsumedEvent event : two.events()) {
                assertThat(partitionOf(event.event().get("payment_id").asText())).isEqualTo(2);
            }
            assertThatThrownBy(() -> client.read("payments", null, 0, 10)).isInstanceOf(ServerException.class)
                    .satisfies(e -> assertThat(((ServerException) e).code()).isEqualTo("partition_required"));
            assertThat(client.read("orders", null, 0, 10).events()).hasSize(1);

            // A consumer of one partition gets that partition's events, and its group commits there.
            Set<String> consumed = new ConcurrentSkipListSet<>();
            StreamConsumer consumer = StreamConsumer.of(server.server.uri(), "payments", "audit", "worker-1")
                    .withPartition(1).with(Duration.ofSeconds(30), 5, Duration.ofMillis(200));
            Thread loop = new Thread(() -> {
                try {
                    consumer.run(events -> events.forEach(event -> consumed.add(event.event().get("payment_id")
                            .asText())));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            loop.start();
            try {
                Eventually.get("partition 1 consumed", Duration.ofSeconds(20), () -> consumed.size(),
                        size -> size >= expected.get(1));
            } finally {
                consumer.stop();
                loop.join(10_000);
            }
            assertThat(consumed).hasSize(expected.get(1).intValue())
                    .allSatisfy(key -> assertThat(partitionOf(key)).isEqualTo(1));
            JsonNode group = server.get("/streams/payments/consumers/audit?partition=1").body();
            assertThat(group.get("committed_offset").asLong()).isEqualTo(expected.get(1));
        }
    }

    @Test
    void aRefusalStoredInPartNamesThePartitionsStoredAndNot(@TempDir Path data, @TempDir Path build) {
        // Nothing is materialised (the warehouse fails every commit): each partition's backlog only grows.
        try (TestServer server = TestServer.startWith(data, catalog(build), List.of(FaultModules.failingWarehouse()),
                "--max-pending", "6")) {
            InterlaceClient client = InterlaceClient.builder(server.server.uri()).retryDeadline(Duration.ZERO)
                    .build();
            List<Map<String, Object>> first = new ArrayList<>(keysIn(1, 4, 0));
            first.addAll(keysIn(3, 1, 0));
            client.publish("payments", first);
            // Partition 1 would hold 7 pending entries, partition 3 only 3: the share of 3 is stored, not that of 1.
            List<Map<String, Object>> second = new ArrayList<>(keysIn(1, 3, 1000));
            second.addAll(keysIn(3, 2, 1000));
            assertThatThrownBy(() -> client.publish("payments", second)).isInstanceOf(PublishException.class)
                    .satisfies(thrown -> {
                        PublishException refused = (PublishException) thrown;
                        assertThat(refused.status()).isEqualTo(429);
                        assertThat(refused.code()).isEqualTo("backpressure");
                        assertThat(refused.storedPartitions()).containsExactly(new PartitionResult(3, 3L,
                                StreamPartitions.logStream("payments", 3) + ":3"));
                        assertThat(refused.notStoredPartitions()).containsExactly(1);
                    });
        }
    }

    /** {@code count} payments whose keys {@code k-<i>} fall in {@code partition}, from {@code k-<from>} on. */
    private static List<Map<String, Object>> keysIn(int partition, int count, int from) {
        List<Map<String, Object>> events = new ArrayList<>();
        for (int i = from; events.size() < count; i++) {
            if (partitionOf("k-" + i) == partition) {
                events.add(Map.of("payment_id", "k-" + i, "amount", 1));
            }
        }
        return events;
    }

    @Test
    void theCliTailsOnePartitionAndPublishSaysWhatEachPartitionHolds(@TempDir Path data, @TempDir Path build)
            throws Exception {
        // Each flush waits a second after an append: --then-sql sees the events only if it waits for them.
        try (TestServer server = TestServer.startWith(data, catalog(build), "--flush-delay-ms", "1000")) {
            String uri = server.server.uri().toString();
            CliHarness cli = new CliHarness();
            Path input = Files.createTempFile(build, "payments", ".ndjson");
            StringBuilder lines = new StringBuilder();
            Map<Integer, Long> expected = new TreeMap<>();
            for (int i = 0; i < 20; i++) {
                lines.append("{\"payment_id\": \"t-").append(i).append("\", \"amount\": ").append(i).append("}\n");
                expected.merge(partitionOf("t-" + i), 1L, Long::sum);
            }
            Files.writeString(input, lines);
            assertThat(cli.run("publish", "payments", input.toString(), "--batch", "6", "--then-sql",
                    "SELECT count(*) AS n FROM streams.payments", "--server", uri)).isZero();
            String summary = cli.stdout();
            assertThat(summary).contains("accepted      20").contains("by partition");
            expected.forEach((partition, last) -> assertThat(summary)
                    .contains("partition " + partition + "  last offset " + last));
            assertThat(summary).as("--then-sql waited for every partition").contains("n\n--\n20\n(1 row)");

            assertThat(cli.run("tail", "payments", "--partition", "2", "--from", "0", "--server", uri)).isZero();
            List<String> two = cli.stdout().lines().toList();
            assertThat(two).hasSize(expected.get(2).intValue());
            for (String line : two) {
                JsonNode event = CliHarness.JSON.readTree(line);
                assertThat(partitionOf(event.get("event").get("payment_id").asText())).isEqualTo(2);
            }
            assertThat(cli.run("tail", "payments", "--server", uri)).isEqualTo(2);
            assertThat(cli.stderr()).contains("stream payments has 4 partitions")
                    .contains("--partition 0 to --partition 3");
            assertThat(cli.run("tail", "payments", "--partition", "4", "--server", uri)).isEqualTo(2);
            assertThat(cli.stderr()).contains("--partition must be an integer from 0 to 3");
            assertThat(cli.run("tail", "orders", "--partition", "0", "--server", uri)).isZero();
        }
    }
}
