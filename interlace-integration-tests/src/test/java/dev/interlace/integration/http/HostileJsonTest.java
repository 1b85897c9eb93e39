package dev.interlace.integration.http;

import static dev.interlace.integration.ApiAnswer.assertError;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.interlace.client.ErrorCode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bodies built to hurt the server: JSON past the parser's limits is a {@code 400 malformed_json} naming the limit,
 * and error answers (and what the quarantine stores) stay small however many errors an event has.
 */
class HostileJsonTest {

    private static final int ONE_MILLION = 1_000_000;
    private static final int MAX_ERROR_BODY_BYTES = 64 * 1024;

    @TempDir
    Path dataDirectory;

    @Test
    void jsonNestedDeeperThanTheLimitIs400NamingTheLimit() {
        String deep = "{\"order_id\":\"o1\",\"meta\":" + "[".repeat(200) + "]".repeat(200) + "}";
        try (TestServer api = TestServer.start(dataDirectory)) {
            TestServer.Response response = api.postJson("/streams/orders", deep);
            assertError(response, 400, ErrorCode.MALFORMED_JSON);
            assertThat(response.body().get("message").asText()).startsWith("JSON nested deeper than 128 levels")
                    .contains("line 1, column");
            assertThat(response.body().get("index").asInt()).isZero();

            TestServer.Response ndjson = api.post("/streams/orders", "application/x-ndjson",
                    "{\"order_id\":\"o1\"}\n" + deep + "\n");
            assertThat(ndjson.status()).isEqualTo(400);
            assertThat(ndjson.body().get("message").asText()).startsWith("JSON nested deeper than 128 levels");
            assertThat(ndjson.body().get("index").asInt()).isEqualTo(1);
            assertThat(ndjson.body().get("line").asInt()).isEqualTo(2);
            assertThat(api.head("orders")).isZero();
        }
    }

    @Test
    void aNumberLongerThanTheLimitIs400NamingTheLimitAndOneAtTheLimitIsStoredAsSent() {
        String atLimit = "9".repeat(1000);
        try (TestServer api = TestServer.start(dataDirectory)) {
            TestServer.Response response = api.postJson("/streams/orders", "[{\"order_id\":\"o0\"},"
                    + "{\"order_id\":\"o1\",\"meta\":{\"n\":" + "1".repeat(1001) + "}}]");
            assertError(response, 400, ErrorCode.MALFORMED_JSON);
            assertThat(response.body().get("message").asText())
                    .startsWith("a number longer than 1000 digits (the limit)");
            assertThat(response.body().get("index").asInt()).isEqualTo(1);
            TestServer.Response decimal = api.postJson("/streams/orders", "{\"order_id\":\"o1\",\"meta\":0."
                    + "1".repeat(1001) + "}");
            assertThat(decimal.status()).isEqualTo(400);
            assertThat(api.head("orders")).isZero();

            String event = "{\"order_id\":\"o2\",\"meta\":{\"n\":" + atLimit + "}}";
            assertThat(api.postJson("/streams/orders", event).status()).isEqualTo(200);
            assertThat(raw(api, "/streams/orders/events?after=0")).contains("\"event\":" + event);
        }
    }

    @Test
    void anEventWithAMillionUndeclaredFieldsGetsASmall422WithTheTotalCount() {
        try (TestServer api = TestServer.start(dataDirectory, "--max-body-bytes", "20000000")) {
            HttpResponse<String> response = publishRaw(api, "/streams/orders",
                    millionFields("{\"order_id\":\"o1\"", ""));
            assertThat(response.statusCode()).isEqualTo(422);
            assertThat(response.body().length()).isLessThan(MAX_ERROR_BODY_BYTES);
            JsonNode body = parse(response.body());
            assertThat(body.get("error").asText()).isEqualTo("schema_violation");
            assertThat(body.get("errors")).hasSize(100);
            assertThat(body.get("error_count").asLong()).isEqualTo(ONE_MILLION);
            assertThat(body.get("errors_truncated").asBoolean()).isTrue();
            assertThat(body.get("message").asText()).startsWith("1000000 field error(s) in 1 event(s), the first 100"
                    + " listed");
            assertThat(body.get("errors").get(0).get("field").asText()).isEqualTo("f0");
            assertThat(api.head("orders")).isZero();
        }
    }

