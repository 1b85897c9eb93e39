package dev.interlace.integration.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.runtime.auth.KeyFile;
import dev.interlace.runtime.auth.Scope;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A web page is a hostile client even on loopback: what a browser lets any page send (simple cross-origin POSTs,
 * {@code Origin: null} from a sandboxed frame, a rebound DNS name) is refused; same-origin pages, clients without an
 * {@code Origin} (curl, services) and origins named with {@code --cors-origins} are served, the last with CORS.
 */
class BrowserAttacksTest {

    @TempDir
    Path dataDirectory;

    @Test
    void crossOriginSimpleRequestsAreRefusedAndNothingIsStored() {
        try (TestServer api = TestServer.start(dataDirectory)) {
            for (String origin : List.of("http://evil.example", "null", "http://127.0.0.1.evil.example",
                    "https://127.0.0.1:" + api.server.port())) {
                TestServer.Response sql = api.send(api.request("/sql").header("Origin", origin)
                        .header("Content-Type", "text/plain")
                        .POST(HttpRequest.BodyPublishers.ofString("SELECT 1")).build());
                assertThat(sql.status()).as("text/plain POST from %s", origin).isEqualTo(403);
                assertThat(sql.body().get("error").asText()).isEqualTo("origin_not_allowed");

                TestServer.Response form = api.send(api.request("/streams/orders").header("Origin", origin)
                        .header("Content-Type", "application/x-www-form-urlencoded")
                        .POST(HttpRequest.BodyPublishers.ofString("order_id=x")).build());
                assertThat(form.status()).as("form POST from %s", origin).isEqualTo(403);

                TestServer.Response lease = api.send(api.request("/streams/orders/consumers/g/lease")
                        .header("Origin", origin).header("Content-Type", "text/plain")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"owner\":\"page\"}")).build());
                assertThat(lease.status()).as("lease from %s", origin).isEqualTo(403);
            }
            assertThat(api.head("orders")).as("nothing a page sent was stored").isZero();
            assertThat(api.get("/streams/orders/consumers").body().get("consumers").findValuesAsText("group"))
                    .as("no group leased by a page").doesNotContain("g");
        }
    }

    @Test
    void sameOriginAndOriginlessRequestsAreServed() {
        try (TestServer api = TestServer.start(dataDirectory)) {
            String self = "http://127.0.0.1:" + api.server.port();
            TestServer.Response sameOrigin = api.send(api.request("/streams/orders").header("Origin", self)
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"order_id\":\"same\"}")).build());
            assertThat(sameOrigin.status()).isEqualTo(200);
            assertThat(sameOrigin.header("Access-Control-Allow-Origin")).isNull();
            assertThat(api.postJson("/streams/orders", "{\"order_id\":\"curl\"}").status()).isEqualTo(200);
        }
    }

    @Test
    void aRebindingHostIsRefusedInOpenMode() {
        try (TestServer api = TestServer.start(dataDirectory)) {
            for (String host : List.of("attacker.example", "attacker.example:" + api.server.port(), "evil")) {
                try (RawClient client = new RawClient(api.server.uri())) {
                    client.write("POST /sql HTTP/1.1\r\nHost: " + host + "\r\nContent-Type: text/plain\r\n"
                            + "Content-Length: 8\r\n\r\nSELECT 1");
                    RawClient.Answer answer = client.read(5_000);
                    assertThat(answer.status()).as("Host %s", host).isEqualTo(421);
                    assertThat(answer.body()).contains("\"host_not_allowed\"");
                }
            }
            for (String host : List.of("localhost:" + api.server.port(), "127.0.0.1", "[::1]:" + api.server.port())) {
                try (RawClient client = new RawClient(api.server.uri())) {
                    client.write("GET /streams HTTP/1.1\r\nHost: " + host + "\r\n\r\n");
                    assertThat(client.read(5_000).status()).as("Host %s", host).isEqualTo(200);
                }
            }
        }
    }

    @Test
    void withKeysTheHostIsCheckedOnlyWhenAllowedHostsAreGiven() {
        try (KeyFile cli = KeyFile.open(dataDirectory)) {
            String secret = cli.create("reader", List.of(Scope.parse("read")), 0).secret();
            try (TestServer api = TestServer.start(dataDirectory)) {
                assertThat(rawGet(api, "proxy.internal", secret)).isEqualTo(200);
            }
            try (TestServer api = TestServer.start(dataDirectory, "--allowed-hosts", "api.example.com")) {
                assertThat(rawGet(api, "proxy.internal", secret)).isEqualTo(421);
                assertThat(rawGet(api, "api.example.com:443", secret)).isEqualTo(200);
            }
        }
    }

    @Test
    void anAllowedOriginGetsAPreflightAndCorsHeaders() {
        try (TestServer api = TestServer.start(dataDirectory, "--cors-origins", "https://app.example")) {
            TestServer.Response preflight = api.send(api.request("/streams/orders")
                    .header("Origin", "https://app.example").header("Access-Control-Request-Method", "POST")
                    .header("Access-Control-Request-Headers", "authorization, content-type")
                    .method("OPTIONS", HttpRequest.BodyPublishers.noBody()).build());
            assertThat(preflight.status()).isEqualTo(204);
            assertThat(preflight.header("Access-Control-Allow-Origin")).isEqualTo("https://app.example");
            assertThat(preflight.header("Access-Control-Allow-Methods")).contains("POST");
            assertThat(preflight.header("Access-Control-Allow-Headers")).contains("Authorization")
                    .contains("Content-Type").contains("X-Request-Id");

            TestServer.Response publish = api.send(api.request("/streams/orders")
                    .header("Origin", "https://app.example").header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"order_id\":\"cors\"}")).build());
            assertThat(publish.status()).isEqualTo(200);
            assertThat(publish.header("Access-Control-Allow-Origin")).isEqualTo("https://app.example");
            assertThat(publish.header("Access-Control-Expose-Headers")).contains("X-Request-Id")
                    .contains("Retry-After");

            TestServer.Response other = api.send(api.request("/streams/orders")
                    .header("Origin", "https://other.example").header("Access-Control-Request-Method", "POST")
                    .method("OPTIONS", HttpRequest.BodyPublishers.noBody()).build());
            assertThat(other.status()).isEqualTo(403);
            assertThat(other.header("Access-Control-Allow-Origin")).isNull();
        }
    }

    private static int rawGet(TestServer api, String host, String secret) {
        try (RawClient client = new RawClient(api.server.uri())) {
            client.write("GET /streams HTTP/1.1\r\nHost: " + host + "\r\nAuthorization: Bearer " + secret
                    + "\r\n\r\n");
            return client.read(5_000).status();
        }
    }
}
