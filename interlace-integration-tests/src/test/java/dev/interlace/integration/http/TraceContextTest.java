package dev.interlace.integration.http;

import static dev.interlace.integration.ApiAnswer.assertError;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.inject.AbstractModule;
import com.google.inject.Module;
import com.google.inject.multibindings.Multibinder;
import dev.interlace.client.ErrorCode;
import dev.interlace.runtime.flush.FlushListener;
import dev.interlace.runtime.flush.RecentEvents;
import dev.interlace.runtime.warehouse.Warehouse;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * W3C trace context: a publish's {@code traceparent} names the trace its publish record keeps, "where is my event?"
 * starts from that trace id, and a header that is not valid trace context is ignored (the request gets a trace of
 * its own), never an error. The flush that materialised a request's events, and the model runs that flush triggered,
 * keep the requests' trace ids: the first sixteen, and how many there were.
 */
class TraceContextTest {

    private static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";

    @TempDir
    Path dataDirectory;

    @Test
    void aPublishIsFoundByTheTraceIdOfItsTraceparent() {
        try (TestServer api = TestServer.start(dataDirectory)) {
            TestServer.Response first = publish(api, "00-" + TRACE + "-00f067aa0ba902b7-01", "t-1",
                    "{\"order_id\":\"o1\",\"total\":\"2.50\"}");
            assertThat(first.status()).isEqualTo(200);
            publish(api, "00-" + TRACE + "-b7ad6b7169203331-01", "t-2", "{\"order_id\":\"o2\",\"total\":\"1.00\"}");
            publish(api, "00-" + "1".repeat(32) + "-b7ad6b7169203331-01", "other", "{\"order_id\":\"o3\"}");

            TestServer.Response found = api.get("/correlate?trace_id=" + TRACE);
            assertThat(found.status()).as(found.body().toString()).isEqualTo(200);
            JsonNode trace = found.body().get("trace");
            assertThat(trace.get("trace_id").asText()).isEqualTo(TRACE);
            assertThat(trace.get("total").asLong()).isEqualTo(2);
            assertThat(requestIds(trace.get("items"))).as("newest first").containsExactly("t-2", "t-1");
            assertThat(found.body().get("request_id").asText()).as("the newest is followed").isEqualTo("t-2");
            assertThat(found.body().get("publish").get("trace_id").asText()).isEqualTo(TRACE);

            TestServer.Response byRequest = api.get("/correlate?request_id=t-1");
            assertThat(byRequest.body().get("publish").get("trace_id").asText()).isEqualTo(TRACE);
            assertThat(api.get("/correlate?trace_id=" + "2".repeat(32)).status()).isEqualTo(404);
            TestServer.Response bad = api.get("/correlate?trace_id=NOT-A-TRACE");
            assertError(bad, 400, ErrorCode.INVALID_PARAMETER);
        }
    }

    @Test
    void aMalformedTraceparentIsIgnoredAndTheRequestGetsATraceOfItsOwn() {
        try (TestServer api = TestServer.start(dataDirectory)) {
            List<String> malformed = List.of("00-" + TRACE.toUpperCase() + "-00f067aa0ba902b7-01",
                    "00-" + "0".repeat(32) + "-00f067aa0ba902b7-01", "00-" + TRACE + "-" + "0".repeat(16) + "-01",
                    "ff-" + TRACE + "-00f067aa0ba902b7-01", "00-" + TRACE + "-00f067aa0ba902b7-01-extra",
                    "garbage", "");
            List<String> traces = new ArrayList<>();
            for (int i = 0; i < malformed.size(); i++) {
                TestServer.Response answer = publish(api, malformed.get(i), "m-" + i,
                        "{\"order_id\":\"m" + i + "\"}");
                assertThat(answer.status()).as(malformed.get(i)).isEqualTo(200);
                JsonNode publish = api.get("/correlate?request_id=m-" + i).body().get("publish");
                String trace = publish.get("trace_id").asText();
                assertThat(trace).as(malformed.get(i)).matches("[0-9a-f]{32}").isNotEqualTo(TRACE.toLowerCase())
                        .isNotEqualTo("0".repeat(32));
                traces.add(trace);
            }
            assertThat(traces).as("each its own trace").doesNotHaveDuplicates();
            // A later version may add fields after a dash: its trace id is taken.
            publish(api, "01-" + TRACE + "-00f067aa0ba902b7-01-future", "v1", "{\"order_id\":\"v1\"}");
            assertThat(api.get("/correlate?request_id=v1").body().get("publish").get("trace_id").asText())
                    .isEqualTo(TRACE);
        }
    }

