package dev.interlace.integration.http;

import static dev.interlace.integration.ApiAnswer.assertError;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.inject.AbstractModule;
import com.google.inject.Module;
import dev.interlace.client.ErrorCode;
import dev.interlace.runtime.http.HttpLimits;
import dev.interlace.runtime.log.StreamLog;
import dev.interlace.runtime.testing.Eventually;
import dev.interlace.runtime.testing.Pause;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.OutputStream;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Clients that try to stop the server: slow headers, bodies shorter than they claim, hundreds of parked long polls,
 * oversized request lines and headers (too many connections: {@link ConnectionSharesTest}). Each is cut off or parked without a thread, and a
 * normal client is answered meanwhile. The bounds on the normal client's waits are generous (liveness, not speed:
 * the real figures are in the benchmark).
 */
class HostileClientsTest {

    /** Liveness bound for a normal client while the attack runs. */
    private static final long ANSWERED_WITHIN_MS = 5_000;

    @TempDir
    Path dataDirectory;

    /** Short read timeouts so that the test sees them fire (the defaults are 10 s, 30 s and 60 s). */
    private static Module limits(int maxConnections, Duration header, Duration body, Duration idle) {
        return new AbstractModule() {
            @Override
            protected void configure() {
                bind(HttpLimits.class).toInstance(new HttpLimits(10L << 20, HttpLimits.MAX_HEADER_BYTES,
                        HttpLimits.MAX_URL_BYTES, maxConnections, header, body, idle));
            }
        };
    }

    private TestServer start(Module... overrides) {
        return TestServer.startWith(dataDirectory, TestServer.CATALOG, List.of(overrides));
    }

    @Test
    void fiveHundredSlowHeaderClientsDoNotStopLivenessOrPublishingAndAreCutOffWith408() throws Exception {
        try (TestServer api = start(limits(10_000, Duration.ofSeconds(3), Duration.ofSeconds(3),
                Duration.ofSeconds(30)))) {
            URI uri = api.server.uri();
            List<RawClient> slow = new ArrayList<>();
            AtomicBoolean trickling = new AtomicBoolean(true);
            try {
                for (int i = 0; i < 500; i++) {
                    RawClient client = new RawClient(uri);
                    client.write("GET /health/live HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ");
                    slow.add(client);
                }
                Thread trickle = new Thread(() -> {
                    while (trickling.get()) {
                        for (RawClient client : slow) {
                            client.write("a");
                        }
                        Pause.uninterrupted(500); // the slow clients' pace
                    }
                }, "slowloris");
                trickle.start();

                api.awaitOpenConnections("hold the slow clients", open -> open >= slow.size());
                assertAnsweredWhileAttacked(api, "slowloris");

                Pause.uninterrupted(3_500); // trickling past the header timeout, counted from each request's first byte
                trickling.set(false);
                trickle.join();
                int cutOff = 0;
                for (RawClient client : slow) {
                    RawClient.Answer answer = client.read(5_000);
                    if (answer != null && answer.status() == 408 && answer.body().contains("\"request_timeout\"")
                            && (answer.closed() || client.closedWithin(2_000))) {
                        cutOff++;
                    }
                }
                assertThat(cutOff).as("slow clients answered 408 request_timeout and disconnected").isEqualTo(500);
            } finally {
                trickling.set(false);
                slow.forEach(RawClient::close);
            }
            assertThat(api.get("/health/live").status()).isEqualTo(200);
        }
    }

