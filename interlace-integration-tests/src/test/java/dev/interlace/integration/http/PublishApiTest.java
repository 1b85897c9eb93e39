package dev.interlace.integration.http;

import static dev.interlace.integration.ApiAnswer.assertError;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.interlace.client.ErrorCode;
import org.junit.jupiter.api.Test;

/** {@code POST /streams/{name}} over real HTTP: bodies, deduplication, drift policies and every error code. */
class PublishApiTest extends ServerPerTest {

    @Test
    void theSeedPostsExampleIsAcceptedThenDeduplicatedWithTheSameOffset() {
        TestServer.Response first = api.postJson("/streams/orders", "{\"order_id\": \"o1\", \"total\": 49.5}");
        assertThat(first.status()).isEqualTo(200);
        assertThat(first.body().get("accepted").asInt()).isEqualTo(1);
        assertThat(first.body().get("deduplicated").asInt()).isZero();
        assertThat(first.body().get("quarantined").asInt()).isZero();
        assertThat(first.body().get("last_offset").asLong()).isEqualTo(1);
        assertThat(first.body().get("request_id").asText()).isEqualTo(first.header("X-Request-Id"));

        TestServer.Response again = api.postJson("/streams/orders", "{\"order_id\": \"o1\", \"total\": 49.5}");
        assertThat(again.status()).isEqualTo(200);
        assertThat(again.body().get("accepted").asInt()).isZero();
        assertThat(again.body().get("deduplicated").asInt()).isEqualTo(1);
        assertThat(again.body().get("last_offset").asLong()).isEqualTo(1);
        assertThat(api.head("orders")).isEqualTo(1);
    }

    @Test
    void anArrayOfEventsGetsDenseOffsetsInOrder() {
        TestServer.Response response = api.postJson("/streams/orders?verbose=true",
                "[{\"order_id\":\"a\"},{\"order_id\":\"b\"},{\"order_id\":\"c\"}]");
        assertThat(response.status()).isEqualTo(200);
        assertThat(response.body().get("accepted").asInt()).isEqualTo(3);
        assertThat(response.body().get("last_offset").asLong()).isEqualTo(3);
        JsonNode results = response.body().get("results");
        for (int i = 0; i < 3; i++) {
            assertThat(results.get(i).get("index").asInt()).isEqualTo(i);
            assertThat(results.get(i).get("status").asText()).isEqualTo("accepted");
            assertThat(results.get(i).get("offset").asLong()).isEqualTo(i + 1);
        }
    }

    @Test
    void theSecondOccurrenceOfAKeyInOneRequestIsADuplicateOfTheFirst() {
        TestServer.Response response = api.postJson("/streams/orders?verbose=true",
                "[{\"order_id\":\"x\"},{\"order_id\":\"y\"},{\"order_id\":\"x\"}]");
        assertThat(response.body().get("accepted").asInt()).isEqualTo(2);
        assertThat(response.body().get("deduplicated").asInt()).isEqualTo(1);
        JsonNode third = response.body().get("results").get(2);
        assertThat(third.get("status").asText()).isEqualTo("duplicate");
        assertThat(third.get("offset").asLong()).isEqualTo(1);
        assertThat(response.body().get("last_offset").asLong()).isEqualTo(2);
    }

    @Test
    void aDuplicateAcrossRequestsReportsTheOriginalOffsetInVerboseResults() {
        api.postJson("/streams/orders", "[{\"order_id\":\"first\"},{\"order_id\":\"second\"}]");
        TestServer.Response retry = api.postJson("/streams/orders?verbose=true",
                "[{\"order_id\":\"second\"},{\"order_id\":\"third\"}]");
        assertThat(retry.body().get("results").get(0).get("status").asText()).isEqualTo("duplicate");
        assertThat(retry.body().get("results").get(0).get("offset").asLong()).isEqualTo(2);
        assertThat(retry.body().get("results").get(1).get("offset").asLong()).isEqualTo(3);
    }

