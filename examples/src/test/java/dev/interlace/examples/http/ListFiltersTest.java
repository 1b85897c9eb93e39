package dev.interlace.examples.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every list route parses its query the same way: a parameter it does not know, or a value it cannot use, is
 * {@code 400 invalid_filter}, and the message of an unknown one names the route's filters.
 */
class ListFiltersTest {

    @TempDir
    Path dataDirectory;

    private TestServer api;

    @BeforeEach
    void start() {
        api = TestServer.start(dataDirectory);
    }

    @AfterEach
    void stop() {
        api.close();
    }

    private String refusedAsInvalidFilter(String path) {
        TestServer.Response response = api.get(path);
        assertThat(response.status()).as(path).isEqualTo(400);
        JsonNode body = response.body();
        assertThat(body.get("error").asText()).as(path).isEqualTo("invalid_filter");
        return body.get("message").asText();
    }

    @Test
    void runsRefuseAnUnknownFilterNamingTheKnownOnes() {
        assertThat(refusedAsInvalidFilter("/runs?foo=1"))
                .isEqualTo("unknown filter foo; filters: limit, model, since, status, trigger, until");
        assertThat(refusedAsInvalidFilter("/runs?limit=many")).isEqualTo("limit must be between 1 and 1000");
    }

    @Test
    void streamsRefuseAnyFilter() {
        assertThat(refusedAsInvalidFilter("/streams?foo=1")).isEqualTo("unknown filter foo; filters: none");
    }

    @Test
    void eventsRefuseAnUnknownFilterNamingTheKnownOnesAndABadValueWithTheSameCode() {
        assertThat(refusedAsInvalidFilter("/streams/orders/events?foo=1"))
                .isEqualTo("unknown filter foo; filters: after, limit, wait_ms");
        assertThat(refusedAsInvalidFilter("/streams/orders/events?limit=0")).isEqualTo("limit must be between 1"
                + " and 1000");
        assertThat(refusedAsInvalidFilter("/streams/orders/events?after=x"))
                .isEqualTo("after must be a whole number, got x");
    }

    @Test
    void consumersRefuseAnyFilter() {
        assertThat(refusedAsInvalidFilter("/streams/orders/consumers?foo=1"))
                .isEqualTo("unknown filter foo; filters: none");
    }

    @Test
    void recordListsAndCorrelateRefuseAnUnknownFilterNamingTheKnownOnes() {
        assertThat(refusedAsInvalidFilter("/logs/api?foo=1"))
                .isEqualTo("unknown filter foo; filters: limit, request_id, since, status, stream, until");
        assertThat(refusedAsInvalidFilter("/logs/sys?foo=1"))
                .isEqualTo("unknown filter foo; filters: event, id, limit, since, stream, until");
        assertThat(refusedAsInvalidFilter("/correlate?foo=1"))
                .isEqualTo("unknown filter foo; filters: key, request_id, stream");
        assertThat(refusedAsInvalidFilter("/logs/sys?since=yesterday")).startsWith("since must be RFC 3339");
    }
}
