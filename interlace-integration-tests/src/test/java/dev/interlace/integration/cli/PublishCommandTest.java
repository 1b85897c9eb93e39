package dev.interlace.integration.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.inject.AbstractModule;
import com.google.inject.Module;
import dev.interlace.runtime.Interlace;
import dev.interlace.runtime.cli.CliHarness;
import dev.interlace.runtime.cli.Main;
import dev.interlace.runtime.flush.FlushListener;
import dev.interlace.runtime.warehouse.Warehouse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code interlace publish} against a real server with the example streams. */
class PublishCommandTest {

    @TempDir
    Path dataDirectory;
    @TempDir
    Path files;

    private final CliHarness cli = new CliHarness();

    private static String click(int i) {
        return "{\"click_id\":\"c" + i + "\",\"url\":\"/p" + i + "\",\"at\":\"2026-12-01T09:00:0" + (i % 10) + "Z\"}";
    }

    private static String order(int i) {
        return "{\"order_id\":\"o" + i + "\",\"total\":" + i + ".50}";
    }

    private Path file(String name, String content) throws Exception {
        return Files.writeString(files.resolve(name), content, StandardCharsets.UTF_8);
    }

    @Test
    void anNdjsonFileIsPublishedInBatchesAndSummarised() throws Exception {
        List<String> lines = new ArrayList<>();
        for (int i = 1; i <= 5; i++) {
            lines.add(click(i));
        }
        lines.add("{\"click_id\":\"late\",\"url\":\"/\",\"at\":\"tomorrow\"}");
        lines.add("");
        lines.add(click(1));
        Path input = file("clicks.ndjson", String.join("\n", lines) + "\n");
        try (Interlace server = CliHarness.start(dataDirectory, List.of())) {
            int code = cli.run("publish", "clicks", input.toString(), "--batch", "3", "--server",
                    server.uri().toString());

            assertThat(code).as(cli.stdout() + cli.stderr()).isZero();
            assertThat(cli.stdout()).contains("7 events for clicks in 3 requests", "accepted      5",
                    "deduplicated  1", "quarantined   1", "refused       0");
            assertThat(cli.stderr()).as("no progress line when stderr is not a terminal").isEmpty();
            JsonNode stream = cli.get(server, "/streams/clicks");
            assertThat(stream.get("head").asLong()).isEqualTo(5);
            assertThat(stream.get("quarantined").asLong()).isEqualTo(1);
        }
    }

    @Test
    void thenSqlQueriesOnceWhatWasPublishedIsMaterialised() throws Exception {
        // The flusher waits 4 s after an append: without --then-sql's position a query at once would count 0.
        Path input = file("orders.ndjson", order(1) + "\n" + order(2) + "\n");
        try (Interlace server = CliHarness.start(dataDirectory, List.of(), "--flush-delay-ms", "4000",
                "--read-wait-ms", "30000")) {
            int code = cli.run("publish", "orders", input.toString(), "--then-sql",
                    "SELECT count(*) AS materialised FROM streams.orders", "--server", server.uri().toString());

            assertThat(code).as(cli.stdout() + cli.stderr()).isZero();
            assertThat(cli.stdout()).contains("accepted      2", "materialised", "(1 row)");
            assertThat(cli.stdout().lines().map(String::strip)).contains("2");
        }
    }

    @Test
    void aJsonArrayOnStandardInputIsPublishedWithItsNumbersAsSent() throws Exception {
        String array = "[\n  " + order(1) + ",\n  {\"order_id\": \"o2\", \"total\": 0.10, \"meta\": {\"big\": "
                + "123456789012345678901234567890, \"exact\": 49.50}}\n]\n";
        try (Interlace server = CliHarness.start(dataDirectory, List.of())) {
            int code = cli.runWithInput(array, false, "publish", "orders", "-", "--server", server.uri().toString());

            assertThat(code).as(cli.stdout() + cli.stderr()).isZero();
            assertThat(cli.stdout()).contains("2 events for orders in 1 request ", "accepted      2");
            JsonNode recent = cli.get(server, "/streams/orders").get("recent");
            assertThat(recent.get(0).get("event").toString()).isEqualTo("{\"order_id\":\"o2\",\"total\":0.10,"
                    + "\"meta\":{\"big\":123456789012345678901234567890,\"exact\":49.50}}");
        }
    }

