package dev.interlace.integration.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.inject.Module;
import dev.interlace.runtime.flush.Flusher;
import dev.interlace.runtime.ops.EpochMicros;
import dev.interlace.runtime.testing.Eventually;
import dev.interlace.runtime.testing.FaultModules;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The example models run after flushes, in dependency order, and their tables are right. */
class ModelsTest {

    @TempDir
    Path dataDirectory;

    private static JsonNode rows(TestServer api, String query) {
        TestServer.Response response = api.post("/sql", "text/plain", query);
        assertThat(response.status()).as(String.valueOf(response.body())).isEqualTo(200);
        return response.body().get("rows");
    }

    private static JsonNode model(JsonNode models, String name) {
        for (JsonNode model : models) {
            if (model.get("name").asText().equals(name)) {
                return model;
            }
        }
        throw new AssertionError("no model " + name + " in " + models);
    }

    /** Waits until everything is flushed and no model run is queued or running. */
    private static void settle(TestServer api) {
        assertThat(api.server.instance(Flusher.class).drain(Duration.ofSeconds(20))).isTrue();
        assertThat(api.server.models().orElseThrow().awaitIdle(Duration.ofSeconds(20))).isTrue();
    }

    @Test
    void aFlushRunsTheDependentModelsInOrderAndTheirTablesAreRight() {
        try (TestServer api = TestServer.start(dataDirectory)) {
            api.postJson("/streams/orders", "[{\"order_id\":\"o1\",\"total\":49.5,\"placed_at\":\"2026-11-29T08:00:00Z\"},"
                    + "{\"order_id\":\"o2\",\"total\":\"10.25\",\"placed_at\":\"2026-11-29T09:00:00Z\"},"
                    + "{\"order_id\":\"o3\",\"total\":1,\"placed_at\":\"2026-11-28T23:59:59Z\"}]");
            settle(api);
            assertThat(rows(api, "SELECT day, orders, revenue FROM revenue_per_day ORDER BY day").toString())
                    .isEqualTo("[[\"2026-11-28\",1,1.00],[\"2026-11-29\",2,59.75]]");
            assertThat(rows(api, "SELECT orders, revenue FROM revenue_summary").toString()).isEqualTo("[[3,60.75]]");

            JsonNode run = api.get("/runs?trigger=stream:orders:3").body().get("runs").get(0);
            assertThat(run.get("status").asText()).isEqualTo("succeeded");
            JsonNode models = api.get("/runs/" + run.get("id").asText()).body().get("models");
            List<String> order = new ArrayList<>();
            models.forEach(model -> order.add(model.get("name").asText()));
            assertThat(order).containsExactly("order_sizes", "revenue_per_day", "revenue_summary");
            assertThat(models.get(1).get("rows").asLong()).isEqualTo(2);
            assertThat(rows(api, "SELECT order_id, size FROM order_sizes ORDER BY order_id").toString())
                    .isEqualTo("[[\"o1\",\"medium\"],[\"o2\",\"medium\"],[\"o3\",\"small\"]]");
        }
    }

    @Test
    void anIncrementalModelProcessesEachStreamRowExactlyOnce() {
        try (TestServer api = TestServer.start(dataDirectory)) {
            api.postJson("/streams/clicks", "[{\"click_id\":\"a\",\"url\":\"/x\",\"at\":\"2026-11-29T08:10:00Z\"},"
                    + "{\"click_id\":\"b\",\"url\":\"/y\",\"at\":\"2026-11-29T08:20:00Z\"}]");
            settle(api);
            api.postJson("/streams/clicks", "{\"click_id\":\"c\",\"url\":\"/z\",\"at\":\"2026-11-29T09:30:00Z\"}");
            settle(api);
            assertThat(rows(api, "SELECT click_id, hour FROM clicks_enriched ORDER BY click_id").toString())
                    .isEqualTo("[[\"a\",\"2026-11-29T08:00:00.000000Z\"],[\"b\",\"2026-11-29T08:00:00.000000Z\"],"
                            + "[\"c\",\"2026-11-29T09:00:00.000000Z\"]]");
            JsonNode last = api.get("/runs?model=clicks_enriched&limit=1").body().get("runs").get(0);
            JsonNode model = api.get("/runs/" + last.get("id").asText()).body().get("models").get(0);
            assertThat(model.get("name").asText()).isEqualTo("clicks_enriched");
            assertThat(model.get("rows").asLong()).as("only the new row is processed").isEqualTo(1);
            assertThat(rows(api, "SELECT watermark FROM interlace.model_watermarks WHERE model = 'clicks_enriched'")
                    .toString()).isEqualTo("[[3]]");
        }
    }