    @Test
    void ndjsonIsOneEventPerLineAndBlankLinesAreSkipped() {
        TestServer.Response response = api.post("/streams/orders", "application/x-ndjson",
                "{\"order_id\":\"n1\"}\n\n{\"order_id\":\"n2\"}\r\n{\"order_id\":\"n3\"}\n");
        assertThat(response.status()).isEqualTo(200);
        assertThat(response.body().get("accepted").asInt()).isEqualTo(3);
    }

    @Test
    void ndjsonErrorsNameTheLine() {
        TestServer.Response response = api.post("/streams/orders", "application/x-ndjson",
                "{\"order_id\":\"n1\"}\n\n{\"order_id\":\"n2\"\n");
        assertError(response, 400, ErrorCode.MALFORMED_JSON);
        assertThat(response.body().get("line").asInt()).isEqualTo(3);
        assertThat(response.body().get("index").asInt()).isEqualTo(1);
        assertThat(api.head("orders")).isZero();
    }

    @Test
    void aGzippedBodyIsAccepted() {
        TestServer.Response response = api.postGzip("/streams/orders", "[{\"order_id\":\"g1\"},{\"order_id\":\"g2\"}]");
        assertThat(response.status()).isEqualTo(200);
        assertThat(response.body().get("accepted").asInt()).isEqualTo(2);
    }

    @Test
    void bodiesJustUnderAndJustOverTheSizeParsedOnTheIoThreadAreServedAlike() {
        // Up to 16 KiB uncompressed, a publish is parsed on the event loop that read it; beyond, on a worker.
        for (int size : new int[] {16 * 1024, 16 * 1024 + 1}) {
            StringBuilder events = new StringBuilder("[");
            int count = 0;
            while (events.length() < size - 64) {
                events.append(count == 0 ? "" : ",").append("{\"order_id\":\"s").append(size).append('-')
                        .append(count++).append("\",\"total\":1.5}");
            }
            events.append(']');
            String body = events + " ".repeat(size - events.length()); // trailing whitespace: still one JSON array
            assertThat(body).hasSize(size);
            long headBefore = api.head("orders");

            TestServer.Response first = api.postJson("/streams/orders", body);
            assertThat(first.status()).as("%d bytes", size).isEqualTo(200);
            assertThat(first.body().get("accepted").asInt()).isEqualTo(count);
            assertThat(first.body().get("last_offset").asLong()).isEqualTo(headBefore + count);
            assertThat(first.body().get("request_id").asText()).isEqualTo(first.header("X-Request-Id"));

            TestServer.Response retry = api.postJson("/streams/orders", body);
            assertThat(retry.status()).isEqualTo(200);
            assertThat(retry.body().get("deduplicated").asInt()).isEqualTo(count);
            assertThat(retry.body().get("last_offset").asLong()).isEqualTo(headBefore + count);

            TestServer.Response malformed = api.postJson("/streams/orders", body.replace("}]", "]]"));
            assertError(malformed, 400, ErrorCode.MALFORMED_JSON);
            assertThat(api.head("orders")).isEqualTo(headBefore + count);
        }
    }

    @Test
    void anEmptyBodyOrArrayIsAcknowledgedWithZeroCounts() {
        for (String body : new String[] {"", "[]", "  \n"}) {
            TestServer.Response response = api.postJson("/streams/orders", body);
            assertThat(response.status()).isEqualTo(200);
            assertThat(response.body().get("accepted").asInt()).isZero();
            assertThat(response.body().get("last_offset").isNull()).isTrue();
        }
    }

    @Test
    void mediaTypesAreMatchedCaseInsensitivelyAndCharsetMustBeUtf8() {
        assertThat(api.post("/streams/orders", "Application/JSON; charset=UTF-8", "{\"order_id\":\"m1\"}").status())
                .isEqualTo(200);
        TestServer.Response latin = api.post("/streams/orders", "application/json; charset=ISO-8859-1",
                "{\"order_id\":\"m2\"}");
        assertError(latin, 415, ErrorCode.UNSUPPORTED_MEDIA_TYPE);
        assertThat(api.post("/streams/orders", "text/plain", "{\"order_id\":\"m3\"}").status()).isEqualTo(415);
    }