    @Test
    void theFlushAndTheModelRunsOfAPublishKeepItsTraceId() {
        try (TestServer api = TestServer.start(dataDirectory)) {
            publish(api, "00-" + TRACE + "-00f067aa0ba902b7-01", "traced",
                    "[{\"order_id\":\"o1\",\"total\":\"2.50\"}, {\"order_id\":\"o2\",\"total\":\"1.00\"}]");
            api.awaitFlushed("orders");

            JsonNode found = api.get("/correlate?request_id=traced").body();
            JsonNode flushes = found.get("flushes").get("items");
            assertThat(flushes).as(found.toString()).isNotEmpty();
            for (JsonNode flush : flushes) {
                assertThat(texts(flush.get("trace_ids"))).containsExactly(TRACE);
                assertThat(flush.get("trace_count").asLong()).isEqualTo(1);
            }
            JsonNode runs = found.get("runs").get("items");
            assertThat(runs).as("the flush triggers the models reading orders: " + found).isNotEmpty();
            for (JsonNode run : runs) {
                assertThat(texts(run.get("trace_ids"))).containsExactly(TRACE);
                JsonNode described = api.get("/runs/" + run.get("run_id").asText()).body();
                assertThat(texts(described.get("trace_ids"))).as(described.toString()).containsExactly(TRACE);
                assertThat(described.get("trace_count").asLong()).isEqualTo(1);
            }
            JsonNode listed = api.get("/runs?trigger=" + runs.get(0).get("trigger").asText()).body();
            assertThat(texts(listed.get("runs").get(0).get("trace_ids"))).as(listed.toString()).contains(TRACE);
            assertThat(api.get("/correlate?trace_id=" + TRACE).body().get("flushes").get("items"))
                    .as("the trace id leads to the same flushes").isEqualTo(flushes);
        }
    }

    /**
     * Twenty requests of twenty traces wait behind a flush held at its commit, then go into the warehouse in one
     * batch: its record keeps the first sixteen trace ids in publish order and counts twenty. From memory, and read
     * back from the log (nothing kept in memory), alike.
     */
    @ParameterizedTest(name = "events kept in memory: {0}")
    @ValueSource(booleans = {true, false})
    void aFlushKeepsTheFirstSixteenTraceIdsAndCountsThemAll(boolean fromMemory) throws Exception {
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean first = new AtomicBoolean(true);
        Module holdTheFirstFlush = new AbstractModule() {
            @Override
            protected void configure() {
                Multibinder.newSetBinder(binder(), FlushListener.class).addBinding().toInstance(new FlushListener() {
                    @Override
                    public void beforeCommit(Warehouse.Target target, long newWatermark, int rows) {
                        if (first.compareAndSet(true, false)) {
                            held.countDown();
                            try {
                                release.await(60, TimeUnit.SECONDS);
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        }
                    }
                });
                if (!fromMemory) {
                    bind(RecentEvents.class).toInstance(RecentEvents.NONE);
                }
            }
        };
        try (TestServer api = TestServer.startWith(dataDirectory, TestServer.CATALOG, List.of(holdTheFirstFlush))) {
            publish(api, "00-" + "f".repeat(32) + "-00f067aa0ba902b7-01", "g-0", "{\"order_id\":\"g0\"}");
            assertThat(held.await(60, TimeUnit.SECONDS)).as("the first flush reached its commit").isTrue();
            List<String> traces = new ArrayList<>();
            for (int i = 1; i <= 20; i++) {
                String trace = String.format("%032x", 0xabc000 + i);
                traces.add(trace);
                assertThat(publish(api, "00-" + trace + "-00f067aa0ba902b7-01", "g-" + i,
                        "{\"order_id\":\"g" + i + "\"}").status()).isEqualTo(200);
            }
            release.countDown();
            api.awaitFlushed("orders");

            JsonNode flushes = api.get("/correlate?request_id=g-20").body().get("flushes").get("items");
            assertThat(flushes).hasSize(1);
            JsonNode flush = flushes.get(0);
            assertThat(List.of(flush.get("first_offset").asLong(), flush.get("last_offset").asLong()))
                    .as("one batch after the held one").containsExactly(2L, 21L);
            assertThat(texts(flush.get("trace_ids"))).as("the first sixteen, in publish order")
                    .containsExactlyElementsOf(traces.subList(0, 16));
            assertThat(flush.get("trace_count").asLong()).isEqualTo(20);
        } finally {
            release.countDown();
        }
    }

    private static List<String> texts(JsonNode array) {
        List<String> texts = new ArrayList<>();
        array.forEach(item -> texts.add(item.asText()));
        return texts;
    }

    private static TestServer.Response publish(TestServer api, String traceparent, String requestId, String body) {
        return api.send(api.request("/streams/orders").header("traceparent", traceparent)
                .header("X-Request-Id", requestId).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build());
    }

    private static List<String> requestIds(JsonNode items) {
        List<String> ids = new ArrayList<>();
        items.forEach(item -> ids.add(item.get("request_id").asText()));
        return ids;
    }
}
