package dev.interlace.integration.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.client.EventPage;
import dev.interlace.client.InterlaceClient;
import dev.interlace.client.PartitionResult;
import dev.interlace.client.Partitioning;
import dev.interlace.client.PublishResult;
import dev.interlace.client.StreamConsumer;
import dev.interlace.runtime.Interlace;
import dev.interlace.runtime.cli.CliHarness;
import dev.interlace.runtime.stream.StreamCatalog;
import dev.interlace.runtime.testing.Eventually;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The Java client routing by itself ({@code routeToSequencers}): a stream of two partitions on two ingest nodes, each
 * sequencing one. The client, given one node, sends each partition's events straight to its sequencer — neither node
 * forwards anything, where a client that does not route makes the node it was given forward the other share — each
 * event lands in its key's partition, a retry is deduplicated; when the other node stops and its partition moves to
 * the node the client was given, the client follows. {@code interlace publish --route} routes the same way.
 */
class PartitionRoutingTest extends PartitionedPaymentsTest {

    PartitionRoutingTest() {
        super("route");
    }

    @Test
    void aRoutingClientSendsEachPartitionToItsSequencerSoThatNothingIsForwardedAndFollowsAMove() throws Exception {
        StreamCatalog catalog = paymentsCatalog("routed.kafka");
        try (Interlace given = node(catalog, "given", "ingest")) {
            Interlace other = node(catalog, "other", "ingest");
            boolean otherRunning = true;
            try {
                for (Interlace node : List.of(given, other)) {
                    Eventually.get("each partition sequenced, on different nodes", Duration.ofSeconds(60),
                            () -> get(node.uri(), "/streams/payments"), stream -> sequencers(stream).size() == 2);
                }

                // The control: a client that does not route sends the whole request to the node it was given, which
                // forwards the share of the partition the other node sequences.
                InterlaceClient plain = InterlaceClient.builder(given.uri()).build();
                double before = forwards(given);
                assertThat(plain.publish("payments", payments("q-", 0, 20)).accepted()).isEqualTo(20);
                assertThat(forwards(given) - before).as("shares the given node forwarded").isEqualTo(1);

                InterlaceClient routing = InterlaceClient.builder(given.uri()).routeToSequencers(true).build();
                double givenBefore = forwards(given);
                double otherBefore = forwards(other);
                PublishResult published = routing.publish("payments", payments("p-", 0, 40));
                assertThat(published.accepted()).isEqualTo(40);
                assertThat(published.partitions()).extracting(PartitionResult::partition).containsExactly(0, 1);
                assertThat(published.requestIds()).as("one request per partition").hasSize(2);
                assertThat(forwards(given) - givenBefore).as("forwarded by the given node").isZero();
                assertThat(forwards(other) - otherBefore).as("forwarded by the other node").isZero();
                assertInTheirPartitions(given.uri(), 40);

                PublishResult retried = routing.publish("payments", payments("p-", 0, 40));
                assertThat(retried.accepted()).isZero();
                assertThat(retried.deduplicated()).isEqualTo(40);
                assertThat(retried.partitions()).isEqualTo(published.partitions());
                assertThat(forwards(given) - givenBefore + forwards(other) - otherBefore).isZero();

                // interlace publish --route: the same, from the command line.
                StringBuilder ndjson = new StringBuilder();
                for (Map<String, Object> payment : payments("c-", 0, 30)) {
                    ndjson.append(JSON.writeValueAsString(payment)).append('\n');
                }
                Path file = Files.writeString(directory.resolve("payments.ndjson"), ndjson);
                CliHarness cli = new CliHarness();
                int code = cli.run("publish", "payments", file.toString(), "--route", "--server",
                        given.uri().toString());
                assertThat(code).as(cli.stdout() + cli.stderr()).isZero();
                assertThat(cli.stdout()).contains("30 events for payments", "accepted      30", "partition 0",
                        "partition 1");
                assertThat(forwards(given) - givenBefore + forwards(other) - otherBefore).as("forwarded").isZero();

                // The other node stops: its partition moves to the given node, and the client follows it there.
                other.close();
                otherRunning = false;
                Eventually.get("the given node sequences both partitions", Duration.ofSeconds(90),
                        () -> get(given.uri(), "/streams/payments"), stream -> sequencers(stream)
                                .equals(Set.of(given.uri().toString())));
                PublishResult moved = routing.publish("payments", payments("p-", 40, 60));
                assertThat(moved.accepted()).isEqualTo(20);
                PublishResult after = routing.publish("payments", payments("p-", 60, 80));
                assertThat(after.accepted()).isEqualTo(20);
                assertThat(routing.publish("payments", payments("p-", 0, 80)).deduplicated()).isEqualTo(80);
                assertThat(forwards(given) - givenBefore).as("forwarded by the given node").isZero();
                assertInTheirPartitions(given.uri(), 80 + 30);
            } finally {
                if (otherRunning) {
                    other.close();
                }
            }
        }
    }

    /** Every event is in its key's partition, each routed one once: {@code count} of them in all. */
    private static void assertInTheirPartitions(URI node, int count) {
        InterlaceClient reader = InterlaceClient.builder(node).build();
        Set<String> seen = new HashSet<>();
        for (int partition = 0; partition < 2; partition++) {
            EventPage page = reader.read("payments", partition, 0, 1000);
            for (StreamConsumer.ConsumedEvent event : page.events()) {
                String key = event.event().get("payment_id").asText();
                assertThat(Partitioning.partitionOf(key, 2)).as(key).isEqualTo(partition);
                if (!key.startsWith("q-")) {
                    assertThat(seen.add(key)).as(key + " once").isTrue();
                }
            }
        }
        assertThat(seen).hasSize(count);
    }

    private static List<Map<String, Object>> payments(String prefix, int from, int to) {
        List<Map<String, Object>> events = new ArrayList<>();
        for (int i = from; i < to; i++) {
            events.add(Map.of("payment_id", prefix + i, "amount", i));
        }
        return events;
    }

    /** The publishes and parts {@code node} has sent on to a sequencer, from its {@code /metrics}. */
    private double forwards(Interlace node) throws Exception {
        String metrics = http.send(HttpRequest.newBuilder(node.uri().resolve("/metrics")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        Matcher sample = Pattern.compile("(?m)^interlace_forwarded_requests_total\\{to=\"sequencer\",?\\}"
                + " ([0-9.eE+]+)$").matcher(metrics);
        assertThat(sample.find()).as(metrics).isTrue();
        return Double.parseDouble(sample.group(1));
    }
}
