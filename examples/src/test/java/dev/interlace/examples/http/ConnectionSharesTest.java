package dev.interlace.examples.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.interlace.runtime.http.HttpTransport;
import dev.interlace.runtime.http.netty.NettyTransport;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One client cannot take every connection: an address holds at most {@code --max-connections-per-address}, a
 * connection that sends nothing is closed within seconds, {@code /health/*} is answered on a small reserve once a
 * limit is reached, every other client address is served as usual, and each refusal is counted in {@code /metrics}.
 * Two loopback addresses stand for two clients (Linux routes all of 127.0.0.0/8 to the loopback interface).
 */
class ConnectionSharesTest {

    private static final InetAddress GREEDY = address("127.0.0.1");
    private static final InetAddress OTHER = address("127.0.0.2");
    private static final String PUBLISH = "POST /streams/orders HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            + "Content-Type: application/json\r\nContent-Length: 18\r\n\r\n{\"order_id\":\"o-1\"}";

    @TempDir
    Path dataDirectory;

    @Test
    void oneAddressGetsItsShareAndNoMoreWhileHealthAndOtherAddressesAreServed() {
        try (TestServer api = TestServer.start(dataDirectory, "--max-connections-per-address", "4")) {
            URI uri = api.server.uri();
            List<RawClient> idle = new ArrayList<>();
            try {
                for (int i = 0; i < 4; i++) {
                    idle.add(new RawClient(uri, GREEDY));
                }
                awaitOpen(api, 4);

                try (RawClient over = new RawClient(uri, GREEDY)) {
                    over.write(PUBLISH);
                    RawClient.Answer refused = over.read(5_000);
                    assertTooManyConnections(refused, "--max-connections-per-address");
                    assertThat(refused.closed() || over.closedWithin(2_000)).as("closed after the 503").isTrue();
                }
                try (RawClient probe = new RawClient(uri, GREEDY)) {
                    probe.write("GET /health/live HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
                    RawClient.Answer live = probe.read(5_000);
                    assertThat(live.status()).as(live.head()).isEqualTo(200);
                    assertThat(live.closed() || probe.closedWithin(2_000)).as("one answer, then closed").isTrue();
                }

                // Beyond its few places in the reserve, the address's connections are refused as they open.
                for (int i = 0; i < 4; i++) {
                    idle.add(new RawClient(uri, GREEDY));
                }
                awaitOpen(api, 8);
                try (RawClient beyond = new RawClient(uri, GREEDY)) {
                    RawClient.Answer refused = beyond.read(5_000);
                    assertTooManyConnections(refused, "--max-connections-per-address");
                    assertThat(refused.closed() || beyond.closedWithin(2_000)).as("closed after the 503").isTrue();
                }

                try (RawClient other = new RawClient(uri, OTHER)) {
                    other.write(PUBLISH);
                    RawClient.Answer published = other.read(5_000);
                    assertThat(published.status()).as(published.body()).isEqualTo(200);
                    assertThat(json(published.body()).get("accepted").asInt()).isEqualTo(1);
                }

                // Connections that never sent a byte are closed in seconds (the default is 10 s), not after a minute.
                for (RawClient connection : idle) {
                    assertThat(connection.closedWithin(15_000)).as("an idle connection closed by the server").isTrue();
                }
            } finally {
                idle.forEach(RawClient::close);
            }
            awaitOpen(api, 0);

            PrometheusText metrics = metrics(uri);
            assertThat(metrics.value("interlace_http_connections_refused_total", "limit",
                    "max_connections_per_address")).as("the publish and the connection beyond the reserve")
                    .isEqualTo(2);
            assertThat(metrics.value("interlace_http_connections_refused_total", "limit", "max_connections"))
                    .isEqualTo(0);
        }
    }

    @Test
    void aFullServerStillAnswersHealthFromAnyAddressAndRefusesTheRest() {
        try (TestServer api = TestServer.start(dataDirectory, "--max-connections", "3")) {
            URI uri = api.server.uri();
            List<RawClient> idle = new ArrayList<>();
            try {
                for (int i = 0; i < 3; i++) {
                    idle.add(new RawClient(uri, GREEDY));
                }
                awaitOpen(api, 3);
                try (RawClient probe = new RawClient(uri, OTHER)) {
                    probe.write("GET /health/ready HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
                    RawClient.Answer ready = probe.read(5_000);
                    assertThat(ready.status()).as(ready.body()).isEqualTo(200);
                }
                try (RawClient other = new RawClient(uri, OTHER)) {
                    other.write(PUBLISH);
                    assertTooManyConnections(other.read(5_000), "--max-connections");
                }
            } finally {
                idle.forEach(RawClient::close);
            }
            awaitOpen(api, 0);
            try (RawClient other = new RawClient(uri, OTHER)) {
                other.write(PUBLISH);
                assertThat(other.read(5_000).status()).as("served again once places are free").isEqualTo(200);
            }
            assertThat(metrics(uri).value("interlace_http_connections_refused_total", "limit", "max_connections"))
                    .isEqualTo(1);
        }
    }

    private static void assertTooManyConnections(RawClient.Answer answer, String flag) {
        assertThat(answer).as("an answer").isNotNull();
        assertThat(answer.status()).as(answer.body()).isEqualTo(503);
        JsonNode body = json(answer.body());
        assertThat(body.get("error").asText()).isEqualTo("too_many_connections");
        assertThat(body.get("message").asText()).contains(flag);
        assertThat(answer.head()).contains("Retry-After: 1");
    }

    /** Waits until the server counts {@code expected} open connections (an event loop counts one as it takes it up). */
    private static void awaitOpen(TestServer api, int expected) {
        NettyTransport transport = (NettyTransport) api.server.instance(HttpTransport.class);
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (transport.openConnections() != expected) {
            assertThat(System.nanoTime()).as("open connections reach " + expected + ", now "
                    + transport.openConnections()).isLessThan(deadline);
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    private static PrometheusText metrics(URI uri) {
        try (RawClient client = new RawClient(uri, OTHER)) {
            client.write("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
            RawClient.Answer answer = client.read(10_000);
            assertThat(answer.status()).isEqualTo(200);
            return PrometheusText.parse(answer.body());
        }
    }

    private static JsonNode json(String text) {
        try {
            return TestServer.JSON.readTree(text);
        } catch (java.io.IOException e) {
            throw new AssertionError("not JSON: " + text, e);
        }
    }

    private static InetAddress address(String literal) {
        try {
            return InetAddress.getByName(literal);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }
}
