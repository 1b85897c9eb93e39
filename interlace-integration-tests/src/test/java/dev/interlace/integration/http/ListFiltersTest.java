package dev.interlace.integration.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Every list route, and publish, parses its query the same way: a parameter it does not know is
 * {@code 400 invalid_parameter} naming it and listing the known ones, and a value it cannot use is the same code
 * naming the parameter.
 */
class ListFiltersTest extends ServerPerTest {

    private JsonNode refused(TestServer.Response response, String target) {
        assertThat(response.status()).as(target).isEqualTo(400);
        JsonNode body = response.body();
        assertThat(body.get("error").asText()).as(target).isEqualTo("invalid_parameter");
        assertThat(body.get("request_id").asText()).as(target).isEqualTo(response.header("X-Request-Id"));
        return body;
    }

    private String refusedMessage(String target) {
        return refused(api.get(target), target).get("message").asText();
    }

    private static List<String> texts(JsonNode array) {
        List<String> texts = new ArrayList<>();
        array.forEach(item -> texts.add(item.asText()));
        return texts;
    }

    @Test
    void everyListRouteAndPublishRefuseAnUnknownParameterNamingItAndTheKnownOnes() {
        Map<String, List<String>> known = new LinkedHashMap<>();
        known.put("GET /streams", List.of());
        known.put("GET /streams/orders/events", List.of("after", "limit", "partition", "wait_ms"));
        known.put("GET /streams/orders/consumers", List.of("partition"));
        known.put("GET /runs", List.of("limit", "model", "since", "status", "trigger", "until"));
        known.put("GET /correlate", List.of("key", "request_id", "stream", "trace_id"));
        known.put("GET /logs/api", List.of("limit", "node", "request_id", "since", "source", "status", "stream",
                "until"));
        known.put("GET /logs/sys", List.of("event", "id", "limit", "node", "since", "stream", "until"));
        known.put("POST /streams/orders", List.of("partition", "verbose"));
        known.forEach((route, parameters) -> {
            String target = route.substring(route.indexOf(' ') + 1) + "?foo=1";
            TestServer.Response response = route.startsWith("POST")
                    ? api.postJson(target, "{\"order_id\":\"o1\"}")
                    : api.get(target);
            JsonNode body = refused(response, route);
            assertThat(body.get("parameter").asText()).as(route).isEqualTo("foo");
            assertThat(texts(body.get("known"))).as(route).isEqualTo(parameters);
            assertThat(body.get("message").asText()).as(route).isEqualTo("unknown parameter foo; known parameters: "
                    + (parameters.isEmpty() ? "none" : String.join(", ", parameters)));
        });
        assertThat(api.head("orders")).as("a refused publish stores nothing").isZero();
    }

    @Test
    void publishRefusesAVerboseThatIsNotTrueOrFalseAndStoresNothing() {
        JsonNode body = refused(api.postJson("/streams/orders?verbose=1", "{\"order_id\":\"o1\"}"), "verbose=1");
        assertThat(body.get("parameter").asText()).isEqualTo("verbose");
        assertThat(body.get("message").asText()).isEqualTo("verbose must be true or false, got 1");
        assertThat(api.head("orders")).isZero();

        TestServer.Response verbose = api.postJson("/streams/orders?verbose=true", "{\"order_id\":\"o1\"}");
        assertThat(verbose.status()).isEqualTo(200);
        assertThat(verbose.body().get("results")).hasSize(1);
    }

    @Test
    void aValueTheRouteCannotUseIsRefusedWithTheSameCodeNamingTheParameter() {
        assertThat(refusedMessage("/runs?limit=many")).isEqualTo("limit must be between 1 and 1000");
        assertThat(refusedMessage("/streams/orders/events?limit=0")).isEqualTo("limit must be between 1 and 1000");
        assertThat(refusedMessage("/streams/orders/events?after=x")).isEqualTo("after must be a whole number, got x");
        assertThat(refusedMessage("/logs/sys?since=yesterday")).startsWith("since must be RFC 3339");
        assertThat(refusedMessage("/logs/sys?event=flush_fialing")).as("a mistyped event matches nothing silently")
                .startsWith("event must be one of startup, shutdown, migration, flush_failing,");
        assertThat(refused(api.get("/logs/api?status=abc"), "status=abc").get("parameter").asText())
                .isEqualTo("status");
    }
}
