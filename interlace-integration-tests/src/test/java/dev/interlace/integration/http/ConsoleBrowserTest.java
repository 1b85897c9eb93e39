package dev.interlace.integration.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.core.JsonProcessingException;
import dev.interlace.integration.ClicksStream;
import dev.interlace.integration.OrdersStream;
import dev.interlace.integration.console.VisitsStream;
import dev.interlace.integration.decoding.EvolvingStream;
import dev.interlace.runtime.stream.StreamCatalog;
import dev.interlace.runtime.stream.StreamDescriptor;
import dev.interlace.runtime.testing.Eventually;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The operator console in a real browser (headless Chromium) against a running server with data in it: every page
 * shows what the API answers, the model graph has the API's nodes and edges, a replay moves a quarantined event,
 * SQL results and their CSV, the logs' honest counts; hostile events (HTML and script in values and field names)
 * render as text and run nothing; nothing logs an error in the browser console; nothing overflows a phone's width.
 */
class ConsoleBrowserTest {

    /** Sets a flag and the title if it ever runs: the tests assert that it never does. */
    static final String IMG_PAYLOAD = "<img src=x onerror=\"window.__pwned=1;document.title='pwned'\">";
    static final String SCRIPT_PAYLOAD = "</script><script>window.__pwned=2;document.title='pwned'</script>";

    private static Path dataDirectory;
    private static TestServer api;
    private static HeadlessChromium browser;

    @BeforeAll
    static void startServerWithDataAndBrowser() throws IOException {
        dataDirectory = Files.createTempDirectory("interlace-console");
        // The first deployment: visits with a referrer are quarantined, the schema does not know it yet.
        Path data = dataDirectory.resolve("data");
        try (TestServer first = TestServer.startWith(data, catalog(VisitsStream.DESCRIPTOR))) {
            publish(first, "console_visits", Map.of("visit_id", "v-1", "page", "/home", "referrer", "news"));
            publish(first, "console_visits", Map.of("visit_id", "v-2", "page", "/p", IMG_PAYLOAD, SCRIPT_PAYLOAD));
        }
        // Rebuilt with the column added and restarted: the start-up migration adds it.
        StreamDescriptor rebuilt = RebuiltStream.compile(dataDirectory.resolve("build"), "console.v2", "Visits", """
                package console.v2;

                import dev.interlace.annotations.SchemaDrift;
                import dev.interlace.annotations.Stream;

                @Stream(name = "console_visits",
                        schema = {"visit_id string not null", "page string not null", "referrer string"},
                        idempotencyKey = "visit_id",
                        onSchemaDrift = SchemaDrift.QUARANTINE)
                public final class Visits {}
                """);
        api = TestServer.startWith(data, catalog(rebuilt));
        publish(api, "orders", Map.of("order_id", "o-1", "total", 49.5, "placed_at", "2026-12-01T09:00:00Z"));
        publish(api, "orders", Map.of("order_id", IMG_PAYLOAD, "total", 12, "meta", Map.of("note", SCRIPT_PAYLOAD)));
        publish(api, "clicks", Map.of("click_id", "c-1", "url", "/", "at", "2026-12-01T09:00:00Z"));
        publish(api, "clicks", Map.of("click_id", "c-2", "url", "/x", "at", "2026-12-01T09:00:01Z",
                IMG_PAYLOAD, SCRIPT_PAYLOAD));
        publish(api, "decoding_evolving", Map.of("n", 1, "s", SCRIPT_PAYLOAD, "colour", "red"));
        JsonNode lease = api.postJson("/streams/orders/consumers/billing/lease",
                "{\"owner\": \"billing-worker-1\", \"ttl_ms\": 600000}").body();
        api.postJson("/streams/orders/consumers/billing/commit", "{\"token\": " + lease.get("token") + ", \"offset\": 1}");
        for (String stream : List.of("orders", "clicks", "decoding_evolving", "console_visits")) {
            api.awaitFlushed(stream);
        }
        awaitRunsIdle();
        browser = HeadlessChromium.start();
    }

