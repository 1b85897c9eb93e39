package dev.interlace.integration.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.inject.AbstractModule;
import com.google.inject.Module;
import com.google.inject.multibindings.Multibinder;
import dev.interlace.runtime.flush.Flusher;
import dev.interlace.runtime.log.CommitListener;
import dev.interlace.runtime.testing.Eventually;
import dev.interlace.runtime.testing.FaultModules;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code GET /metrics} over real HTTP: the whole body is Prometheus text (checked line by line by
 * {@link PrometheusText}), and the meters count what the test did and what the warehouse holds.
 */
class MetricsTest {

    private static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    @TempDir
    Path dataDirectory;

    @Test
    void metricsAreWholePrometheusTextAndCountPublishesFlushesAndModelRuns() {
        try (TestServer api = TestServer.start(dataDirectory)) {
            assertThat(api.postJson("/streams/orders", "[{\"order_id\":\"o1\",\"total\":49.5},{\"order_id\":\"o2\"},"
                    + "{\"order_id\":\"o3\",\"total\":\"10.25\"}]").status()).isEqualTo(200);
            TestServer.Response retry = api.postJson("/streams/orders", "[{\"order_id\":\"o1\",\"total\":49.5},"
                    + "{\"order_id\":\"o4\"}]");
            assertThat(retry.body().get("deduplicated").asInt()).isEqualTo(1);
            TestServer.Response invalid = api.postJson("/streams/orders", "[{\"order_id\":\"o5\"},{\"order_id\":5},"
                    + "{\"order_id\":\"o6\",\"total\":\"ten\",\"placed_at\":\"yesterday\"}]");
            assertThat(invalid.status()).isEqualTo(422);
            assertThat(invalid.body().get("errors")).hasSize(3);
            assertThat(api.post("/streams/orders", "text/plain", "{}").status()).isEqualTo(415);
            assertThat(api.postJson("/streams/orders", "{\"order_id\":").status()).isEqualTo(400);
            TestServer.Response clicks = api.postJson("/streams/clicks", "[{\"click_id\":\"c1\",\"url\":\"/a\","
                    + "\"at\":\"2026-11-29T08:00:00Z\"},{\"click_id\":\"c2\",\"url\":7}]");
            assertThat(clicks.body().get("quarantined").asInt()).isEqualTo(1);
            assertThat(api.postJson("/streams/nope", "{}").status()).isEqualTo(404);
            settle(api);

            HttpResponse<String> response = scrape(api);
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.headers().firstValue("Content-Type")).hasValue(CONTENT_TYPE);
            PrometheusText metrics = PrometheusText.parse(response.body());
            // Refusals and latencies are recorded once the answer is written, which the client can see first.
            metrics = awaitMetrics(api, m -> total(m, "interlace_publish_refused_total") == 3
                    && total(m, "interlace_publish_unknown_stream_total") == 1
                    && total(m, "interlace_publish_duration_seconds_count") == 3);

            assertThat(events(metrics, "orders", "accepted")).isEqualTo(4);
            assertThat(events(metrics, "orders", "deduplicated")).isEqualTo(1);
            assertThat(events(metrics, "orders", "quarantined")).isZero();
            assertThat(events(metrics, "orders", "rejected")).as("two invalid events, three errors").isEqualTo(2);
            assertThat(events(metrics, "clicks", "accepted")).isEqualTo(1);
            assertThat(events(metrics, "clicks", "quarantined")).isEqualTo(1);
            assertThat(events(metrics, "clicks", "deduplicated")).isZero();
            assertThat(events(metrics, "clicks", "rejected")).isZero();

            assertThat(metrics.value("interlace_publish_refused_total", "stream", "orders", "status", "422"))
                    .isEqualTo(1);
            assertThat(metrics.value("interlace_publish_refused_total", "stream", "orders", "status", "415"))
                    .isEqualTo(1);
            assertThat(metrics.value("interlace_publish_refused_total", "stream", "orders", "status", "400"))
                    .isEqualTo(1);
            assertThat(metrics.matching("interlace_publish_refused_total", "stream", "clicks")).isEmpty();
            assertThat(metrics.value("interlace_publish_duration_seconds_count", "stream", "orders")).isEqualTo(2);
            assertThat(metrics.value("interlace_publish_duration_seconds_bucket", "stream", "orders", "le", "10.0"))
                    .as("a publish on a test machine takes less than 10 s").isEqualTo(2);
            assertThat(metrics.matching("interlace_publish_duration_seconds_bucket", "stream", "orders"))
                    .as("buckets from 1 ms to 10 s, and +Inf").hasSize(14);

            // Three 200s, one after the other, wrote to the log: 3 + 2 entries to orders, 2 to clicks. Each went in
            // a group commit (one fsync) of its own.
            assertThat(metrics.value("interlace_log_commits_total")).isEqualTo(3);
            assertThat(metrics.value("interlace_log_group_requests_count")).isEqualTo(3);
            assertThat(metrics.value("interlace_log_commit_duration_seconds_count")).isEqualTo(3);
            assertThat(metrics.value("interlace_log_group_requests_sum")).isEqualTo(3);
            assertThat(metrics.value("interlace_log_group_entries_sum")).isEqualTo(7);

            assertThat(metrics.value("interlace_pending_events", "stream", "orders")).isZero();
            assertThat(metrics.value("interlace_pending_events", "stream", "clicks")).isZero();
            assertThat(flushedRows(metrics, "orders", "events")).isEqualTo(count(api, "streams.orders")).isEqualTo(4);
            assertThat(flushedRows(metrics, "clicks", "events")).isEqualTo(count(api, "streams.clicks")).isEqualTo(1);
            assertThat(flushedRows(metrics, "clicks", "quarantine")).isEqualTo(count(api, "streams.clicks__quarantine"))
                    .isEqualTo(1);
            assertThat(flushedRows(metrics, "orders", "quarantine")).isZero();
            for (String stream : List.of("orders", "clicks")) {
                assertThat(metrics.value("interlace_flush_duration_seconds_count", "stream", stream, "kind", "events"))
                        .as("one duration per committed batch")
                        .isEqualTo(metrics.value("interlace_flush_rows_count", "stream", stream, "kind", "events"))
                        .isGreaterThanOrEqualTo(1);
            }
            // A bucket at the default --flush-batch-rows, so that full batches can be told from partial ones.
            assertThat(metrics.value("interlace_flush_rows_bucket", "stream", "orders", "kind", "events", "le",
                    "20000.0")).isEqualTo(metrics.value("interlace_flush_rows_count", "stream", "orders", "kind",
                    "events"));

            assertModelMetricsMatchTheRunRecords(api, metrics);
            assertThat(metrics.value("interlace_model_results_total", "model", "order_sizes", "status", "succeeded"))
                    .as("the orders flush ran the Java model").isGreaterThanOrEqualTo(1);

            assertThat(metrics.families().get("jvm_memory_used_bytes").type()).isEqualTo("gauge");
            assertThat(metrics.matching("jvm_memory_used_bytes", "area", "heap").stream()
                    .mapToDouble(PrometheusText.Sample::value).sum()).isPositive();
            assertThat(metrics.families()).containsKeys("jvm_gc_max_data_size_bytes", "jvm_threads_live_threads",
                    "process_cpu_usage", "process_uptime_seconds", "process_start_time_seconds");
            assertThat(metrics.value("jvm_threads_live_threads")).isPositive();
            assertThat(metrics.value("process_uptime_seconds")).isPositive();
        }
    }

    @Test
    void theDedupIndexGaugesCountTheKeysAcceptedAndTheirHeap() {
        try (TestServer api = TestServer.stalled(dataDirectory)) {
            api.postJson("/streams/orders", "[{\"order_id\":\"a\"},{\"order_id\":\"b\"},{\"order_id\":\"a\"}]");
            api.postJson("/streams/orders", "{\"order_id\":\"c\"}");
            PrometheusText metrics = awaitMetrics(api, m -> m.value("interlace_dedup_keys", "stream", "orders") == 3);
            assertThat(metrics.value("interlace_dedup_keys", "stream", "orders")).as("a, b, c; the retry of a is no key")
                    .isEqualTo(3);
            assertThat(metrics.value("interlace_dedup_heap_bytes", "stream", "orders")).isPositive();
            assertThat(metrics.value("interlace_dedup_segments", "stream", "orders")).as("a million fit in memory")
                    .isZero();
            assertThat(metrics.value("interlace_dedup_mapped_bytes", "stream", "orders")).isZero();
        }
    }

    @Test
    void pendingIsWhatTheWarehouseHasNotTakenQuarantineIncluded() {
        try (TestServer api = TestServer.stalled(dataDirectory, "--max-pending", "5")) {
            api.postJson("/streams/orders", "[{\"order_id\":\"a\"},{\"order_id\":\"b\"},{\"order_id\":\"c\"}]");
            api.postJson("/streams/clicks", "[{\"click_id\":\"c1\",\"url\":\"/a\",\"at\":\"2026-11-29T08:00:00Z\"},"
                    + "{\"click_id\":\"c2\"}]");
            TestServer.Response refused = api.postJson("/streams/orders",
                    "[{\"order_id\":\"d\"},{\"order_id\":\"e\"},{\"order_id\":\"f\"}]");
            assertThat(refused.status()).isEqualTo(429);

            PrometheusText metrics = awaitMetrics(api, m -> total(m, "interlace_publish_refused_total") == 1);
            assertThat(metrics.value("interlace_publish_refused_total", "stream", "orders", "status", "429"))
                    .isEqualTo(1);
            assertThat(metrics.value("interlace_pending_events", "stream", "orders"))
                    .isEqualTo(api.get("/streams/orders").body().get("pending").asDouble()).isEqualTo(3);
            assertThat(metrics.value("interlace_pending_events", "stream", "clicks"))
                    .as("the quarantined click waits too")
                    .isEqualTo(api.get("/streams/clicks").body().get("pending").asDouble()).isEqualTo(2);
            assertThat(flushedRows(metrics, "orders", "events")).isZero();
            assertThat(metrics.value("interlace_flush_rows_count", "stream", "clicks", "kind", "quarantine"))
                    .as("no batch ever committed").isZero();
        }
    }

    @Test
    void aFailedModelIsCountedAndItsDependantIsCountedAsSkipped() {
        Module failing = FaultModules.failingModelWhile("revenue_per_day", () -> true);
        try (TestServer api = TestServer.startWith(dataDirectory, TestServer.CATALOG, List.of(failing))) {
            api.postJson("/streams/orders", "{\"order_id\":\"o1\",\"total\":5}");
            settle(api);
            PrometheusText metrics = PrometheusText.parse(scrape(api).body());
            assertThat(metrics.value("interlace_model_results_total", "model", "revenue_per_day", "status", "failed"))
                    .isGreaterThanOrEqualTo(1);
            assertThat(metrics.value("interlace_model_results_total", "model", "revenue_summary", "status", "skipped"))
                    .isGreaterThanOrEqualTo(1);
            assertThat(metrics.value("interlace_model_run_duration_seconds_count", "status", "failed"))
                    .isGreaterThanOrEqualTo(1);
            assertModelMetricsMatchTheRunRecords(api, metrics);
        }
    }

    @Test
    void groupCommitsAreCountedWhenATestBindsItsOwnCommitListener() {
        AtomicInteger seen = new AtomicInteger();
        AbstractModule counting = new AbstractModule() {
            @Override
            protected void configure() {
                Multibinder.newSetBinder(binder(), CommitListener.class).addBinding().toInstance(new CommitListener() {
                    @Override
                    public void afterCommit(int requests, int entries) {
                        seen.incrementAndGet();
                    }
                });
            }
        };
        try (TestServer api = TestServer.startWith(dataDirectory, TestServer.CATALOG, List.of(counting))) {
            for (int i = 0; i < 5; i++) {
                assertThat(api.postJson("/streams/orders", "{\"order_id\":\"o" + i + "\"}").status()).isEqualTo(200);
            }
            PrometheusText metrics = PrometheusText.parse(scrape(api).body());
            assertThat(seen.get()).as("five sequential publishes, five commits").isEqualTo(5);
            assertThat(metrics.value("interlace_log_commits_total")).isEqualTo(seen.get());
        }
    }

    // ---------------------------------------------------------------- helpers

    /** Every model's succeeded/failed/skipped counts and the run counts equal what the runner recorded in DuckDB. */
    private static void assertModelMetricsMatchTheRunRecords(TestServer api, PrometheusText metrics) {
        JsonNode results = sql(api, "SELECT model, status, count(*) FROM interlace.run_models GROUP BY ALL");
        assertThat(results).isNotEmpty();
        for (String model : List.of("order_sizes", "revenue_per_day", "revenue_summary", "clicks_enriched")) {
            for (String status : List.of("succeeded", "failed", "skipped")) {
                long recorded = 0;
                for (JsonNode row : results) {
                    if (row.get(0).asText().equals(model) && row.get(1).asText().equals(status)) {
                        recorded = row.get(2).asLong();
                    }
                }
                assertThat(metrics.value("interlace_model_results_total", "model", model, "status", status))
                        .as(model + " " + status).isEqualTo(recorded);
            }
        }
        for (String status : List.of("succeeded", "failed")) {
            long runs = sql(api, "SELECT count(*) FROM interlace.runs WHERE status = '" + status + "'").get(0).get(0)
                    .asLong();
            assertThat(metrics.value("interlace_model_run_duration_seconds_count", "status", status))
                    .as("runs " + status).isEqualTo(runs);
        }
    }

    /** The sum of the samples named {@code name}, 0 when there are none. */
    private static double total(PrometheusText metrics, String name) {
        return metrics.matching(name).stream().mapToDouble(PrometheusText.Sample::value).sum();
    }

    private static double events(PrometheusText metrics, String stream, String outcome) {
        return metrics.value("interlace_events_total", "stream", stream, "outcome", outcome);
    }

    private static double flushedRows(PrometheusText metrics, String stream, String kind) {
        return metrics.value("interlace_flush_rows_sum", "stream", stream, "kind", kind);
    }

    private static double count(TestServer api, String table) {
        return sql(api, "SELECT count(*) FROM " + table).get(0).get(0).asDouble();
    }

    private static JsonNode sql(TestServer api, String query) {
        TestServer.Response response = api.post("/sql", "text/plain", query);
        assertThat(response.status()).as(String.valueOf(response.body())).isEqualTo(200);
        return response.body().get("rows");
    }

    /** Waits until everything is flushed and no model run is queued or running. */
    private static void settle(TestServer api) {
        assertThat(api.server.instance(Flusher.class).drain(Duration.ofSeconds(20))).isTrue();
        assertThat(api.server.models().orElseThrow().awaitIdle(Duration.ofSeconds(20))).isTrue();
    }

    private static HttpResponse<String> scrape(TestServer api) {
        try {
            return api.client.send(api.request("/metrics").GET().build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Scrapes (up to 10 s) until {@code condition} holds; every body read on the way must parse. */
    private static PrometheusText awaitMetrics(TestServer api, Predicate<PrometheusText> condition) {
        return Eventually.get("the metrics show what is awaited", Duration.ofSeconds(10),
                () -> PrometheusText.parse(scrape(api).body()), condition);
    }
}
