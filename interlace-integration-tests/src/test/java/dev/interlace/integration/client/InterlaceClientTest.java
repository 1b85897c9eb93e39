package dev.interlace.integration.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.interlace.client.InterlaceClient;
import dev.interlace.client.PublishException;
import dev.interlace.client.PublishResult;
import dev.interlace.runtime.Interlace;
import dev.interlace.runtime.config.ConfigLoader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Java client against a real server: batching under the limits, safe retries, errors that are not retried. */
class InterlaceClientTest {

    @TempDir
    Path dataDirectory;

    private Interlace start(String... flags) {
        List<String> args = new ArrayList<>(List.of("--port", "0", "--data-dir", dataDirectory.toString()));
        args.addAll(List.of(flags));
        return Interlace.builder().config(ConfigLoader.load(args.toArray(String[]::new), Map.of()).config()).start();
    }

    private static List<Map<String, Object>> orders(int count) {
        List<Map<String, Object>> orders = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            orders.add(Map.of("order_id", "o" + i, "total", i));
        }
        return orders;
    }

    @Test
    void aLargePublishIsSplitUnderTheLimitsAndARepeatIsDeduplicated() {
        try (Interlace server = start("--max-events-per-request", "1000")) {
            InterlaceClient client = InterlaceClient.builder(server.uri()).maxEventsPerRequest(1000).build();
            PublishResult first = client.publish("orders", orders(2500));
            assertThat(first.accepted()).isEqualTo(2500);
            assertThat(first.lastOffset()).isEqualTo(2500);
            assertThat(first.requestIds()).hasSize(3);

            PublishResult again = client.publish("orders", orders(2500));
            assertThat(again.accepted()).isZero();
            assertThat(again.deduplicated()).isEqualTo(2500);

            InterlaceClient bySize = InterlaceClient.builder(server.uri()).maxBytesPerRequest(4096).build();
            assertThat(bySize.publish("orders", orders(300)).requestIds().size()).isGreaterThan(1);
            assertThat(client.publish("orders", Map.of("order_id", "single")).accepted()).isEqualTo(1);
        }
    }

    @Test
    void badInputIsNotRetried() {
        try (Interlace server = start()) {
            InterlaceClient client = InterlaceClient.builder(server.uri()).build();
            assertThatThrownBy(() -> client.publish("orders", Map.of("total", "not a number")))
                    .isInstanceOf(PublishException.class)
                    .satisfies(e -> {
                        assertThat(((PublishException) e).status()).isEqualTo(422);
                        assertThat(((PublishException) e).code()).isEqualTo("schema_violation");
                    });
            assertThatThrownBy(() -> client.publish("nope", Map.of("x", 1)))
                    .satisfies(e -> assertThat(((PublishException) e).code()).isEqualTo("unknown_stream"));
        }
    }

    @Test
    void backpressureIsRetriedUntilTheDeadlineThenReported() {
        try (Interlace server = start("--max-pending", "5", "--flush-delay-ms", "3600000",
                "--flush-batch-rows", "1000000")) {
            InterlaceClient client = InterlaceClient.builder(server.uri()).retryDeadline(Duration.ofSeconds(2))
                    .build();
            assertThat(client.publish("orders", orders(5)).accepted()).isEqualTo(5);
            assertThatThrownBy(() -> client.publish("orders", List.of(Map.of("order_id", "late"))))
                    .isInstanceOf(PublishException.class)
                    .hasMessageContaining("still refused after retrying")
                    .satisfies(e -> assertThat(((PublishException) e).code()).isEqualTo("backpressure"));

            server.instance(dev.interlace.runtime.flush.Flusher.class).drain(Duration.ofSeconds(20));
            assertThat(client.publish("orders", List.of(Map.of("order_id", "late"))).accepted())
                    .as("once the backlog is flushed the same publish goes through").isEqualTo(1);
        }
    }
}