    @AfterAll
    static void stop() {
        HeadlessChromium.closeAll(browser, api, dataDirectory);
    }

    @AfterEach
    void nothingRanAndNothingFailedInTheBrowser() {
        assertThat(browser.script("return window.__pwned === undefined")).as("a hostile payload ran").isEqualTo(true);
        assertThat(browser.driver.getTitle()).doesNotContain("pwned");
        assertThat(browser.all("img[src='x']")).as("hostile markup became an element").isEmpty();
        browser.assertConsoleClean();
        browser.viewport(1280, 800, false);
    }

    @Test
    void theStreamsPageShowsTheApisPositionsAndLiveCharts() {
        browser.open(api.server.uri() + "/ui");
        for (JsonNode stream : api.get("/streams").body().get("streams")) {
            String row = "tr[data-stream='" + stream.get("name").asText() + "'] ";
            for (String field : List.of("head", "watermark", "pending", "quarantined")) {
                String expected = stream.get(field).asText();
                browser.await(row + "[data-field='" + field + "']", expected::equals);
            }
            browser.await(row + "[data-field='flush_state']", stream.get("flush_state").asText()::equals);
            assertThat(browser.all(row + "canvas.spark")).hasSize(2);
        }
        assertThat(browser.await("[data-card='streams']").getText())
                .isEqualTo(api.get("/streams").body().get("total").asText());

        // Live: events published while the page is open move the publish-rate chart and the head.
        long head = api.head("decoding_evolving");
        api.post("/streams/decoding_evolving", "application/x-ndjson", "{\"n\": 2}\n{\"n\": 3}\n{\"n\": 4}\n");
        browser.await("tr[data-stream='decoding_evolving'] [data-field='head']", String.valueOf(head + 3)::equals);
        new WebDriverWait(browser.driver, HeadlessChromium.WAIT).until(d -> Stream.of(d.findElement(By.cssSelector(
                "canvas[aria-label^='publish rate of decoding_evolving']")).getAttribute("data-samples").split(" "))
                .anyMatch(sample -> Double.parseDouble(sample) > 0));
        browser.screenshot("streams");
        api.awaitFlushed("decoding_evolving");
    }

    @Test
    void aStreamPageShowsItsSchemaWithEvolvedColumnsRecentEventsAndConsumers() {
        browser.open(api.server.uri() + "/ui#/stream/decoding_evolving");
        WebElement evolved = browser.await("tr[data-column='colour']");
        assertThat(evolved.getText()).contains("string").contains("evolved");
        assertThat(browser.await("tr[data-column='s']").getText()).doesNotContain("evolved");
        String event = browser.await("tr[data-offset='1']").getText();
        assertThat(event).contains(SCRIPT_PAYLOAD).contains("\"colour\":\"red\"");

        browser.open(api.server.uri() + "/ui#/stream/orders");
        JsonNode orders = api.get("/streams/orders").body();
        for (String card : List.of("head", "watermark", "pending")) {
            browser.await("[data-card='" + card + "']", orders.get(card).asText()::equals);
        }
        assertThat(browser.all("tr[data-offset]")).hasSize(orders.get("recent").size());
        assertThat(browser.await("tr[data-offset='1']").getText()).contains("\"total\":49.5");
        JsonNode group = null;
        for (JsonNode consumer : api.get("/streams/orders/consumers").body().get("consumers")) {
            if (consumer.get("group").asText().equals("billing")) {
                group = consumer;
            }
        }
        assertThat(group).isNotNull();
        List<WebElement> cells = browser.await("tr[data-group='billing']").findElements(By.tagName("td"));
        assertThat(cells.get(1).getText()).isEqualTo(group.get("committed_offset").asText());
        assertThat(cells.get(2).getText()).isEqualTo(group.get("lag").asText());
        assertThat(cells.get(3).getText()).startsWith("billing-worker-1 until");
        browser.screenshot("stream");
    }

