package dev.interlace.integration.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** An evolving stream's undeclared fields become columns whose types widen instead of stalling the stream. */
class EvolveTest {

    @TempDir
    Path dataDirectory;

    private static JsonNode sql(TestServer api, String query) {
        TestServer.Response response = api.post("/sql", "text/plain", query);
        assertThat(response.status()).as(response.body().toString()).isEqualTo(200);
        return response.body();
    }

    @Test
    void undeclaredFieldsBecomeTypedColumnsThatWidenAcrossBatches() {
        try (TestServer api = TestServer.start(dataDirectory)) {
            api.postJson("/streams/decoding_evolving", "[{\"s\":\"a\",\"n\":1,\"size\":3,\"colour\":\"red\","
                    + "\"ok\":true,\"tags\":[1,2]}]");
            api.awaitFlushed("decoding_evolving");
            JsonNode stream = api.get("/streams/decoding_evolving").body();
            assertThat(stream.get("schema").toString()).isEqualTo("{\"s\":\"string\",\"n\":\"bigint not null\","
                    + "\"size\":\"bigint\",\"colour\":\"string\",\"ok\":\"boolean\",\"tags\":\"json\"}");
            assertThat(stream.get("evolved_columns").toString()).isEqualTo("[\"size\",\"colour\",\"ok\",\"tags\"]");

            api.postJson("/streams/decoding_evolving", "[{\"s\":\"b\",\"n\":2,\"size\":3.5,\"ok\":\"maybe\"},"
                    + "{\"s\":\"c\",\"n\":3,\"size\":null,\"weight\":70}]");
            api.awaitFlushed("decoding_evolving");
            JsonNode widened = api.get("/streams/decoding_evolving").body().get("schema");
            assertThat(widened.get("size").asText()).isEqualTo("double");
            assertThat(widened.get("ok").asText()).isEqualTo("string");
            assertThat(widened.get("weight").asText()).isEqualTo("bigint");

            JsonNode rows = sql(api, "SELECT s, size, ok, tags, weight FROM streams.decoding_evolving ORDER BY _offset")
                    .get("rows");
            assertThat(rows.toString()).isEqualTo("[[\"a\",3.0,\"true\",[1,2],null],[\"b\",3.5,\"maybe\",null,null],"
                    + "[\"c\",null,null,null,70]]");
        }
    }

    @Test
    void theEvolvedSchemaSurvivesARestart() {
        try (TestServer api = TestServer.start(dataDirectory)) {
            api.postJson("/streams/decoding_evolving", "{\"s\":\"a\",\"n\":1,\"size\":3}");
            api.awaitFlushed("decoding_evolving");
        }
        try (TestServer api = TestServer.start(dataDirectory)) {
            api.postJson("/streams/decoding_evolving", "{\"s\":\"b\",\"n\":2,\"size\":4}");
            api.awaitFlushed("decoding_evolving");
            assertThat(api.get("/streams/decoding_evolving").body().get("schema").get("size").asText())
                    .isEqualTo("bigint");
            assertThat(sql(api, "SELECT sum(size) FROM streams.decoding_evolving").get("rows").get(0).get(0)
                    .toString()).isEqualTo("7");
        }
    }
}
