package dev.interlace.integration.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.interlace.runtime.Interlace;
import dev.interlace.runtime.stream.StreamCatalog;
import dev.interlace.runtime.stream.StreamPartitions;
import dev.interlace.runtime.testing.Eventually;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A stream of two partitions on the Kafka log, two ingest nodes and a warehouse node: the sequencer group gives each
 * node one partition's sequencer, a publish to either node is split and each share appended by its partition's
 * sequencer (the other node's share sent there), a retry on the other node is deduplicated partition by partition,
 * and the warehouse holds every event once with its partition.
 */
class PartitionedKafkaTest extends PartitionedPaymentsTest {

    private static final String[] FLUSH_DELAY = {"--flush-delay-ms", "10"};

    PartitionedKafkaTest() {
        super("part");
    }

    @Test
    void eachPartitionHasOneSequencerSpreadOverTheNodesAndEveryEventIsMaterialisedOnce() throws Exception {
        StreamCatalog catalog = paymentsCatalog("partitioned.kafka");
        try (Interlace first = node(catalog, "first", "ingest", FLUSH_DELAY);
                Interlace second = node(catalog, "second", "ingest", FLUSH_DELAY);
                Interlace warehouse = node(catalog, "warehouse", "warehouse", FLUSH_DELAY)) {
            // The group spreads the two partitions' sequencers over the two ingest nodes.
            JsonNode spread = Eventually.get("each partition sequenced, on different nodes", Duration.ofSeconds(60),
                    () -> get(first.uri(), "/streams/payments"), stream -> sequencers(stream).size() == 2);
            assertThat(spread.get("by_partition")).hasSize(2);

            Map<String, long[]> stored = new HashMap<>(); // key -> {partition, offset}
            List<Interlace> nodes = List.of(first, second);
            for (int batch = 0; batch < 6; batch++) {
                Interlace node = nodes.get(batch % 2);
                JsonNode answer = publish(node.uri(), batch(batch * 30, batch * 30 + 30));
                assertThat(answer.path("accepted").asLong()).as(answer.toString()).isEqualTo(30);
                for (int i = 0; i < 30; i++) {
                    JsonNode result = answer.get("results").get(i);
                    String key = "p-" + (batch * 30 + i);
                    assertThat(result.get("partition").asInt()).isEqualTo(StreamPartitions.partitionOfKey(key, 2));
                    stored.put(key, new long[] {result.get("partition").asLong(), result.get("offset").asLong()});
                }
            }
            // Dense offsets in each partition, whichever node received the request.
            for (int partition = 0; partition < 2; partition++) {
                int p = partition;
                List<Long> offsets = stored.values().stream().filter(at -> at[0] == p).map(at -> at[1]).sorted()
                        .toList();
                assertThat(offsets).isNotEmpty();
                for (int i = 0; i < offsets.size(); i++) {
                    assertThat(offsets.get(i)).isEqualTo(i + 1L);
                }
            }
            // A retry on the other node: deduplicated in each partition, to the offsets first given.
            JsonNode retried = publish(second.uri(), batch(0, 30));
            assertThat(retried.get("deduplicated").asLong()).as(retried.toString()).isEqualTo(30);
            for (int i = 0; i < 30; i++) {
                JsonNode result = retried.get("results").get(i);
                assertThat(new long[] {result.get("partition").asLong(), result.get("offset").asLong()})
                        .isEqualTo(stored.get("p-" + i));
            }

            // The warehouse holds every event once, in its key's partition, at its offset.
            Eventually.get("the warehouse has every event", Duration.ofSeconds(60),
                    () -> sql(warehouse.uri(), "SELECT count(*) FROM streams.payments"),
                    rows -> rows.get(0).get(0).asLong() == 180);
            JsonNode rows = sql(warehouse.uri(), "SELECT payment_id, _partition, _offset FROM streams.payments");
            assertThat(rows).hasSize(180);
            Set<String> seen = new HashSet<>();
            for (JsonNode row : rows) {
                String key = row.get(0).asText();
                assertThat(seen.add(key)).as(key + " once").isTrue();
                assertThat(new long[] {row.get(1).asLong(), row.get(2).asLong()}).as(key)
                        .isEqualTo(stored.get(key));
            }
        }
    }

    private static String batch(int from, int to) {
        StringBuilder body = new StringBuilder();
        for (int i = from; i < to; i++) {
            body.append("{\"payment_id\":\"p-").append(i).append("\",\"amount\":").append(i).append("}\n");
        }
        return body.toString();
    }

    private JsonNode publish(URI node, String body) throws Exception {
        HttpResponse<String> answer = http.send(HttpRequest.newBuilder(node.resolve("/streams/payments?verbose=true"))
                .header("Content-Type", "application/x-ndjson").POST(HttpRequest.BodyPublishers.ofString(body))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        return JSON.readTree(answer.body());
    }

    private JsonNode sql(URI node, String query) {
        try {
            HttpResponse<String> answer = http.send(HttpRequest.newBuilder(node.resolve("/sql"))
                    .header("Content-Type", "text/plain").POST(HttpRequest.BodyPublishers.ofString(query)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
            return JSON.readTree(answer.body()).get("rows");
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