    @Test
    void thePublishFormPublishesAndShowsTheOutcome() {
        browser.open(api.server.uri() + "/ui#/stream/orders");
        long head = api.head("orders");
        WebElement text = browser.await("form.publish-form textarea");
        text.clear();
        text.sendKeys("{\"order_id\": \"from-the-console\", \"total\": 7.25}");
        browser.driver.findElement(By.cssSelector("form.publish-form button[type=submit]")).click();
        String outcome = browser.await("[data-publish-result]").getText();
        assertThat(outcome).startsWith("1 accepted · 0 deduplicated · 0 quarantined · last offset " + (head + 1));
        assertThat(api.head("orders")).isEqualTo(head + 1);
        api.awaitFlushed("orders");
        awaitRunsIdle();
    }

    @Test
    void aDryRunChangesNothingAndAReplayMovesTheQuarantinedEvent() {
        JsonNode quarantine = api.get("/streams/console_visits/quarantine").body();
        long seq = -1;
        long hostileSeq = -1;
        for (JsonNode item : quarantine.get("items")) {
            if (item.get("event").path("referrer").asText().equals("news")) {
                seq = item.get("seq").asLong();
            } else {
                hostileSeq = item.get("seq").asLong();
            }
        }
        long head = api.head("console_visits");
        browser.open(api.server.uri() + "/ui#/stream/console_visits");
        String hostileRow = browser.await("tr[data-seq='" + hostileSeq + "']").getText();
        assertThat(hostileRow).contains(IMG_PAYLOAD.replace("\"", "\\\"")).contains(SCRIPT_PAYLOAD);
        scrollTo("[data-replay-results]");
        browser.screenshot("quarantine");

        browser.await("tr[data-seq='" + seq + "'] input[type=checkbox]").click();
        assertThat(browser.await("[data-action='replay']").isEnabled()).as("replay before a dry run").isFalse();
        browser.await("[data-action='dry-run']").click();
        browser.await("[data-replay-summary='dry-run']", text -> text.startsWith("Dry run: 1 would be accepted"));
        assertThat(browser.await("tr[data-result-seq='" + seq + "']").getText()).contains("accepted");
        assertThat(api.head("console_visits")).as("a dry run publishes nothing").isEqualTo(head);
        assertThat(item(seq).get("replayed_offset").isNull()).isTrue();

        browser.await("[data-action='replay']").click();
        WebElement replayed = browser.await("tr[data-seq='" + seq + "'] [data-replayed]");
        assertThat(api.head("console_visits")).isEqualTo(head + 1);
        assertThat(item(seq).get("replayed_offset").asLong()).isEqualTo(head + 1);
        assertThat(replayed.getAttribute("data-replayed")).isEqualTo(String.valueOf(head + 1));
        assertThat(browser.await("[data-replay-summary='replay']").getText()).startsWith("Replayed: 1 accepted");
        JsonNode recent = api.get("/streams/console_visits").body().get("recent").get(0);
        assertThat(recent.get("event").get("referrer").asText()).isEqualTo("news");
        assertThat(browser.await("tr[data-seq='" + hostileSeq + "']").getText()).contains("waiting");
        scrollTo("[data-replay-results]");
        browser.screenshot("quarantine-replayed");

        String replayRequest = item(seq).get("replayed_by").asText();
        browser.await("tr[data-seq='" + seq + "'] a[href*='" + replayRequest + "']").click();
        assertThat(browser.await("[data-step='replay']").getText()).contains("entry " + seq);
        browser.screenshot("find-replay");
    }

