package dev.interlace.integration.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every answer whose body is a JSON object carries the request's id in {@code request_id}, the same as its
 * {@code X-Request-Id} header, on every route; {@code /correlate}'s {@code request_id} is the request it looked up.
 * Every time in those answers is RFC 3339 UTC with exactly six fraction digits.
 */
class RequestIdInAnswersTest {

    @TempDir
    Path dataDirectory;

    private static void carriesItsRequestId(TestServer.Response response, String route) {
        assertThat(response.status()).as(route).isBetween(200, 299);
        assertThat(response.body().isObject()).as(route).isTrue();
        assertThat(response.header("X-Request-Id")).as(route).isNotBlank();
        assertThat(response.body().path("request_id").asText()).as(route)
                .isEqualTo(response.header("X-Request-Id"));
        timesHaveSixFractionDigits(response.body(), route);
    }

    private static void timesHaveSixFractionDigits(JsonNode node, String route) {
        if (node.isTextual() && node.asText().matches("\\d{4}-\\d\\d-\\d\\dT.*")) {
            assertThat(node.asText()).as(route).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{6}Z");
        }
        node.forEach(child -> timesHaveSixFractionDigits(child, route));
    }

    @Test
    void everyJsonObjectAnswerCarriesTheRequestIdOfItsHeaderAndTimesWithMicroseconds() {
        try (TestServer api = TestServer.start(dataDirectory)) {
            carriesItsRequestId(api.postJson("/streams/orders", "{\"order_id\":\"o1\",\"total\":\"2.50\"}"),
                    "POST /streams/orders");
            api.awaitFlushed("orders");
            carriesItsRequestId(api.get("/streams"), "GET /streams");
            carriesItsRequestId(api.get("/streams/orders"), "GET /streams/orders");
            carriesItsRequestId(api.get("/streams/orders/events?after=0"), "GET /streams/orders/events");
            carriesItsRequestId(api.get("/streams/orders/consumers"), "GET /streams/orders/consumers");
            TestServer.Response lease = api.postJson("/streams/orders/consumers/billing/lease",
                    "{\"owner\":\"w1\",\"ttl_ms\":30000}");
            carriesItsRequestId(lease, "POST …/lease");
            String token = lease.body().get("token").toString(); // quoted: "<epoch>.<secret>"
            carriesItsRequestId(api.postJson("/streams/orders/consumers/billing/commit",
                    "{\"token\":" + token + ",\"offset\":1}"), "POST …/commit");
            carriesItsRequestId(api.postJson("/streams/orders/consumers/billing/release",
                    "{\"token\":" + token + "}"), "POST …/release");
            carriesItsRequestId(api.postJson("/sql",
                    "{\"sql\":\"SELECT 1 AS one, TIMESTAMP '2026-11-29 08:00:00' AS at\"}"), "POST /sql");
            TestServer.Response run = api.post("/models/revenue_per_day/run", "application/json", "");
            carriesItsRequestId(run, "POST /models/{name}/run");
            carriesItsRequestId(api.get("/runs"), "GET /runs");
            carriesItsRequestId(api.get("/runs/" + run.body().get("run_id").asText()), "GET /runs/{id}");
            carriesItsRequestId(api.get("/logs/api"), "GET /logs/api");
            carriesItsRequestId(api.get("/logs/sys"), "GET /logs/sys");
            carriesItsRequestId(api.get("/health/live"), "GET /health/live");
            carriesItsRequestId(api.get("/health/ready"), "GET /health/ready");
        }
    }

    @Test
    void aClientsRequestIdIsEchoedInTheBodyAndCorrelateNamesTheRequestItLookedUp() {
        try (TestServer api = TestServer.start(dataDirectory)) {
            TestServer.Response streams = api.send(api.request("/streams").header("X-Request-Id", "mine-1").GET()
                    .build());
            assertThat(streams.body().get("request_id").asText()).isEqualTo("mine-1");

            api.send(api.request("/streams/orders").header("X-Request-Id", "pub-1")
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"order_id\":\"o1\"}")).build());
            TestServer.Response correlated = api.get("/correlate?request_id=pub-1");
            JsonNode body = correlated.body();
            assertThat(body.get("request_id").asText()).isEqualTo("pub-1");
            assertThat(correlated.header("X-Request-Id")).isNotEqualTo("pub-1");
        }
    }
}