    @Test
    void anIncrementalModelMissesNoRowWhileFlushesLandDuringItsRuns() throws Exception {
        try (TestServer api = TestServer.start(dataDirectory, "--flush-delay-ms", "0")) {
            int publishers = 4;
            int batches = 25;
            java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(publishers);
            List<java.util.concurrent.Future<?>> done = new ArrayList<>();
            for (int p = 0; p < publishers; p++) {
                int publisher = p;
                done.add(pool.submit(() -> {
                    for (int b = 0; b < batches; b++) {
                        StringBuilder batch = new StringBuilder("[");
                        for (int i = 0; i < 20; i++) {
                            batch.append(i == 0 ? "" : ",").append("{\"click_id\":\"p").append(publisher).append('-')
                                    .append(b).append('-').append(i).append("\",\"url\":\"/\",\"at\":\"2026-11-29T08:00:00Z\"}");
                        }
                        assertThat(api.postJson("/streams/clicks", batch.append("]").toString()).status())
                                .isEqualTo(200);
                    }
                }));
            }
            for (java.util.concurrent.Future<?> future : done) {
                future.get();
            }
            pool.shutdown();
            settle(api);
            api.server.models().orElseThrow().runManually("clicks_enriched");
            settle(api);
            assertThat(rows(api, "SELECT count(*), count(DISTINCT click_id), count(DISTINCT click_offset)"
                    + " FROM clicks_enriched").toString()).isEqualTo("[[2000,2000,2000]]");
            assertThat(rows(api, "SELECT sum(\"rows\") FROM interlace.run_models WHERE model = 'clicks_enriched'"
                    + " AND status = 'succeeded'").get(0).get(0).asLong()).as("each click processed once")
                    .isEqualTo(2000);
        }
    }

    @Test
    void getModelsListsEveryModelInRunOrderWithWhatItReads() {
        try (TestServer api = TestServer.start(dataDirectory)) {
            TestServer.Response answer = api.get("/models");
            assertThat(answer.status()).isEqualTo(200);
            JsonNode models = answer.body().get("models");
            assertThat(models.findValuesAsText("name"))
                    .containsExactly("clicks_enriched", "order_sizes", "revenue_per_day", "revenue_summary");
            assertThat(answer.body().get("count").asInt()).isEqualTo(4);
            assertThat(answer.body().get("total").asInt()).isEqualTo(4);
            JsonNode summary = models.get(3);
            assertThat(summary.get("relation").asText()).isEqualTo("main.revenue_summary");
            assertThat(summary.get("materialise").asText()).isEqualTo("view");
            assertThat(summary.get("language").asText()).isEqualTo("sql");
            assertThat(summary.get("reads_streams")).isEmpty();
            assertThat(summary.get("reads_models").get(0).asText()).isEqualTo("revenue_per_day");
            JsonNode sizes = models.get(1);
            assertThat(sizes.get("language").asText()).isEqualTo("java");
            assertThat(sizes.get("unique_key").asText()).isEqualTo("order_id");
            assertThat(sizes.get("reads_streams").get(0).asText()).isEqualTo("orders");
            assertThat(api.get("/models?limit=1").status()).isEqualTo(400);
        }
    }

    @Test
    void aManualRunCoversTheModelAndItsDependantsAndRunsAreFiltered() {
        try (TestServer api = TestServer.start(dataDirectory)) {
            settle(api);
            TestServer.Response accepted = api.post("/models/revenue_per_day/run", "application/json", "");
            assertThat(accepted.status()).isEqualTo(202);
            String id = accepted.body().get("run_id").asText();
            assertThat(id).startsWith("run-");
            TestServer.Response right = api.get("/runs/" + id);
            assertThat(right.status()).as("a queued run is visible at once").isEqualTo(200);
            assertThat(right.body().get("status").asText()).isIn("queued", "running", "succeeded");
            settle(api);
            JsonNode run = api.get("/runs/" + id).body();
            assertThat(run.get("trigger").asText()).isEqualTo("manual");
            assertThat(run.get("status").asText()).isEqualTo("succeeded");
            assertThat(run.get("models")).hasSize(2);
            assertThat(run.get("models").get(0).get("name").asText()).isEqualTo("revenue_per_day");
            assertThat(run.get("duration_ms").asLong()).isGreaterThanOrEqualTo(0);

            JsonNode manual = api.get("/runs?trigger=manual").body();
            assertThat(manual.get("count").asInt()).isEqualTo(1);
            assertThat(manual.get("total").asInt()).isEqualTo(1);
            assertThat(api.get("/runs?limit=1").body().get("total").asInt()).isGreaterThanOrEqualTo(2);
            assertThat(api.get("/runs?since=2999-01-01T00:00:00Z").body().get("total").asInt()).isZero();
            assertThat(api.get("/runs?status=bogus").status()).isEqualTo(400);
            assertThat(api.get("/runs?trigger=stream:orders").status()).as("a trigger without an offset").isEqualTo(400);
            assertThat(api.get("/runs/run-nope").status()).isEqualTo(404);
            assertThat(api.post("/models/nope/run", "application/json", "").status()).isEqualTo(404);
        }
    }