    @Test
    void theModelsPageDrawsTheApisGraphAndRunsAModelNow() {
        JsonNode models = api.get("/models").body().get("models");
        Set<String> nodes = new TreeSet<>();
        Set<String> edges = new TreeSet<>();
        for (JsonNode model : models) {
            nodes.add(model.get("name").asText());
            model.get("reads_streams").forEach(stream -> {
                nodes.add("streams." + stream.asText());
                edges.add("streams." + stream.asText() + "->" + model.get("name").asText());
            });
            model.get("reads_models").forEach(input -> edges.add(input.asText() + "->" + model.get("name").asText()));
        }
        assertThat(nodes).contains("streams.orders", "revenue_per_day", "revenue_summary", "order_sizes");
        assertThat(edges).contains("streams.orders->revenue_per_day", "revenue_per_day->revenue_summary");

        browser.open(api.server.uri() + "/ui#/models");
        browser.await("g[data-node='revenue_summary']");
        assertThat(attributes("g[data-node]", "data-node")).isEqualTo(nodes);
        assertThat(attributes("path[data-edge]", "data-edge")).isEqualTo(edges);
        browser.screenshot("models");

        browser.await("g[data-node='revenue_per_day']").click();
        browser.await("[data-action='run-now']", text -> text.equals("Run revenue_per_day now")).click();
        String runId = browser.await("[data-run-id]").getAttribute("data-run-id");
        browser.await("tr[data-run-row='" + runId + "'][data-status='succeeded']");
        assertThat(api.get("/runs/" + runId).body().get("status").asText()).isEqualTo("succeeded");
        browser.await("a[data-run='" + runId + "']").click();
        assertThat(browser.await("h3", text -> text.contains(runId)).getText()).contains("succeeded");
        List<String> ran = api.get("/runs/" + runId).body().get("models").findValuesAsText("name");
        for (String model : ran) {
            browser.await("td", model::equals);
        }
    }

    @Test
    void whereIsMyEventShowsTheTimelineFromPublishToRuns() {
        String requestId = "console-find-1";
        String trace = "4bf92f3577b34da6a3ce929d0e0e4736";
        api.send(api.request("/streams/orders").header("Content-Type", "application/json")
                .header("X-Request-Id", requestId).header("traceparent", "00-" + trace + "-00f067aa0ba902b7-01")
                .POST(java.net.http.HttpRequest.BodyPublishers.ofString("{\"order_id\": \"find-me\", \"total\": 3}"))
                .build());
        api.awaitFlushed("orders");
        awaitRunsIdle();
        JsonNode story = api.get("/correlate?request_id=" + requestId).body();

        browser.open(api.server.uri() + "/ui#/find");
        WebElement input = browser.await("input[name='request_id']");
        input.sendKeys(requestId, Keys.ENTER);
        browser.await("[data-step='publish']", text -> text.contains("1 accepted"));
        assertThat(browser.all("[data-step='flush']")).hasSize(story.get("flushes").get("items").size());
        assertThat(browser.all("[data-step='run']")).hasSize(story.get("runs").get("items").size());
        assertThat(story.get("runs").get("items").size()).isPositive();
        browser.await("[data-step='flush'] [data-traces]", text -> text.contains(trace));
        browser.await("[data-step='run'] [data-traces]", text -> text.contains(trace));
        browser.screenshot("find");

        browser.open(api.server.uri() + "/ui#/find?trace_id=" + trace);
        browser.await("[data-step='publish']", text -> text.contains("1 accepted"));

        browser.open(api.server.uri() + "/ui#/find?stream=orders&key=find-me");
        browser.await("[data-step='publish']", text -> text.contains("1 accepted"));
        assertThat(browser.await("[data-timeline]").getText()).contains("Flushed into the warehouse");
    }

