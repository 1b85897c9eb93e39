package dev.interlace.integration.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Events read back are the stored JSON, byte for byte: numbers a double cannot hold ({@code 49.50},
 * {@code 0.1000000000000000055}, a 400-digit integer, {@code 1e999999}) come back as sent through every read route.
 */
class FaithfulReadsTest {

    private static final String FOUR_HUNDRED_DIGITS = "1234567890".repeat(40);
    /** Numbers a default JSON reader changes: trailing zero, beyond double precision, 400 digits, beyond double range. */
    private static final String NUMBERS = "{\"scaled\":49.50,\"precise\":0.1000000000000000055,\"long\":"
            + FOUR_HUNDRED_DIGITS + ",\"huge\":1e999999,\"nested\":[-0.0,1E-400,{\"x\":12345678901234567890}]}";

    @TempDir
    Path dataDirectory;

    @Test
    void recentAndEventsAnswerTheStoredBytesOfAJsonColumn() {
        String event = "{\"order_id\":\"o1\",\"total\":49.50,\"meta\":" + NUMBERS + "}";
        try (TestServer api = TestServer.start(dataDirectory)) {
            assertThat(api.postJson("/streams/orders", event).status()).isEqualTo(200);

            String recent = raw(api, "/streams/orders");
            assertThat(recent).contains("\"event\":" + event);
            String events = raw(api, "/streams/orders/events?after=0");
            assertThat(events).contains("\"event\":" + event);
            // Still one valid JSON document around the embedded event, read exactly by a careful client.
            JsonNode meta = api.get("/streams/orders/events?after=0").body().get("events").get(0).get("event")
                    .get("meta");
            assertThat(meta.get("scaled").decimalValue().toPlainString()).isEqualTo("49.50");
            assertThat(meta.get("precise").decimalValue().toPlainString()).isEqualTo("0.1000000000000000055");
            assertThat(meta.get("long").bigIntegerValue().toString()).isEqualTo(FOUR_HUNDRED_DIGITS);
        }
    }

    @Test
    void undeclaredFieldsOfAnEvolvingStreamAreAnsweredAsSent() {
        String event = "{\"s\":\"a\",\"n\":1,\"extra\":" + NUMBERS + ",\"price\":49.50}";
        try (TestServer api = TestServer.start(dataDirectory)) {
            assertThat(api.postJson("/streams/decoding_evolving", event).status()).isEqualTo(200);

            assertThat(raw(api, "/streams/decoding_evolving")).contains("\"event\":" + event);
            assertThat(raw(api, "/streams/decoding_evolving/events?after=0")).contains("\"event\":" + event);
        }
    }

    @Test
    void aQuarantinedEventIsAnsweredAsSentByCorrelate() {
        String event = "{\"click_id\":\"c1\",\"url\":\"/\",\"at\":\"2026-11-29T08:00:00Z\",\"price\":" + NUMBERS
                + "}";
        try (TestServer api = TestServer.start(dataDirectory)) {
            HttpRequest publish = api.request("/streams/clicks").header("Content-Type", "application/json")
                    .header("X-Request-Id", "faithful-1").POST(HttpRequest.BodyPublishers.ofString(event)).build();
            JsonNode published = api.send(publish).body();
            assertThat(published.get("quarantined").asInt()).isEqualTo(1);

            String correlate = raw(api, "/correlate?request_id=faithful-1");
            assertThat(correlate).contains("\"event\":" + event);
            JsonNode item = api.get("/correlate?request_id=faithful-1").body().get("quarantine").get("items").get(0);
            assertThat(item.get("errors").get(0).get("field").asText()).isEqualTo("price");
        }
    }

    @Test
    void eventsSentWithWhitespaceComeBackWithIt() {
        String event = "{ \"order_id\" : \"o2\",\n  \"total\" : 0.10 }";
        try (TestServer api = TestServer.start(dataDirectory)) {
            assertThat(api.postJson("/streams/orders", event).status()).isEqualTo(200);

            assertThat(raw(api, "/streams/orders/events?after=0")).contains("\"event\":" + event);
        }
    }

    private static String raw(TestServer api, String path) {
        try {
            HttpResponse<String> response = api.client.send(api.request(path).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode()).as(path).isEqualTo(200);
            return response.body();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