    @Test
    void refusedEventsAreNamedAndExit1WhileTheRestOfTheirBatchIsStored() throws Exception {
        Path input = file("orders.ndjson", String.join("\n", order(1), "{\"order_id\":\"o2\",\"total\":\"abc\"}",
                order(3), "{\"order_id\": oops}", order(5), "[1, 2]", order(7)));
        try (Interlace server = CliHarness.start(dataDirectory, List.of())) {
            int code = cli.run("publish", "orders", input.toString(), "--server", server.uri().toString());

            assertThat(code).isEqualTo(Main.FAILED);
            assertThat(cli.stdout()).contains("7 events for orders", "accepted      4", "refused       3",
                    "line 2: total:", "(schema_violation)", "line 4: not valid JSON", "line 6: not a JSON object");
            assertThat(cli.get(server, "/streams/orders").get("head").asLong())
                    .as("the valid events of the refused batch are sent again and stored").isEqualTo(4);
        }
    }

    @Test
    void a429IsWaitedOutForItsRetryAfterAndTheBatchSentAgain() throws Exception {
        AtomicBoolean warehouseDown = new AtomicBoolean(true);
        Module stalledFlush = new AbstractModule() {
            @Override
            protected void configure() {
                bind(FlushListener.class).toInstance(new FlushListener() {
                    @Override
                    public void beforeCommit(Warehouse.Target target, long newWatermark, int rows) {
                        if (warehouseDown.get()) {
                            throw new IllegalStateException("warehouse unavailable (test fault)");
                        }
                    }
                });
            }
        };
        List<String> lines = new ArrayList<>();
        for (int i = 1; i <= 6; i++) {
            lines.add(order(i));
        }
        Path input = file("orders.ndjson", String.join("\n", lines));
        try (Interlace server = CliHarness.start(dataDirectory, List.of(stalledFlush), "--max-pending", "3")) {
            CompletableFuture<Integer> publish = CompletableFuture.supplyAsync(() -> cli.run("publish", "orders",
                    input.toString(), "--batch", "3", "--server", server.uri().toString()));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (cli.get(server, "/logs/api?status=429").get("count").asLong() == 0
                    && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertThat(cli.get(server, "/logs/api?status=429").get("requests").get(0).get("error").asText())
                    .isEqualTo("backpressure");
            warehouseDown.set(false);

            assertThat(publish.get(60, TimeUnit.SECONDS)).as(cli.stdout() + cli.stderr()).isZero();
            assertThat(cli.stdout()).contains("accepted      6", "refused       0", "retries after the server asked");
            assertThat(cli.stderr()).contains("429 backpressure", "retrying in 1 s");
            assertThat(cli.get(server, "/streams/orders").get("head").asLong()).isEqualTo(6);
        }
    }

    @Test
    void onATerminalAProgressLineWithEventsPerSecondGoesToStandardError() throws Exception {
        try (Interlace server = CliHarness.start(dataDirectory, List.of())) {
            int code = cli.runWithInput(order(1) + "\n" + order(2) + "\n", true, "publish", "orders",
                    "--server", server.uri().toString());

            assertThat(code).isZero();
            assertThat(cli.stderr()).contains("2 events", "events/s");
            assertThat(cli.stdout()).as("the summary, without the progress line").doesNotContain("\r")
                    .contains("accepted      2");

            Path input = file("orders.ndjson", order(3) + "\n");
            assertThat(cli.runWithInput("", true, "publish", "orders", input.toString(), "--server",
                    server.uri().toString())).isZero();
            assertThat(cli.stderr()).as("a bar when the size is known").contains("[" + "#".repeat(30) + "] 100%");
        }
    }

    @Test
    void commandLineMistakesExit2AndAMissingFileExits1() {
        assertThat(cli.run("publish")).isEqualTo(Main.USAGE);
        assertThat(cli.stderr()).contains("no stream given", "usage: interlace publish <stream> [FILE|-]");
        assertThat(cli.run("publish", "orders", "--batch", "0")).isEqualTo(Main.USAGE);
        assertThat(cli.stderr()).contains("--batch must be between 1 and");
        assertThat(cli.run("publish", "orders", "--bogus")).isEqualTo(Main.USAGE);
        assertThat(cli.run("publish", "orders", "a.json", "b.json")).isEqualTo(Main.USAGE);
        assertThat(cli.run("publish", "orders", files.resolve("missing.json").toString())).isEqualTo(Main.FAILED);
        assertThat(cli.stderr()).contains("no such file");
    }
}