    @Test
    void whereIsMyEventCompletesTheTimelineOnceThePendingEventsAreMaterialised(@TempDir Path slow) {
        // The flusher waits 3 s after an append: the first answer shows the event pending, with no flush.
        try (TestServer slowServer = TestServer.start(slow, "--flush-delay-ms", "3000", "--read-wait-ms", "30000")) {
            slowServer.send(slowServer.request("/streams/orders").header("Content-Type", "application/json")
                    .header("X-Request-Id", "console-pending-1")
                    .POST(java.net.http.HttpRequest.BodyPublishers.ofString("{\"order_id\": \"p1\", \"total\": 2}"))
                    .build());
            browser.open(slowServer.server.uri() + "/ui#/find?request_id=console-pending-1");
            browser.await("[data-step='publish']", text -> text.contains("1 accepted"));
            browser.await("[data-step='flush']", text -> text.contains("Flushed into the warehouse"));
            browser.await("[data-step='run']", text -> text.contains("succeeded"));
            assertThat(browser.all("[data-waiting]")).as("the wait ended with the timeline redrawn").isEmpty();
        }
    }

    @Test
    void whereIsMyEventWaitsForEveryPartitionARequestFellIn(@TempDir Path slow) {
        StreamDescriptor payments = RebuiltStream.compile(slow.resolve("build"), "console.partitioned", "Payments", """
                package console.partitioned;

                import dev.interlace.annotations.Stream;

                @Stream(name = "payments", schema = {"payment_id string not null", "amount bigint"},
                        idempotencyKey = "payment_id", partitions = 4)
                public final class Payments {}
                """);
        try (TestServer slowServer = TestServer.startWith(slow.resolve("data"), catalog(payments),
                "--flush-delay-ms", "3000", "--read-wait-ms", "30000")) {
            StringBuilder body = new StringBuilder();
            for (int i = 0; i < 12; i++) {
                body.append("{\"payment_id\": \"pay-").append(i).append("\", \"amount\": ").append(i).append("}\n");
            }
            TestServer.Response published = slowServer.send(slowServer.request("/streams/payments")
                    .header("Content-Type", "application/x-ndjson").header("X-Request-Id", "console-partitioned-1")
                    .POST(java.net.http.HttpRequest.BodyPublishers.ofString(body.toString())).build());
            assertThat(published.status()).isEqualTo(200);
            int parts = published.body().get("partitions").size();
            assertThat(parts).as("12 keys in several partitions").isGreaterThan(1);
            browser.open(slowServer.server.uri() + "/ui#/find?request_id=console-partitioned-1");
            browser.await("[data-step='stored']", text -> text.contains("12 events in the log")
                    && text.contains("12 materialised · 0 pending"));
            assertThat(browser.all("[data-partition]")).hasSize(parts);
            assertThat(browser.all("[data-step='flush']").size()).as("a flush of each partition")
                    .isGreaterThanOrEqualTo(parts);
            assertThat(browser.all("[data-waiting]")).as("the wait ended with the timeline redrawn").isEmpty();

            // The publish form answers each partition's last offset (offsets are per partition).
            browser.open(slowServer.server.uri() + "/ui#/stream/payments");
            WebElement text = browser.await("form.publish-form textarea");
            text.clear();
            text.sendKeys("{\"payment_id\": \"pay-console\", \"amount\": 1}");
            browser.driver.findElement(By.cssSelector("form.publish-form button[type=submit]")).click();
            int partition = dev.interlace.runtime.stream.StreamPartitions.partitionOfKey("pay-console", 4);
            String outcome = browser.await("[data-publish-result]").getText();
            assertThat(outcome).startsWith("1 accepted · 0 deduplicated · 0 quarantined · last offsets partition "
                    + partition + ": ");
        }
    }

