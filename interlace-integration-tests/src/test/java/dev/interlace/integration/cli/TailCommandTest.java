package dev.interlace.integration.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.client.InterlaceClient;
import dev.interlace.runtime.Interlace;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code interlace tail} against a real server. */
class TailCommandTest extends ServerCommandTest {

    @Test
    void printsTheLastTenOrEverythingAfterAnOffsetAsJsonLines() {
        try (Interlace server = start()) {
            List<Map<String, Object>> orders = new ArrayList<>();
            for (int i = 1; i <= 25; i++) {
                orders.add(Map.of("order_id", "o" + i));
            }
            InterlaceClient.builder(server.uri()).build().publish("orders", orders);

            assertThat(run("tail", "orders", "--server", server.uri().toString())).isZero();
            List<String> last = stdout().lines().toList();
            assertThat(last).hasSize(10);
            assertThat(last.get(0)).startsWith("{\"offset\":16,").contains("\"event\":{\"order_id\":\"o16\"}");
            assertThat(last.get(9)).startsWith("{\"offset\":25,");

            assertThat(run("tail", "orders", "--from", "22", "--server", server.uri().toString())).isZero();
            assertThat(stdout().lines().map(line -> line.substring(0, 13)).toList())
                    .containsExactly("{\"offset\":23,", "{\"offset\":24,", "{\"offset\":25,");

            assertThat(run("tail", "nope", "--server", server.uri().toString())).isEqualTo(1);
            assertThat(run("tail")).isEqualTo(2);
            assertThat(run("tail", "orders", "--from", "x")).isEqualTo(2);
        }
    }
}
