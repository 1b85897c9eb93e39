package dev.interlace.integration.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.interlace.runtime.testing.Eventually;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
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
                api.awaitOpenConnections("reach 4", open -> open == 4);

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

                // Beyond its few places in the reserve, a new connection takes the place of the address's oldest
                // one that has sent nothing, which is answered 503 and closed: the address's probe still gets in.
                // One at a time: two event loops take connections up, not always in the order they were opened,
                // and "oldest" is the order the server took them up in.
                api.awaitOpenConnections("reach 4", open -> open == 4);
                for (int i = 0; i < 4; i++) {
                    idle.add(new RawClient(uri, GREEDY));
                    api.awaitOpenConnections("reach " + idle.size(), open -> open == idle.size());
                }
                try (RawClient beyond = new RawClient(uri, GREEDY)) {
                    RawClient oldest = idle.get(4);
                    RawClient.Answer refused = oldest.read(5_000);
                    assertTooManyConnections(refused, "--max-connections-per-address");
                    assertThat(refused.closed() || oldest.closedWithin(2_000)).as("closed after the 503").isTrue();
                    beyond.write("GET /health/live HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
                    RawClient.Answer live = beyond.read(5_000);
                    assertThat(live.status()).as(live.head()).isEqualTo(200);
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
            api.awaitOpenConnections("reach 0", open -> open == 0);

            PrometheusText metrics = metrics(uri);
            assertThat(metrics.value("interlace_http_connections_refused_total", "limit",
                    "max_connections_per_address")).as("the publish and the silent connection whose place was taken")
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
                api.awaitOpenConnections("reach 3", open -> open == 3);
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
            api.awaitOpenConnections("reach 0", open -> open == 0);
            try (RawClient other = new RawClient(uri, OTHER)) {
                other.write(PUBLISH);
                assertThat(other.read(5_000).status()).as("served again once places are free").isEqualTo(200);
            }
            assertThat(metrics(uri).value("interlace_http_connections_refused_total", "limit", "max_connections"))
                    .isEqualTo(1);
        }
    }

    /**
     * The attack as it came: a server in a JVM of its own with small limits, and one address opening many more
     * sockets than it may hold, sending nothing on them. Its own liveness probe, another address's probe and
     * another address's publish are answered while the sockets are held, and every socket refused is counted.
     */
    @Test
    void manySocketsFromOneAddressLeaveAServerInItsOwnJvmAnsweringHealthAndOtherAddresses() throws Exception {
        int sockets = 200;
        Process server = new ProcessBuilder(SmallHeapFloodTest.java(), "-Xmx128m", "-XX:+UseSerialGC", "-cp",
                System.getProperty("java.class.path"), dev.interlace.runtime.cli.Main.class.getName(), "serve",
                "--port", "0", "--data-dir", dataDirectory.resolve("data").toString(), "--max-connections", "64",
                "--max-connections-per-address", "16")
                .redirectError(dataDirectory.resolve("stderr.txt").toFile()).start();
        List<RawClient> greedy = new ArrayList<>();
        try {
            URI uri = SmallHeapFloodTest.listening(server);
            Thread drain = new Thread(() -> {
                try {
                    server.getInputStream().transferTo(java.io.OutputStream.nullOutputStream());
                } catch (java.io.IOException e) {
                    // the server has exited
                }
            }, "serve-output");
            drain.setDaemon(true);
            drain.start();

            for (int i = 0; i < sockets; i++) {
                greedy.add(new RawClient(uri, GREEDY));
            }
            // The server takes connections up on two event loops, not quite in the order they came: wait until it
            // has taken up (and refused) every one of them before the probe, so that none is taken up after it.
            int[] pollsRefused = {0};
            Eventually.until("the server refuses the connections beyond the limit", Duration.ofSeconds(30), () -> {
                double refused = refusalsIfServed(uri);
                pollsRefused[0] += refused < 0 ? 1 : 0;
                return refused >= sockets - 16 - 4;
            });
            try (RawClient probe = new RawClient(uri, GREEDY)) {
                probe.write("GET /health/live HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
                RawClient.Answer live = probe.read(10_000);
                assertThat(live).as("an answer to the greedy address's own probe").isNotNull();
                assertThat(live.status()).as(live.head() + live.body()).isEqualTo(200);
            }
            try (RawClient probe = new RawClient(uri, OTHER)) {
                probe.write("GET /health/live HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
                RawClient.Answer live = probe.read(10_000);
                assertThat(live.status()).as(live.head() + live.body()).isEqualTo(200);
            }
            try (RawClient other = new RawClient(uri, OTHER)) {
                other.write(PUBLISH);
                RawClient.Answer published = other.read(10_000);
                assertThat(published.status()).as(published.body()).isEqualTo(200);
                assertThat(json(published.body()).get("accepted").asInt()).isEqualTo(1);
            }

            // Every socket beyond the address's 16 and its 4 places in the reserve was answered 503 as it opened.
            int answered503 = 0;
            for (RawClient connection : greedy) {
                RawClient.Answer answer = connection.read(15_000); // a silent one is closed within 10 s
                if (answer != null && answer.status() == 503) {
                    assertThat(json(answer.body()).get("error").asText()).isEqualTo("too_many_connections");
                    answered503++;
                }
            }
            assertThat(answered503).as("those beyond the limit and the reserve, and the one the probe took the place"
                    + " of").isEqualTo(sockets - 16 - 4 + 1);
            // While the refused ones are still closing, a burst also meets --max-connections (counted there, and
            // so is a poll of /metrics above refused meanwhile).
            assertThat(refusals(metrics(uri))).isEqualTo(answered503 + pollsRefused[0]);
        } finally {
            greedy.forEach(RawClient::close);
            server.destroy();
            if (!server.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)) {
                server.destroyForcibly();
            }
        }
    }

    /** {@link #refusals} of the metrics, or -1 while {@code /metrics} is refused (the server is full). */
    private static double refusalsIfServed(URI uri) {
        try (RawClient client = new RawClient(uri, OTHER)) {
            client.write("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
            RawClient.Answer answer = client.read(10_000);
            return answer != null && answer.status() == 200 ? refusals(PrometheusText.parse(answer.body())) : -1;
        }
    }

    /** Connections refused for either limit. */
    private static double refusals(PrometheusText metrics) {
        return metrics.value("interlace_http_connections_refused_total", "limit", "max_connections_per_address")
                + metrics.value("interlace_http_connections_refused_total", "limit", "max_connections");
    }

    private static void assertTooManyConnections(RawClient.Answer answer, String flag) {
        assertThat(answer).as("an answer").isNotNull();
        assertThat(answer.status()).as(answer.body()).isEqualTo(503);
        JsonNode body = json(answer.body());
        assertThat(body.get("error").asText()).isEqualTo("too_many_connections");
        assertThat(body.get("message").asText()).contains(flag);
        assertThat(answer.head()).contains("Retry-After: 1");
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