    @Test
    void theSqlConsoleShowsResultsTruncationAndDownloadsCsv() throws IOException {
        String sql = "SELECT order_id, total, meta, '=HYPERLINK(\"http://evil.example\")' AS formula"
                + " FROM streams.orders ORDER BY _offset";
        JsonNode answer = api.post("/sql", "text/plain", sql).body();
        browser.open(api.server.uri() + "/ui#/sql");
        WebElement editor = browser.await("form.sql-form textarea");
        editor.clear();
        editor.sendKeys(sql);
        browser.driver.findElement(By.cssSelector("form.sql-form button[type=submit]")).click();
        browser.await("[data-sql-count]", text -> text.startsWith(answer.get("count").asText() + " rows"));
        List<WebElement> rows = browser.all(".grid.sql tbody tr");
        assertThat(rows).hasSize(answer.get("count").asInt());
        assertThat(rows.get(0).getText()).contains("o-1").contains("49.50")
                .as("the page shows the value as it is").contains("=HYPERLINK(").doesNotContain("'=");
        assertThat(rows.get(1).getText()).contains(IMG_PAYLOAD).contains(SCRIPT_PAYLOAD);
        assertThat(browser.all("[data-truncated]")).isEmpty();
        browser.screenshot("sql");

        browser.await("[data-action='csv']").click();
        Path csv = browser.downloads.resolve("interlace-query.csv");
        new WebDriverWait(browser.driver, HeadlessChromium.WAIT).until(d -> Files.exists(csv));
        String expected = api.send(api.request("/sql").header("Content-Type", "text/plain")
                .header("Accept", "text/csv").POST(java.net.http.HttpRequest.BodyPublishers.ofString(sql)).build())
                .body().asText();
        new WebDriverWait(browser.driver, HeadlessChromium.WAIT).until(d -> read(csv).equals(expected));
        assertThat(read(csv).lines().skip(1).toList()).as("a spreadsheet opening the download runs no formula")
                .isNotEmpty().allSatisfy(line -> assertThat(line)
                        .endsWith(",\"'=HYPERLINK(\"\"http://evil.example\"\")\""));

        editor = browser.await("form.sql-form textarea");
        editor.clear();
        editor.sendKeys("SELECT range AS n FROM range(10005)");
        browser.driver.findElement(By.cssSelector("form.sql-form button[type=submit]")).click();
        assertThat(browser.await("[data-truncated]").getText()).contains("Truncated");
        assertThat(browser.await("[data-sql-count]").getText()).startsWith("10000 rows");
    }

    @Test
    void theLogsShowTheApisCountsTotalsAndCompleteness() {
        browser.open(api.server.uri() + "/ui#/logs/api?status=200&limit=3");
        awaitText("[data-counts]", () -> counts(api.get("/logs/api?status=200&limit=3").body()));
        assertThat(browser.all("tr[data-request]")).hasSize(3);
        browser.screenshot("logs-api");

        browser.open(api.server.uri() + "/ui#/logs/api");
        awaitText("[data-counts]", () -> counts(api.get("/logs/api?limit=100").body()));
        assertThat(browser.await("[data-counts]").getText()).contains("completeness: ring · ring since 20")
                .doesNotContain("[object");

        browser.open(api.server.uri() + "/ui#/logs/sys?event=startup");
        JsonNode startups = api.get("/logs/sys?event=startup").body();
        awaitText("[data-counts]", () -> counts(startups));
        assertThat(browser.all("tr[data-seq]")).hasSize(startups.get("count").asInt()).hasSizeGreaterThan(1);
        browser.screenshot("logs-sys");
    }

    @Test
    void hostileEventsRenderAsTextEverywhere() {
        browser.open(api.server.uri() + "/ui#/stream/orders");
        assertThat(browser.await("tr[data-offset='2']").getText()).contains(IMG_PAYLOAD.replace("\"", "\\\""))
                .contains(SCRIPT_PAYLOAD);
        browser.script("document.querySelector(\"tr[data-offset='2']\").scrollIntoView(); window.scrollBy(0, -120);");
        browser.screenshot("hostile");
        browser.open(api.server.uri() + "/ui#/stream/clicks");
        assertThat(browser.await("tr[data-seq='1']").getText()).contains(IMG_PAYLOAD).contains("is not a declared");
        browser.open(api.server.uri() + "/ui#/find?stream=orders&key=" + URLEncoder.encode(IMG_PAYLOAD,
                StandardCharsets.UTF_8));
        browser.await("[data-step='publish']");
        browser.open(api.server.uri() + "/ui#/logs/api");
        browser.await("[data-counts]");
    }