    @Test
    void aMissingContentTypeIs415() {
        TestServer.Response response = api.send(api.request("/streams/orders")
                .POST(java.net.http.HttpRequest.BodyPublishers.ofString("{\"order_id\":\"x\"}")).build());
        assertThat(response.status()).isEqualTo(415);
        assertThat(response.body().get("message").asText()).contains("application/json");
    }

    @Test
    void anUnsupportedContentEncodingIs415() {
        TestServer.Response response = api.send(api.request("/streams/orders")
                .header("Content-Type", "application/json").header("Content-Encoding", "br")
                .POST(java.net.http.HttpRequest.BodyPublishers.ofString("{}")).build());
        assertThat(response.status()).isEqualTo(415);
    }

    @Test
    void malformedJsonIs400AndNothingIsStored() {
        TestServer.Response response = api.postJson("/streams/orders", "[{\"order_id\":\"ok\"},{\"order_id\":]");
        assertError(response, 400, ErrorCode.MALFORMED_JSON);
        assertThat(response.body().get("index").asInt()).isEqualTo(1);
        assertThat(response.body().get("request_id").asText()).isNotBlank();
        assertThat(api.head("orders")).isZero();
    }

    @Test
    void anArrayElementThatIsNotAnObjectIs400WithItsIndex() {
        TestServer.Response response = api.postJson("/streams/orders", "[{\"order_id\":\"ok\"}, 42]");
        assertError(response, 400, ErrorCode.NOT_AN_OBJECT);
        assertThat(response.body().get("index").asInt()).isEqualTo(1);
        assertThat(api.postJson("/streams/orders", "\"just a string\"").body().get("error").asText())
                .isEqualTo("not_an_object");
    }

    @Test
    void aDuplicateFieldIs400NamingTheField() {
        TestServer.Response response = api.postJson("/streams/orders",
                "{\"order_id\":\"a\",\"total\":1,\"total\":2}");
        assertError(response, 400, ErrorCode.DUPLICATE_FIELD);
        assertThat(response.body().get("field").asText()).isEqualTo("total");
        assertThat(api.head("orders")).isZero();
    }

    @Test
    void anUnknownStreamIs404() {
        TestServer.Response response = api.postJson("/streams/nope", "{}");
        assertError(response, 404, ErrorCode.UNKNOWN_STREAM);
        assertThat(api.get("/streams/nope").status()).isEqualTo(404);
    }

    @Test
    void rejectListsEveryFailingEventAndStoresNothing() {
        TestServer.Response response = api.postJson("/streams/orders",
                "[{\"order_id\":\"good\"},{\"total\":\"abc\"},{\"order_id\":\"c\",\"colour\":\"red\"}]");
        assertError(response, 422, ErrorCode.SCHEMA_VIOLATION);
        JsonNode errors = response.body().get("errors");
        assertThat(errors).hasSize(3);
        assertThat(errors.get(0).get("index").asInt()).isEqualTo(1);
        assertThat(errors.get(0).get("field").asText()).isEqualTo("total");
        assertThat(errors.get(1).get("index").asInt()).isEqualTo(1);
        assertThat(errors.get(1).get("field").asText()).isEqualTo("order_id");
        assertThat(errors.get(2).get("index").asInt()).isEqualTo(2);
        assertThat(errors.get(2).get("field").asText()).isEqualTo("colour");
        assertThat(errors.get(2).get("reason").asText()).contains("not a declared column");
        assertThat(api.head("orders")).isZero();
    }

