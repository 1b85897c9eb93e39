package dev.interlace.integration.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.interlace.runtime.cli.CliHarness;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** {@code interlace streams} over the example application's real, processor-generated streams. */
class StreamsCommandTest {

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return CliHarness.main(new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true,
                StandardCharsets.UTF_8)).run(args);
    }

    private String stdout() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String stderr() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void streamsListsEveryDeclaredStreamWithItsSchema() {
        assertThat(run("streams")).isZero();
        assertThat(stdout())
                .contains("orders  (dev.interlace.integration.Orders, table streams.orders)")
                .containsPattern("order_id\\s+string not null\\s+<- idempotency key")
                .containsPattern("total\\s+decimal\\(12,2\\)")
                .containsPattern("placed_at\\s+timestamp")
                .containsPattern("meta\\s+json")
                .contains("retention: 7d   on schema drift: reject")
                .contains("clicks  (dev.interlace.integration.Clicks, table streams.clicks)")
                .containsPattern("at\\s+timestamp not null")
                .contains("retention: 1d   on schema drift: quarantine");
        assertThat(stdout().indexOf("clicks")).isLessThan(stdout().indexOf("orders"));
    }

    @Test
    void streamsJsonIsMachineReadable() throws Exception {
        assertThat(run("streams", "--json")).isZero();
        JsonNode root = new ObjectMapper().readTree(stdout());
        assertThat(root.get("count").asInt()).isGreaterThanOrEqualTo(2);
        JsonNode orders = null;
        for (JsonNode stream : root.get("streams")) {
            if (stream.get("name").asText().equals("orders")) {
                orders = stream;
            }
        }
        assertThat(orders).isNotNull();
        assertThat(orders.get("schema").toString()).isEqualTo(
                "{\"order_id\":\"string not null\",\"total\":\"decimal(12,2)\",\"placed_at\":\"timestamp\","
                        + "\"meta\":\"json\"}");
        assertThat(orders.get("retention_ms").asLong()).isEqualTo(7L * 24 * 3600 * 1000);
        assertThat(orders.get("idempotency_key").asText()).isEqualTo("order_id");
        assertThat(orders.get("on_schema_drift").asText()).isEqualTo("reject");
    }

    @Test
    void anUnknownCommandIsAUsageErrorWithExitCodeTwo() {
        assertThat(run("strems")).isEqualTo(2);
        assertThat(stderr()).contains("unknown command \"strems\"").contains("usage: interlace <command>");
    }

    @Test
    void noCommandIsAUsageError() {
        assertThat(run()).isEqualTo(2);
        assertThat(stderr()).contains("usage: interlace <command>");
    }

    @Test
    void anUnknownOptionIsAUsageErrorNamingTheCommandsSynopsis() {
        assertThat(run("streams", "--yaml")).isEqualTo(2);
        assertThat(stderr()).contains("unknown option --yaml").contains("usage: interlace streams [--json]");
        assertThat(run("streams", "orders")).isEqualTo(2);
        assertThat(stderr()).contains("unexpected argument \"orders\"");
    }

    @Test
    void helpListsTheCommands() {
        assertThat(run("help")).isZero();
        assertThat(stdout()).contains("streams").contains("list the declared streams");
    }
}
