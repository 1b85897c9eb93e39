package dev.interlace.integration.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpRequest;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;

/**
 * Requests that are not what they claim to be, against the real server: a chunked body whose framing breaks, control
 * bytes in the request target, a body in UTF-16 or UTF-32, garbage after a gzip body, a pipelined burst, a bad key
 * on a route that needs none. Each gets its own JSON answer, never a 500 or an empty reply, and nothing of a refused
 * request is stored.
 */
class MalformedRequestsTest extends ServerPerTest {

    private static final int WAIT_MS = 10_000;

    @Test
    void anNdjsonPublishWhoseChunkedFramingBreaksAfterAValidChunkIs400AndStoresNothing() {
        try (RawClient client = new RawClient(api.server.uri())) {
            String lines = "{\"order_id\":\"c1\"}\n{\"order_id\":\"c2\"}\n";
            client.write("POST /streams/orders HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-ndjson\r\n"
                    + "Transfer-Encoding: chunked\r\n\r\n" + Integer.toHexString(lines.length()) + "\r\n" + lines
                    + "\r\nnot-hex\r\n{\"order_id\":\"c3\"}\n\r\n0\r\n\r\n");
            RawClient.Answer answer = client.read(WAIT_MS);
            assertThat(answer.status()).isEqualTo(400);
            assertThat(json(answer.body()).get("error").asText()).isEqualTo("bad_request");
            assertThat(answer.closed() || client.closedWithin(WAIT_MS)).as("the connection is closed").isTrue();
        }
        TestServer.Response next = api.postJson("/streams/orders", "{\"order_id\":\"after\"}");
        assertThat(next.body().get("last_offset").asLong()).as("nothing of the broken request was stored")
                .isEqualTo(1);
    }

    @Test
    void controlBytesInTheRequestTargetAre400AndNoneReachesTheRefusedRequestsRecord() {
        try (RawClient client = new RawClient(api.server.uri())) {
            client.write("GET /streams/\u001b[2J\u001b[Horders HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
            RawClient.Answer answer = client.read(WAIT_MS);
            assertThat(answer.status()).isEqualTo(400);
            assertThat(json(answer.body()).get("error").asText()).isEqualTo("bad_request");
        }
        JsonNode refused = api.get("/logs/api?status=400").body().get("requests");
        assertThat(refused).isNotEmpty();
        for (JsonNode request : refused) {
            assertThat(request.path("path").asText()).as("the target as recorded")
                    .doesNotContainPattern("[\\x00-\\x1f\\x7f]");
        }
    }

    @Test
    void aUtf16OrUtf32BodyIs415NamingItsEncodingAndNothingIsStored() {
        String events = "[{\"order_id\":\"u1\"}]";
        String lines = "{\"order_id\":\"u1\"}\n{\"order_id\":\"u2\"}\n";
        for (String encoding : List.of("UTF-16LE", "UTF-16BE", "UTF-32LE", "UTF-32BE")) {
            for (boolean byteOrderMark : List.of(false, true)) {
                String prefix = byteOrderMark ? "\uFEFF" : "";
                for (String[] body : List.of(new String[] {"application/json", events},
                        new String[] {"application/x-ndjson", lines})) {
                    String what = encoding + (byteOrderMark ? " with BOM, " : ", ") + body[0];
                    TestServer.Response response = api.send(api.request("/streams/orders")
                            .header("Content-Type", body[0])
                            .POST(HttpRequest.BodyPublishers.ofByteArray(
                                    (prefix + body[1]).getBytes(Charset.forName(encoding)))).build());
                    assertThat(response.status()).as(what).isEqualTo(415);
                    assertThat(response.body().get("error").asText()).as(what).isEqualTo("unsupported_media_type");
                    assertThat(response.body().get("message").asText()).as(what).contains(encoding)
                            .contains("UTF-8");
                }
            }
        }
        assertThat(api.head("orders")).isZero();
    }

    @Test
    void bytesAfterTheEndOfAGzipBodyAre400AndNothingIsStored() {
        byte[] gzipped = gzip("{\"order_id\":\"z1\"}");
        byte[] withGarbage = concat(gzipped, "trailing garbage".getBytes(StandardCharsets.US_ASCII));
        TestServer.Response refused = postGzipped("application/json", withGarbage);
        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.body().get("message").asText()).contains("after the gzip data");
        assertThat(api.head("orders")).isZero();

        TestServer.Response twoMembers = postGzipped("application/x-ndjson",
                concat(gzip("{\"order_id\":\"z1\"}\n"), gzip("{\"order_id\":\"z2\"}\n")));
        assertThat(twoMembers.status()).as("two gzip members, one after the other, are one body (RFC 1952)")
                .isEqualTo(200);
        assertThat(twoMembers.body().get("accepted").asInt()).isEqualTo(2);
    }

    @Test
    void eighteenPipelinedRequestsGetEighteenAnswersInOrder() {
        int count = 18;
        try (RawClient client = new RawClient(api.server.uri())) {
            client.write("GET /health/live HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".repeat(count));
            for (int i = 1; i <= count; i++) {
                RawClient.Answer answer = client.read(WAIT_MS);
                assertThat(answer).as("answer %d", i).isNotNull();
                assertThat(answer.status()).as("answer %d", i).isIn(200, 429);
                if (answer.status() == 429) {
                    assertThat(json(answer.body()).get("error").asText()).isEqualTo("too_many_pipelined");
                }
            }
        }
    }

    @Test
    void aBadKeyDoesNotCloseTheHealthRoutesOrTheConsole() {
        for (String authorization : List.of("Bearer ilk_" + "A".repeat(43), "Basic dXNlcjpwYXNz", "Bearer")) {
            for (String path : List.of("/health/live", "/health/ready", "/ui", "/ui/index.html")) {
                TestServer.Response response = api.send(api.request(path).header("Authorization", authorization)
                        .GET().build());
                assertThat(response.status()).as("%s with %s", path, authorization).isIn(200, 503);
            }
        }
        TestServer.Response guarded = api.send(api.request("/streams").header("Authorization",
                "Bearer ilk_" + "A".repeat(43)).GET().build());
        assertThat(guarded.status()).as("a route that needs a key still refuses a bad one").isEqualTo(401);
    }

    private TestServer.Response postGzipped(String contentType, byte[] body) {
        return api.send(api.request("/streams/orders").header("Content-Type", contentType)
                .header("Content-Encoding", "gzip").POST(HttpRequest.BodyPublishers.ofByteArray(body)).build());
    }

    private static byte[] gzip(String text) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (GZIPOutputStream gzip = new GZIPOutputStream(bytes)) {
            gzip.write(text.getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    private static byte[] concat(byte[] first, byte[] second) {
        ByteArrayOutputStream joined = new ByteArrayOutputStream();
        joined.writeBytes(first);
        joined.writeBytes(second);
        return joined.toByteArray();
    }

    private static JsonNode json(String body) {
        try {
            return TestServer.JSON.readTree(body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