    @Test
    void quarantineAcceptsTheGoodEventsAndKeepsTheBadOnesAside() {
        TestServer.Response response = api.postJson("/streams/clicks?verbose=true",
                "[{\"click_id\":\"c1\",\"url\":\"/a\",\"at\":\"2026-11-29T08:00:00Z\"},"
                        + "{\"click_id\":\"c2\",\"url\":\"/b\",\"at\":\"yesterday\"},"
                        + "{\"click_id\":\"c3\",\"url\":\"/c\",\"at\":\"2026-11-29T08:00:01+01:00\"}]");
        assertThat(response.status()).isEqualTo(200);
        assertThat(response.body().get("accepted").asInt()).isEqualTo(2);
        assertThat(response.body().get("quarantined").asInt()).isEqualTo(1);
        assertThat(response.body().get("last_offset").asLong()).isEqualTo(2);
        JsonNode bad = response.body().get("results").get(1);
        assertThat(bad.get("status").asText()).isEqualTo("quarantined");
        assertThat(bad.get("errors").get(0).get("field").asText()).isEqualTo("at");
        JsonNode stream = api.get("/streams/clicks").body();
        assertThat(stream.get("head").asLong()).isEqualTo(2);
        assertThat(stream.get("quarantined").asLong()).isEqualTo(1);
        assertThat(stream.get("pending").asLong()).isBetween(0L, 3L);
        JsonNode flushed = api.awaitFlushed("clicks");
        assertThat(flushed.get("pending").asLong()).isZero();
        assertThat(flushed.get("watermark").asLong()).isEqualTo(2);
    }

    @Test
    void evolveAcceptsUndeclaredFieldsButStillChecksDeclaredOnes() {
        TestServer.Response accepted = api.postJson("/streams/decoding_evolving",
                "{\"s\":\"x\",\"n\":1,\"colour\":\"red\",\"size\":3}");
        assertThat(accepted.status()).isEqualTo(200);
        assertThat(accepted.body().get("accepted").asInt()).isEqualTo(1);
        TestServer.Response rejected = api.postJson("/streams/decoding_evolving", "{\"s\":\"x\",\"n\":1.5}");
        assertThat(rejected.status()).isEqualTo(422);
        assertThat(rejected.body().get("errors").get(0).get("field").asText()).isEqualTo("n");
        JsonNode recent = api.get("/streams/decoding_evolving").body().get("recent").get(0);
        assertThat(recent.get("event").get("colour").asText()).isEqualTo("red");
    }

    @Test
    void aClientRequestIdIsKeptAndABadOneIsReplaced() {
        TestServer.Response kept = api.send(api.request("/streams/orders")
                .header("Content-Type", "application/json").header("X-Request-Id", "webhook-42:retry.1")
                .POST(java.net.http.HttpRequest.BodyPublishers.ofString("{\"order_id\":\"r1\"}")).build());
        assertThat(kept.body().get("request_id").asText()).isEqualTo("webhook-42:retry.1");
        assertThat(kept.header("X-Request-Id")).isEqualTo("webhook-42:retry.1");
        assertThat(api.get("/streams/orders").body().get("recent").get(0).get("request_id").asText())
                .isEqualTo("webhook-42:retry.1");

        for (String bad : new String[] {"flush-123", "boot-1", "has space", "x".repeat(129), "é"}) {
            TestServer.Response replaced = api.send(api.request("/streams/orders")
                    .header("Content-Type", "application/json").header("X-Request-Id", bad)
                    .POST(java.net.http.HttpRequest.BodyPublishers.ofString("{\"order_id\":\"r2\"}")).build());
            assertThat(replaced.status()).isEqualTo(200);
            assertThat(replaced.body().get("request_id").asText()).isNotEqualTo(bad).matches("[0-9A-Z]{26}");
        }
    }

    @Test
    void aKeylessEventIsAcceptedAndNeverDeduplicated() {
        TestServer.Response first = api.postJson("/streams/decoding_evolving", "{\"n\":1}");
        TestServer.Response second = api.postJson("/streams/decoding_evolving", "{\"n\":1}");
        assertThat(first.body().get("accepted").asInt()).isEqualTo(1);
        assertThat(second.body().get("accepted").asInt()).isEqualTo(1);
        assertThat(second.body().get("last_offset").asLong()).isEqualTo(2);
    }
}
