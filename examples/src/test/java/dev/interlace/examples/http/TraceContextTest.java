package dev.interlace.examples.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * W3C trace context: a publish's {@code traceparent} names the trace its publish record keeps, "where is my event?"
 * starts from that trace id, and a header that is not valid trace context is ignored (the request gets a trace of
 * its own), never an error.
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
            assertThat(bad.status()).isEqualTo(400);
            assertThat(bad.body().get("error").asText()).isEqualTo("invalid_parameter");
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