    @Test
    void longFieldNamesAreCutAndTheBodyStaysUnder64KiB() {
        // 150 undeclared fields with 10 000-character names full of characters JSON must escape.
        StringBuilder event = new StringBuilder("{\"order_id\":\"o1\"");
        for (int i = 0; i < 150; i++) {
            event.append(",\"").append(i).append("\\u0001".repeat(10_000)).append("\":0");
        }
        try (TestServer api = TestServer.start(dataDirectory)) {
            HttpResponse<String> response = publishRaw(api, "/streams/orders", event.append("}").toString());
            assertThat(response.statusCode()).isEqualTo(422);
            assertThat(response.body().length()).isLessThan(MAX_ERROR_BODY_BYTES);
            JsonNode body = parse(response.body());
            assertThat(body.get("error_count").asLong()).isEqualTo(150);
            assertThat(body.get("errors_truncated").asBoolean()).isTrue();
            assertThat(body.get("errors").size()).isBetween(1, 100);
            for (JsonNode error : body.get("errors")) {
                assertThat(error.get("field").asText()).hasSize(256).endsWith("\u2026");
            }
        }
    }

    @Test
    void errorsOfManyEventsAreCountedInAllAndListedUpTo100() {
        StringBuilder batch = new StringBuilder("[");
        for (int i = 0; i < 300; i++) {
            batch.append(i == 0 ? "" : ",").append("{\"order_id\":\"o").append(i)
                    .append("\",\"total\":\"x\",\"extra\":1}");
        }
        try (TestServer api = TestServer.start(dataDirectory)) {
            TestServer.Response response = api.postJson("/streams/orders", batch.append("]").toString());
            assertThat(response.status()).isEqualTo(422);
            assertThat(response.body().get("error_count").asLong()).isEqualTo(600);
            assertThat(response.body().get("errors")).hasSize(100);
            assertThat(response.body().get("errors").get(99).get("index").asInt()).isEqualTo(49);

            TestServer.Response few = api.postJson("/streams/orders", "{\"order_id\":\"o1\",\"total\":\"x\"}");
            assertThat(few.body().get("error_count").asLong()).isEqualTo(1);
            assertThat(few.body().get("errors_truncated").asBoolean()).isFalse();
            assertThat(few.body().get("message").asText()).startsWith("1 field error(s) in 1 event(s); nothing");
        }
    }

    @Test
    void aQuarantinedEventWithAMillionErrorsStoresTheFirst100AndTheCount() {
        try (TestServer api = TestServer.start(dataDirectory, "--max-body-bytes", "20000000")) {
            HttpRequest publish = api.request("/streams/clicks?verbose=true").header("Content-Type", "application/json")
                    .header("X-Request-Id", "million-1").POST(HttpRequest.BodyPublishers.ofString(millionFields(
                            "{\"click_id\":\"c1\",\"url\":\"/\",\"at\":\"2026-11-29T08:00:00Z\"", ""))).build();
            TestServer.Response published = api.send(publish);
            assertThat(published.status()).isEqualTo(200);
            assertThat(published.body().get("quarantined").asInt()).isEqualTo(1);
            JsonNode verboseErrors = published.body().get("results").get(0).get("errors");
            assertThat(verboseErrors).hasSize(101);
            assertThat(verboseErrors.get(100).get("reason").asText())
                    .isEqualTo("999900 more errors not kept; 1000000 in all");

            JsonNode stored = api.get("/correlate?request_id=million-1").body().get("quarantine").get("items").get(0)
                    .get("errors");
            assertThat(stored).hasSize(101);
            assertThat(stored.get(0).get("field").asText()).isEqualTo("f0");
            assertThat(stored.get(100).get("field").asText()).isEqualTo("...");
            assertThat(stored.get(100).get("reason").asText()).isEqualTo("999900 more errors not kept; 1000000 in all");
        }
    }

    /** {@code prefix} (an object's opening and first fields) followed by a million undeclared fields. */
    private static String millionFields(String prefix, String suffix) {
        StringBuilder event = new StringBuilder(prefix.length() + 12 * ONE_MILLION).append(prefix);
        for (int i = 0; i < ONE_MILLION; i++) {
            event.append(",\"f").append(i).append("\":0");
        }
        return event.append(suffix).append('}').toString();
    }

    private static HttpResponse<String> publishRaw(TestServer api, String path, String body) {
        return send(api, api.request(path).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build());
    }

    private static String raw(TestServer api, String path) {
        return send(api, api.request(path).GET().build()).body();
    }

    private static HttpResponse<String> send(TestServer api, HttpRequest request) {
        try {
            return api.client.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static JsonNode parse(String body) {
        try {
            return TestServer.JSON.readTree(body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