    @Test
    void fiveHundredParkedLongPollsHoldNoThreadAndAllWakeOnTheNextPublish() {
        try (TestServer api = start()) {
            assertThat(api.postJson("/streams/orders", "{\"order_id\":\"first\"}").status()).isEqualTo(200);
            URI uri = api.server.uri();
            List<RawClient> polls = new ArrayList<>();
            try {
                for (int i = 0; i < 500; i++) {
                    RawClient client = new RawClient(uri);
                    client.write("GET /streams/orders/events?after=1&wait_ms=30000 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
                    polls.add(client);
                }
                api.awaitOpenConnections("hold the parked polls", open -> open >= polls.size());
                assertAnsweredWhileAttacked(api, "long polls"); // publishes "order-long polls": wakes them all
                int woken = 0;
                for (RawClient client : polls) {
                    RawClient.Answer answer = client.read(10_000);
                    if (answer != null && answer.status() == 200) {
                        JsonNode body = json(answer.body());
                        if (body.get("count").asInt() == 1 && body.get("events").get(0).get("offset").asLong() == 2
                                && body.get("events").get(0).get("event").get("order_id").asText()
                                        .equals("order-long polls")) {
                            woken++;
                        }
                    }
                }
                assertThat(woken).as("parked long polls answered with the new event").isEqualTo(500);
            } finally {
                polls.forEach(RawClient::close);
            }
        }
    }

    @Test
    void aLongPollThatSeesNothingAnswersAnEmptyPageWhenItsWaitEnds() {
        try (TestServer api = start()) {
            long started = System.nanoTime();
            TestServer.Response page = api.get("/streams/orders/events?after=0&wait_ms=300");
            assertThat(page.status()).isEqualTo(200);
            assertThat(page.body().get("count").asInt()).isZero();
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isGreaterThanOrEqualTo(300);
        }
    }

    @Test
    void aBodyShorterThanItsContentLengthTimesOutAndFreesTheConnection() {
        try (TestServer api = start(limits(10_000, Duration.ofSeconds(1), Duration.ofSeconds(1),
                Duration.ofSeconds(30)));
                RawClient liar = new RawClient(api.server.uri())) {
            liar.write("POST /streams/orders HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    + "Content-Length: 100\r\n\r\n{\"order_id\":");
            RawClient.Answer answer = liar.read(5_000);
            assertThat(answer).isNotNull();
            assertThat(answer.status()).isEqualTo(408);
            assertThat(json(answer.body()).get("error").asText()).isEqualTo("request_timeout");
            assertThat(json(answer.body()).get("request_id").asText()).isNotEmpty();
            assertThat(answer.closed() || liar.closedWithin(2_000)).isTrue();
            assertThat(api.head("orders")).isZero();
        }
    }

    @Test
    void anIdleKeepAliveConnectionIsClosedAfterTheIdleTimeout() {
        try (TestServer api = start(limits(10_000, Duration.ofSeconds(1), Duration.ofSeconds(1),
                Duration.ofMillis(500)));
                RawClient idle = new RawClient(api.server.uri())) {
            idle.write("GET /health/live HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
            assertThat(idle.read(5_000).status()).isEqualTo(200);
            assertThat(idle.closedWithin(5_000)).isTrue();
        }
    }

    @Test
    void headersOver16KiBAre431AndRequestLinesOver8KiBAre414AndNeitherIsKeptWhole() {
        try (TestServer api = start()) {
            try (RawClient client = new RawClient(api.server.uri())) {
                client.write("GET /health/live HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + "b".repeat(20_000) + "\r\n\r\n");
                RawClient.Answer answer = client.read(5_000);
                assertThat(answer.status()).isEqualTo(431);
                assertThat(json(answer.body()).get("error").asText()).isEqualTo("headers_too_large");
            }
            try (RawClient client = new RawClient(api.server.uri())) {
                client.write("GET /" + "u".repeat(10_000) + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
                RawClient.Answer answer = client.read(5_000);
                assertThat(answer.status()).isEqualTo(414);
                assertThat(json(answer.body()).get("error").asText()).isEqualTo("uri_too_long");
            }
            JsonNode refusals = api.get("/logs/api?status=431").body();
            assertThat(refusals.get("count").asInt()).isEqualTo(1);
            assertThat(api.get("/logs/api?status=414").body().get("count").asInt()).isEqualTo(1);
        }
    }

    @Test
    void aBodyDeclaredOverTheLimitIsRefused413BeforeItIsSent() {
        try (TestServer api = start(); RawClient client = new RawClient(api.server.uri())) {
            client.write("POST /streams/orders HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    + "Content-Length: 1000000000\r\n\r\n");
            RawClient.Answer answer = client.read(5_000);
            assertThat(answer.status()).isEqualTo(413);
            assertThat(json(answer.body()).get("error").asText()).isEqualTo("payload_too_large");
        }
    }

    @Test
    void aBodyDeclaredOverTheLimitIsAnswered413AndThenReadAndThrownAwaySoThatItsClientCanFinishSending() {
        try (TestServer api = start(); RawClient client = new RawClient(api.server.uri())) {
            client.write("POST /streams/orders HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    + "Content-Length: " + (11L << 20) + "\r\n\r\n");
            RawClient.Answer answer = client.read(10_000);
            assertThat(answer.status()).as(answer.head()).isEqualTo(413);
            assertThat(answer.head()).containsIgnoringCase("connection: close");
            String part = "x".repeat(64 * 1024);
            int sent = 0;
            while (sent < 64 && client.write(part)) { // 4 MiB of the body, as a client that sends before it reads
                sent++;
            }
            assertThat(sent).as("parts of the body the server took after its answer").isEqualTo(64);
            assertThat(client.closedWithin(30_000)).isTrue(); // once it has waited a few seconds for the rest
        }
    }

    @Test
    void aBodyThatDoesNotFitTheInflightBudgetIs503OverloadedBeforeItIsReadAndItsClientReadsTheAnswer() {
        try (TestServer api = TestServer.start(dataDirectory, "--max-inflight-bytes", "1000000")) {
            String head = "POST /streams/orders HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    + "Content-Length: 200000\r\n\r\n";
            RawClient holder = new RawClient(api.server.uri());
            // Reserves its body's share of the budget, then sends nothing. Its 100 Continue says the reservation is
            // made: a request read before it would take the budget instead, and the holder would be the one refused.
            holder.write(head.replace("\r\n\r\n", "\r\nExpect: 100-continue\r\n\r\n"));
            RawClient.Answer reserved = holder.read(10_000);
            assertThat(reserved).isNotNull();
            assertThat(reserved.status()).as(reserved.head()).isEqualTo(100);
            RawClient.Answer answer = null;
            for (int attempt = 0; attempt < 50 && answer == null; attempt++) {
                try (RawClient refused = new RawClient(api.server.uri())) {
                    refused.write(head);
                    answer = refused.read(500);
                    if (answer != null) {
                        refused.write("x".repeat(200_000)); // the body, which the server reads and throws away
                        assertThat(refused.closedWithin(10_000)).isTrue();
                    }
                }
            }
            assertThat(answer).isNotNull();
            assertThat(answer.status()).as(answer.head()).isEqualTo(503);
            assertThat(answer.head()).containsIgnoringCase("retry-after: 1").containsIgnoringCase(
                    "connection: close");
            assertThat(json(answer.body()).get("error").asText()).isEqualTo("overloaded");
            holder.close(); // its reservation goes with its connection

            String event = "{\"order_id\":\"after-the-holder\",\"meta\":\"" + "y".repeat(150_000) + "\"}";
            TestServer.Response published = Eventually.get("a publish is not refused once the holder has gone",
                    Duration.ofSeconds(5), () -> api.postJson("/streams/orders", event), r -> r.status() != 503);
            assertThat(published.status()).as(String.valueOf(published.body())).isEqualTo(200);
        }
    }

    @Test
    void pipelinedRequestsAreAnsweredInOrder() {
        try (TestServer api = start(); RawClient client = new RawClient(api.server.uri())) {
            client.write("POST /streams/orders HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    + "Content-Length: 18\r\n\r\n{\"order_id\":\"p1\"}\n"
                    + "GET /streams/nope HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                    + "GET /health/live HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
            assertThat(client.read(5_000).status()).isEqualTo(200);
            assertThat(client.read(5_000).status()).isEqualTo(404);
            assertThat(client.read(5_000).status()).isEqualTo(200);
        }
    }

    @Test
    void anUnexpectedFailureIsAJson500WithTheRequestIdNotAnEmptyReply() {
        Module failingScrape = new AbstractModule() {
            @Override
            protected void configure() {
                bind(MeterRegistry.class).toInstance(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT) {
                    @Override
                    public void scrape(OutputStream out, String contentType) {
                        throw new IllegalStateException("scrape failed (test fault)");
                    }
                });
            }
        };
        try (TestServer api = start(failingScrape)) {
            TestServer.Response response = api.send(api.request("/metrics").header("X-Request-Id", "boom-1")
                    .GET().build());
            assertError(response, 500, ErrorCode.INTERNAL);
            assertThat(response.body().get("request_id").asText()).isEqualTo("boom-1");
            assertThat(response.body().get("message").asText()).doesNotContain("test fault");
            assertThat(api.get("/logs/api?request_id=boom-1").body().get("requests").get(0).get("status").asInt())
                    .isEqualTo(500);
        }
    }

    @Test
    void aConsumerRouteWhileTheLogIsUnavailableIsA503WithRetryAfter() {
        try (TestServer api = start()) {
            api.server.instance(StreamLog.class).close();
            TestServer.Response response = api.postJson("/streams/orders/consumers/billing/lease",
                    "{\"owner\": \"worker-1\"}");
            assertError(response, 503, ErrorCode.LOG_UNAVAILABLE);
            assertThat(response.header("Retry-After")).isNotNull();
        }
    }

    /** A normal client's liveness check and publish are both answered while an attack runs. */
    private static void assertAnsweredWhileAttacked(TestServer api, String attack) {
        CompletableFuture<Integer> live = CompletableFuture.supplyAsync(() -> api.get("/health/live").status());
        CompletableFuture<Integer> publish = CompletableFuture.supplyAsync(() ->
                api.postJson("/streams/orders", "{\"order_id\":\"order-" + attack + "\"}").status());
        assertThat(live).succeedsWithin(Duration.ofMillis(ANSWERED_WITHIN_MS)).isEqualTo(200);
        assertThat(publish).succeedsWithin(Duration.ofMillis(ANSWERED_WITHIN_MS)).isEqualTo(200);
    }

    private static JsonNode json(String text) {
        try {
            return TestServer.JSON.readTree(text);
        } catch (java.io.IOException e) {
            throw new AssertionError("not JSON: " + text, e);
        }
    }
}
