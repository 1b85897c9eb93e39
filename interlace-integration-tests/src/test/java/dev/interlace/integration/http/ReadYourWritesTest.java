package dev.interlace.integration.http;

import static dev.interlace.integration.ApiAnswer.assertError;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.interlace.client.ErrorCode;
import dev.interlace.client.InterlaceClient;
import dev.interlace.client.PublishResult;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A publish answer's {@code position}, passed back in {@code Interlace-After}, makes a warehouse request wait until
 * the events are materialised (and, with {@code models}, until the models they triggered have run): with the flush
 * delay raised so that a query right after a publish misses the event, the same query with the position always sees
 * it.
 */
class ReadYourWritesTest {

    private static final String ORDER_COUNT = "SELECT count(*) FROM streams.orders WHERE order_id = '%s'";

    @TempDir
    Path dataDirectory;

    @Test
    void aQueryWithThePublishPositionSeesTheEventAQueryWithoutItDoesNot() {
        // The flusher waits 4 s after an append: a query sent at once would find nothing.
        try (TestServer api = TestServer.start(dataDirectory, "--flush-delay-ms", "4000", "--read-wait-ms",
                "30000")) {
            for (int round = 0; round < 3; round++) {
                String seen = "seen-" + round;
                String position = publish(api, seen);
                assertThat(position).isEqualTo("orders:" + (2 * round + 1));
                TestServer.Response answer = sql(api, ORDER_COUNT.formatted(seen), position);
                assertThat(answer.status()).as(String.valueOf(answer.body())).isEqualTo(200);
                assertThat(answer.body().get("rows").get(0).get(0).asLong()).as("round " + round).isEqualTo(1);

                String missed = "missed-" + round;
                publish(api, missed);
                TestServer.Response without = sql(api, ORDER_COUNT.formatted(missed), null);
                assertThat(without.body().get("rows").get(0).get(0).asLong())
                        .as("the negative control: without the position the query does not wait").isZero();
            }
        }
    }

    @Test
    void theJavaClientsPublishThenQueriesAfterWhatItPublished() {
        try (TestServer api = TestServer.start(dataDirectory, "--flush-delay-ms", "4000", "--read-wait-ms",
                "30000")) {
            InterlaceClient client = InterlaceClient.builder(api.server.uri()).build();
            JsonNode answer = client.publishThen("orders", List.of(Map.of("order_id", "c1", "total", 3),
                    Map.of("order_id", "c2", "total", 4)), "SELECT count(*), sum(total) FROM streams.orders");
            assertThat(answer.get("rows").get(0).get(0).asLong()).isEqualTo(2);

            PublishResult published = client.publish("orders", Map.of("order_id", "c3", "total", 5));
            assertThat(published.position()).isEqualTo("orders:3");
            assertThat(client.sql("SELECT count(*) FROM streams.orders", published.position()).get("rows").get(0)
                    .get(0).asLong()).isEqualTo(3);
        }
    }

    @Test
    void withModelsTheAnswerWaitsForTheModelRunsTheFlushTriggered() {
        try (TestServer api = TestServer.start(dataDirectory, "--flush-delay-ms", "1000", "--read-wait-ms",
                "30000")) {
            String position = publish(api, "m1", 41.5);
            TestServer.Response answer = sql(api, "SELECT sum(revenue) FROM revenue_per_day", position + ", models");
            assertThat(answer.status()).as(String.valueOf(answer.body())).isEqualTo(200);
            assertThat(answer.body().get("rows").get(0).get(0).asDouble()).isEqualTo(41.5);

            TestServer.Response runs = send(api, api.request("/runs?model=revenue_per_day")
                    .header("Interlace-After", position + ", models").GET().build());
            assertThat(runs.status()).isEqualTo(200);
            assertThat(runs.body().get("runs").get(0).get("status").asText()).isEqualTo("succeeded");
        }
    }

    @Test
    void aReadWaitingForItsPositionBringsTheFlushForward() {
        // The flusher would wait ten minutes after an append; a read that waits for the event flushes it now.
        try (TestServer api = TestServer.start(dataDirectory, "--flush-delay-ms", "600000", "--read-wait-ms",
                "60000")) {
            String position = publish(api, "hurried");
            TestServer.Response answer = sql(api, ORDER_COUNT.formatted("hurried"), position);
            assertThat(answer.status()).as(String.valueOf(answer.body())).isEqualTo(200);
            assertThat(answer.body().get("rows").get(0).get(0).asLong()).isEqualTo(1);

            publish(api, "waits");
            TestServer.Response without = sql(api, ORDER_COUNT.formatted("waits"), null);
            assertThat(without.body().get("rows").get(0).get(0).asLong())
                    .as("the negative control: nothing waits, so the flush keeps its delay").isZero();
        }
    }

    @Test
    void aPositionNotReachedInTimeIsRefusedWithTheLagAndABadOneIsRefusedAtOnce() {
        try (TestServer api = TestServer.start(dataDirectory, "--read-wait-ms", "300")) {
            String position = publish(api, "o1");
            api.awaitFlushed("orders");
            TestServer.Response future = sql(api, "SELECT 1", "orders:1000, " + position);
            assertThat(future.status()).as(String.valueOf(future.body())).isEqualTo(503);
            assertThat(future.body().get("error").asText()).isEqualTo("not_materialised");
            assertThat(future.body().get("lag").get("orders").asLong()).isEqualTo(999);
            assertThat(future.body().get("message").asText()).contains("orders by 999");
            assertThat(future.header("Retry-After")).isEqualTo("1");

            TestServer.Response malformed = sql(api, "SELECT 1", "orders");
            assertError(malformed, 400, ErrorCode.INVALID_POSITION);
            TestServer.Response negative = sql(api, "SELECT 1", "orders:-3");
            assertThat(negative.body().get("error").asText()).isEqualTo("invalid_position");
            TestServer.Response unknown = sql(api, "SELECT 1", "nosuch:3");
            assertError(unknown, 404, ErrorCode.UNKNOWN_STREAM);

            TestServer.Response reached = sql(api, "SELECT count(*) FROM streams.orders", position);
            assertThat(reached.status()).isEqualTo(200);
            assertThat(reached.body().get("rows").get(0).get(0).asLong()).isEqualTo(1);
        }
    }

    private static String publish(TestServer api, String orderId) {
        return publish(api, orderId, 10);
    }

    private static String publish(TestServer api, String orderId, double total) {
        TestServer.Response published = api.postJson("/streams/orders",
                "{\"order_id\": \"" + orderId + "\", \"total\": " + total + "}");
        assertThat(published.status()).as(String.valueOf(published.body())).isEqualTo(200);
        JsonNode body = published.body();
        assertThat(body.get("position").asText()).isEqualTo("orders:" + body.get("last_offset").asLong());
        return body.get("position").asText();
    }

    private static TestServer.Response sql(TestServer api, String query, String after) {
        HttpRequest.Builder request = api.request("/sql").header("Content-Type", "text/plain")
                .POST(HttpRequest.BodyPublishers.ofString(query));
        if (after != null) {
            request.header("Interlace-After", after);
        }
        return send(api, request.build());
    }

    private static TestServer.Response send(TestServer api, HttpRequest request) {
        return api.send(request);
    }
}