    @Test
    void aFailingModelSkipsItsDependantsAndTheNextTriggerRetries() {
        AtomicBoolean fail = new AtomicBoolean(true);
        Module failing = FaultModules.failingModelWhile("revenue_per_day", fail::get);
        try (TestServer api = TestServer.startWith(dataDirectory, TestServer.CATALOG, List.of(failing))) {
            api.postJson("/streams/orders", "{\"order_id\":\"o1\",\"total\":5}");
            api.postJson("/streams/clicks", "{\"click_id\":\"a\",\"url\":\"/x\",\"at\":\"2026-11-29T08:10:00Z\"}");
            settle(api);
            JsonNode failed = api.get("/runs?status=failed&model=revenue_per_day").body().get("runs").get(0);
            JsonNode models = api.get("/runs/" + failed.get("id").asText()).body().get("models");
            assertThat(model(models, "order_sizes").get("status").asText()).as("another branch goes on")
                    .isEqualTo("succeeded");
            assertThat(model(models, "revenue_per_day").get("status").asText()).isEqualTo("failed");
            assertThat(model(models, "revenue_per_day").get("error").asText()).contains("test fault");
            assertThat(model(models, "revenue_summary").get("status").asText()).isEqualTo("skipped");
            assertThat(model(models, "revenue_summary").get("error").asText()).contains("revenue_per_day");
            assertThat(rows(api, "SELECT count(*) FROM clicks_enriched").get(0).get(0).asLong()).isEqualTo(1);

            fail.set(false);
            api.postJson("/streams/orders", "{\"order_id\":\"o2\",\"total\":7}");
            settle(api);
            assertThat(rows(api, "SELECT sum(orders), sum(revenue) FROM revenue_per_day").toString())
                    .isEqualTo("[[2,12.00]]");
        }
    }

    @Test
    void triggersArrivingDuringARunCoalesceIntoOnePendingRun() {
        try (TestServer api = TestServer.start(dataDirectory, "--flush-delay-ms", "0", "--flush-batch-rows", "1")) {
            StringBuilder batch = new StringBuilder("[");
            for (int i = 0; i < 40; i++) {
                batch.append(i == 0 ? "" : ",").append("{\"order_id\":\"o").append(i).append("\",\"total\":1}");
            }
            api.postJson("/streams/orders", batch.append("]").toString());
            settle(api);
            JsonNode runs = api.get("/runs?limit=1000").body().get("runs");
            int triggers = 0;
            int runsForOrders = 0;
            boolean coalesced = false;
            for (JsonNode run : runs) {
                if (run.get("trigger").asText().startsWith("stream:orders:")) {
                    runsForOrders++;
                    triggers += run.get("triggers").size();
                    coalesced |= run.get("triggers").size() > 1;
                }
            }
            assertThat(triggers).as("one trigger per flushed batch").isEqualTo(40);
            assertThat(runsForOrders).isLessThan(40);
            assertThat(coalesced).isTrue();
            assertThat(rows(api, "SELECT sum(orders) FROM revenue_per_day").get(0).get(0).asLong()).isEqualTo(40);
        }
    }

    @Test
    void afterEachRunTheRunnerRestsTheRestRatioTimesTheRunsDuration() throws InterruptedException {
        int ratio = 5;
        try (TestServer api = TestServer.start(dataDirectory, "--flush-delay-ms", "0", "--flush-batch-rows", "1",
                "--model-rest-ratio", Integer.toString(ratio))) {
            // A publish at each check until the runner has run four times (a run's rest is five times its duration,
            // and a first run on a cold JVM can take 100 ms): each is flushed at once and triggers a run, most of
            // them while the previous run goes on or rests.
            int[] published = {0};
            Eventually.until("the runner ran four times while publishing", Duration.ofSeconds(30), () -> {
                api.postJson("/streams/orders", "{\"order_id\":\"o" + published[0]++ + "\",\"total\":1}");
                return published[0] % 20 == 0 && runsFor(api, "orders") >= 4;
            });
            settle(api);
            List<long[]> runs = new ArrayList<>(); // started, finished (epoch µs), oldest first
            for (JsonNode run : api.get("/runs?limit=1000").body().get("runs")) {
                if (run.get("trigger").asText().startsWith("stream:orders:")) {
                    runs.add(0, new long[] {micros(run.get("started_at")), micros(run.get("finished_at"))});
                }
            }
            assertThat(runs).as("runs while publishing for up to 30 s").hasSizeGreaterThanOrEqualTo(4);
            for (int i = 1; i < runs.size(); i++) {
                long duration = runs.get(i - 1)[1] - runs.get(i - 1)[0];
                long gap = runs.get(i)[0] - runs.get(i - 1)[1];
                // The runner times its rest on another clock than the records' (1 ms of leeway for the difference).
                assertThat(gap).as("run %d started %d µs after run %d, which took %d µs", i, gap, i - 1, duration)
                        .isGreaterThanOrEqualTo(ratio * duration - 1_000);
            }
            assertThat(rows(api, "SELECT sum(orders) FROM revenue_per_day").get(0).get(0).asLong())
                    .as("the last run saw every order").isEqualTo(published[0]);
        }
    }

    private static int runsFor(TestServer api, String stream) {
        int runs = 0;
        for (JsonNode run : api.get("/runs?limit=1000").body().get("runs")) {
            runs += run.get("trigger").asText().startsWith("stream:" + stream + ":") ? 1 : 0;
        }
        return runs;
    }

    private static long micros(JsonNode time) {
        return EpochMicros.of(java.time.Instant.parse(time.asText()));
    }
}