    @Test
    void nothingIsWiderThanAPhoneOrALaptopScreen() {
        for (int[] screen : new int[][] {{390, 844}, {1280, 800}}) {
            boolean phone = screen[0] < 600;
            for (String page : List.of("streams", "stream/orders", "stream/console_visits", "models", "find", "sql",
                    "logs/api", "logs/sys")) {
                browser.viewport(screen[0], screen[1], phone);
                browser.open("about:blank");
                browser.open(api.server.uri() + "/ui#/" + page);
                browser.await("main .page h1");
                browser.await(".panel, .cards, table");
                Object overflow = browser.script("return document.documentElement.scrollWidth - window.innerWidth");
                assertThat(((Number) overflow).longValue()).as(page + " wider than " + screen[0] + " px")
                        .isLessThanOrEqualTo(0);
                if (phone && (page.equals("streams") || page.equals("stream/orders") || page.equals("models"))) {
                    browser.screenshot("phone-" + page.replace('/', '-'));
                }
            }
        }
    }

    private static JsonNode item(long seq) {
        for (JsonNode item : api.get("/streams/console_visits/quarantine").body().get("items")) {
            if (item.get("seq").asLong() == seq) {
                return item;
            }
        }
        throw new AssertionError("no quarantine entry " + seq);
    }

    /** Scrolls the panel holding {@code css} to the top of the window, for a screenshot of it. */
    private static void scrollTo(String css) {
        browser.script("document.querySelector(arguments[0]).closest('section').scrollIntoView();"
                + " window.scrollBy(0, -60);", css);
    }

    private static Set<String> attributes(String css, String attribute) {
        Set<String> values = new TreeSet<>();
        browser.all(css).forEach(element -> values.add(element.getAttribute(attribute)));
        return values;
    }

    private static String counts(JsonNode body) {
        List<String> parts = new ArrayList<>(List.of(body.get("count") + " shown", body.get("total") + " in all",
                "completeness: " + body.get("completeness").asText()));
        String text = String.join(" · ", parts);
        return body.has("ring") ? text + " · ring since" : text;
    }

    /** Waits until the element's text equals (or, for a ring, starts with) what the API says now. */
    private static void awaitText(String css, Supplier<String> expected) {
        new WebDriverWait(browser.driver, HeadlessChromium.WAIT).until(d -> {
            String want = expected.get();
            List<WebElement> found = d.findElements(By.cssSelector(css));
            if (found.isEmpty()) {
                return false;
            }
            String have = found.get(0).getText();
            return want.endsWith("ring since") ? have.startsWith(want) : have.equals(want);
        });
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            return "";
        }
    }

    private static StreamCatalog catalog(StreamDescriptor visits) {
        return StreamCatalog.of(List.of(OrdersStream.DESCRIPTOR, ClicksStream.DESCRIPTOR, EvolvingStream.DESCRIPTOR,
                visits));
    }

    private static void publish(TestServer server, String stream, Map<String, Object> event) {
        try {
            TestServer.Response response = server.postJson("/streams/" + stream,
                    TestServer.JSON.writeValueAsString(new LinkedHashMap<>(event)));
            assertThat(response.status()).as(response.body().toString()).isEqualTo(200);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void awaitRunsIdle() {
        Eventually.until("no model run is queued or running", Duration.ofSeconds(20), () -> {
            boolean busy = false;
            for (JsonNode run : api.get("/runs?limit=1000").body().get("runs")) {
                String status = run.get("status").asText();
                busy |= status.equals("queued") || status.equals("running");
            }
            return !busy;
        });
    }
}
