package dev.interlace.runtime.http.tck;

import dev.interlace.client.ErrorCode;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Named.named;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import dev.interlace.runtime.http.HttpAnswer;
import dev.interlace.runtime.http.HttpDispatcher;
import dev.interlace.runtime.http.HttpLimits;
import dev.interlace.runtime.http.HttpRequest;
import dev.interlace.runtime.http.HttpTransport;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The conformance suite (TCK) of {@link HttpTransport}: what every transport does between the socket and the
 * {@link HttpDispatcher}, checked with raw bytes on real sockets against a transport started on an ephemeral port with
 * a small dispatcher written here.
 *
 * <p>It specifies that the request line, headers and body reach the dispatcher exactly (raw path and query, header
 * names case-insensitive, repeated headers in order, a binary or chunked body byte for byte) and the answer's status,
 * headers and body reach the client exactly; that the bounds of {@link HttpLimits} are answered through
 * {@link HttpDispatcher#refuse} with their statuses — 414 for a long request line, 431 for large headers, 413 for a
 * declared body over the limit before any of it is sent, 408 for headers or a body that do not arrive in time — and
 * that such a connection is closed without the request reaching a route; that a malformed request never reaches a
 * route either — a chunked body whose framing breaks after a valid chunk, control bytes in the target, two
 * {@code Host} headers are 400, another HTTP version 505 — and its connection is closed; that a keep-alive connection
 * serves request after request, pipelined ones answered in order (each beyond 16 waiting with its own
 * {@code 429 too_many_pipelined}, never an empty reply), and an idle one is closed; that an answer completed later, on
 * another thread, is delivered while other connections are served; that an answer future that fails becomes the
 * dispatcher's 500 {@code internal}; that connections over the cap are refused 503 and closed, and a freed place is
 * given to the next one; and that {@code stop} closes every connection and the port.
 *
 * <h2>Running it against a transport</h2>
 *
 * <p>The suite ships in the runtime's test jar (see {@code StreamLogContract} for the dependency). A transport extends
 * it and implements {@link #newTransport}; {@code NettyTransportContractTest} (same package) is the reference. The
 * suite starts and stops every transport itself and waits on events (an answer, a closed socket) with generous
 * deadlines, never on time alone.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
public abstract class HttpTransportContract {

    /** Small bounds, so that each one is easy to cross; generous times where a test does not cross them. */
    protected static final HttpLimits LIMITS = new HttpLimits(1024, 2048, 512, 6, Duration.ofSeconds(1),
            Duration.ofSeconds(1), Duration.ofSeconds(30));
    /** How long the suite waits for an answer or a close it expects. */
    protected static final Duration WAIT = Duration.ofSeconds(15);

    /** A new, unstarted transport reading requests within {@code limits} (plain HTTP, no TLS). */
    protected abstract HttpTransport newTransport(HttpLimits limits);

    private final List<HttpTransport> started = new ArrayList<>();
    private final List<RawConnection> connections = new ArrayList<>();

    @AfterEach
    void stopEverything() {
        connections.forEach(RawConnection::close);
        started.forEach(HttpTransport::stop);
    }

    // ================================================================== delivering requests and answers

    @Test
    void theRequestLineHeadersAndABinaryBodyReachTheDispatcherExactly() {
        Server server = start(LIMITS);
        byte[] body = new byte[256];
        for (int i = 0; i < body.length; i++) {
            body[i] = (byte) i;
        }
        RawConnection client = connect(server);
        client.write(RawConnection.bytes("POST /streams/a%20b/%2Fx?q=1&q=2&empty=&enc=%2F%26 HTTP/1.1\r\n"
                + "Host: localhost\r\nX-Repeated: one\r\nX-Repeated: two\r\nx-MiXeD-case: Value With Spaces\r\n"
                + "Content-Type: application/octet-stream\r\nContent-Length: 256\r\n\r\n", body));
        RawConnection.Answer answer = client.read(WAIT);

        HttpRequest request = server.dispatcher.next();
        assertThat(request.method()).isEqualTo("POST");
        assertThat(request.rawPath()).as("still percent-encoded").isEqualTo("/streams/a%20b/%2Fx");
        assertThat(request.rawQuery()).isEqualTo("q=1&q=2&empty=&enc=%2F%26");
        assertThat(request.query()).containsEntry("q", "1").containsEntry("empty", "").containsEntry("enc", "/&");
        assertThat(request.header("x-repeated")).as("the first of a repeated header").isEqualTo("one");
        assertThat(request.header("X-MIXED-CASE")).isEqualTo("Value With Spaces");
        assertThat(request.header("Content-Type")).isEqualTo("application/octet-stream");
        assertThat(request.header("X-Absent")).isNull();
        assertThat(request.body()).isEqualTo(body);

        assertThat(answer.status()).isEqualTo(200);
        assertThat(answer.body()).as("the answer's bytes, exactly").isEqualTo(body);
        assertThat(answer.header("Content-Type")).isEqualTo("application/octet-stream");
        assertThat(answer.header("Content-Length")).isEqualTo("256");
        assertThat(answer.header("X-Method")).as("an extra header of the answer").isEqualTo("POST");
        assertThat(answer.header("X-Path")).isEqualTo("/streams/a%20b/%2Fx");
    }

    @Test
    void aRequestWithoutABodyHasAnEmptyOneAndAChunkedBodyArrivesWhole() {
        Server server = start(LIMITS);
        RawConnection client = connect(server);
        assertThat(client.get("/plain", WAIT).status()).isEqualTo(200);
        HttpRequest plain = server.dispatcher.next();
        assertThat(plain.method()).isEqualTo("GET");
        assertThat(plain.rawQuery()).isNull();
        assertThat(plain.body()).isEmpty();

        client.write("POST /chunked HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "5\r\nhello\r\n1\r\n \r\n6\r\nworld!\r\n0\r\n\r\n");
        RawConnection.Answer answer = client.read(WAIT);
        assertThat(server.dispatcher.next().body()).asString(StandardCharsets.ISO_8859_1).isEqualTo("hello world!");
        assertThat(answer.text()).isEqualTo("hello world!");
    }

    // ================================================================== limits

    /**
     * A request line, headers or a chunked body over the limits; headers or a body that do not arrive in time; two
     * {@code Host} headers: refused with the status and error, the connection closed, and no route sees the request.
     */
    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("refusedRequests")
    void aRequestOverALimitTooSlowOrAmbiguousIsRefusedAndTheConnectionIsClosed(String request, int status,
            String error) {
        refused(status, error, request);
    }

    static Stream<Arguments> refusedRequests() {
        String chunk = "c".repeat(600);
        String chunked = "POST /growing HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n"
                + Integer.toHexString(chunk.length()) + "\r\n" + chunk + "\r\n"
                + Integer.toHexString(chunk.length()) + "\r\n" + chunk + "\r\n0\r\n\r\n";
        return Stream.of(
                arguments(named("a request line over the limit", "GET /" + "a".repeat(LIMITS.maxUrlBytes() + 10)
                        + " HTTP/1.1\r\nHost: localhost\r\n\r\n"), 414, "uri_too_long"),
                arguments(named("headers over the limit", "GET /big-headers HTTP/1.1\r\nHost: localhost\r\n"
                        + "X-Filler: " + "b".repeat(LIMITS.maxHeaderBytes() + 10) + "\r\n\r\n"), 431,
                        "headers_too_large"),
                arguments(named("a chunked body growing over the limit", chunked), 413, "payload_too_large"),
                arguments(named("headers that do not arrive in time", "GET /slow HTTP/1.1\r\nHost: local"), 408,
                        "request_timeout"),
                arguments(named("a body that does not arrive in time", "POST /slow-body HTTP/1.1\r\n"
                        + "Host: localhost\r\nContent-Length: 10\r\n\r\nabc"), 408, "request_timeout"),
                arguments(named("two Host headers", "GET /two-hosts HTTP/1.1\r\nHost: localhost\r\n"
                        + "Host: evil.example\r\n\r\n"), 400, "bad_request"));
    }

    @Test
    void aBodyDeclaredOverTheLimitIs413BeforeAnyOfItIsSent() {
        Refusal refusal = refused(413, "payload_too_large", "POST /too-big HTTP/1.1\r\nHost: localhost\r\n"
                + "Content-Length: " + (LIMITS.maxBodyBytes() + 1) + "\r\n\r\n");
        assertThat(refusal.method()).isEqualTo("POST");
        assertThat(refusal.target()).isEqualTo("/too-big");
    }

    // ================================================================== malformed requests

    @Test
    void aChunkedBodyWhoseFramingBreaksAfterAValidChunkIs400AndNoRouteSeesAnyOfIt() {
        Server server = start(LIMITS);
        String head = "POST /broken-chunks HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "6\r\nline-1\r\n";
        for (String broken : List.of("zz\r\nline-2\r\n0\r\n\r\n", // a size line that is not hex
                "6\r\nline-2XX6\r\nline-3\r\n0\r\n\r\n", // no CRLF after a chunk's data
                "ffffffffffffffffffff\r\nline-2\r\n0\r\n\r\n")) { // a size no integer holds
            refusedOn(server, 400, "bad_request", head + broken);
        }
    }

    @Test
    void aBrokenChunkedBodyBehindAPipelinedRequestIsAnswered400AfterItThenTheConnectionCloses() {
        Server server = start(LIMITS);
        RawConnection client = connect(server);
        client.write("GET /later/first HTTP/1.1\r\nHost: localhost\r\n\r\n"
                + "POST /broken-chunks HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "6\r\nline-1\r\nzz\r\n");
        server.dispatcher.nextPending().answer().complete(HttpAnswer.bytes(200, "text/plain",
                "first".getBytes(StandardCharsets.UTF_8)));
        assertThat(client.read(WAIT).text()).isEqualTo("first");
        RawConnection.Answer refused = client.read(WAIT);
        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.text()).contains("\"error\":\"bad_request\"");
        assertThat(client.closedWithin(WAIT)).isTrue();
        assertThat(server.dispatcher.dispatched).as("no route saw the broken request").isEmpty();
    }

    @Test
    void controlBytesInTheRequestTargetAre400AndTheRefusalKeepsThemEscaped() {
        Server server = start(LIMITS);
        for (String target : List.of("/logs\u001b[2J\u001b[H", "/nul\u0000byte", "/del\u007f",
                "/query?q=\u0001")) {
            Refusal refusal = refusedOn(server, 400, "bad_request",
                    "GET " + target + " HTTP/1.1\r\nHost: localhost\r\n\r\n");
            assertThat(String.valueOf(refusal.target())).as("no raw control byte reaches a record")
                    .doesNotContainPattern("[\\x00-\\x1f\\x7f]");
        }
    }

    @Test
    void anHttp11RequestWithoutHostIs400AndAnHttp10OneIsServed() {
        Server server = start(LIMITS);
        refusedOn(server, 400, "bad_request", "GET /no-host HTTP/1.1\r\nAccept: */*\r\n\r\n");

        RawConnection old = connect(server);
        old.write("GET /no-host HTTP/1.0\r\n\r\n");
        assertThat(old.read(WAIT).status()).as("HTTP/1.0 has no Host to require").isEqualTo(200);
    }

    @Test
    void requestLinesOfAnHttpVersionOtherThan10Or11Are505() {
        Server server = start(LIMITS);
        for (String version : List.of("HTTP/2.0", "HTTP/9.9", "HTTP/0.9")) {
            refusedOn(server, 505, "http_version_not_supported",
                    "GET /version HTTP/" + version.substring(5) + "\r\nHost: localhost\r\n\r\n");
        }
    }

    @Test
    void everyPipelinedRequestIsAnsweredInOrderThoseBeyondTheBoundWith429() {
        Server server = start(LIMITS);
        RawConnection client = connect(server);
        int count = 40;
        StringBuilder burst = new StringBuilder("GET /later/1 HTTP/1.1\r\nHost: localhost\r\n\r\n");
        for (int i = 2; i <= count; i++) {
            burst.append("GET /pipelined/").append(i).append(" HTTP/1.1\r\nHost: localhost\r\n\r\n");
        }
        client.write(burst.toString());
        server.dispatcher.nextPending().answer().complete(HttpAnswer.bytes(200, "text/plain",
                "first".getBytes(StandardCharsets.UTF_8)));
        assertThat(client.read(WAIT).text()).isEqualTo("first");
        int echoed = 1;
        int refused = 0;
        for (int i = 2; i <= count; i++) {
            RawConnection.Answer answer = client.read(WAIT);
            if (answer.status() == 200) {
                assertThat(refused).as("no echo after the first refusal").isZero();
                assertThat(answer.header("X-Path")).as("answers in order").isEqualTo("/pipelined/" + i);
                echoed++;
            } else {
                assertThat(answer.status()).as("answer %d", i).isEqualTo(429);
                assertThat(answer.header("Content-Type")).isEqualTo("application/json");
                assertThat(answer.text()).contains("\"error\":\"too_many_pipelined\"");
                refused++;
            }
        }
        assertThat(echoed).as("the bound: the request answered and the ones waiting behind it")
                .isGreaterThanOrEqualTo(17);
        assertThat(refused).as("beyond the bound, each its own refusal").isPositive();
        assertThat(server.dispatcher.dispatched).as("no route saw a refused request").hasSize(echoed - 1);
        assertThat(client.get("/afterwards", WAIT).header("X-Path")).as("the connection is kept")
                .isEqualTo("/afterwards");
    }

    // ================================================================== connections

    @Test
    void aKeepAliveConnectionServesRequestAfterRequestUntilTheClientSaysClose() {
        Server server = start(LIMITS);
        RawConnection client = connect(server);
        for (int i = 1; i <= 3; i++) {
            client.write("GET /round/" + i + " HTTP/1.1\r\nHost: localhost\r\n\r\n");
            RawConnection.Answer answer = client.read(WAIT);
            assertThat(answer.header("X-Path")).isEqualTo("/round/" + i);
        }
        client.write("GET /last HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
        assertThat(client.read(WAIT).header("X-Path")).isEqualTo("/last");
        assertThat(client.closedWithin(WAIT)).as("closed after the answer to Connection: close").isTrue();

        RawConnection old = connect(server);
        old.write("GET /http10 HTTP/1.0\r\n\r\n");
        assertThat(old.read(WAIT).header("X-Path")).isEqualTo("/http10");
        assertThat(old.closedWithin(WAIT)).as("HTTP/1.0 without keep-alive").isTrue();
    }

    @Test
    void pipelinedRequestsAreAnsweredInOrderEvenWhenTheFirstAnswersLast() throws Exception {
        Server server = start(LIMITS);
        RawConnection client = connect(server);
        client.write("GET /later/1 HTTP/1.1\r\nHost: localhost\r\n\r\n"
                + "POST /second HTTP/1.1\r\nHost: localhost\r\nContent-Length: 6\r\n\r\nsecond"
                + "GET /third HTTP/1.1\r\nHost: localhost\r\n\r\n");
        Pending first = server.dispatcher.nextPending();
        first.answer().complete(HttpAnswer.bytes(200, "text/plain", "first".getBytes(StandardCharsets.UTF_8)));
        assertThat(client.read(WAIT).text()).isEqualTo("first");
        assertThat(client.read(WAIT).text()).isEqualTo("second");
        assertThat(client.read(WAIT).header("X-Path")).isEqualTo("/third");
    }

    @Test
    void anAnswerCompletedLaterOnAnotherThreadIsDeliveredAndHoldsUpNoOtherConnection() throws Exception {
        Server server = start(LIMITS);
        RawConnection waiting = connect(server);
        waiting.write("GET /later/poll HTTP/1.1\r\nHost: localhost\r\n\r\n");
        Pending pending = server.dispatcher.nextPending();

        RawConnection other = connect(server);
        assertThat(other.get("/meanwhile", WAIT).header("X-Path")).isEqualTo("/meanwhile");

        Thread completer = new Thread(() -> pending.answer().complete(HttpAnswer.bytes(202, "application/json",
                "{\"woke\":true}".getBytes(StandardCharsets.UTF_8)).header("X-Late", "yes")), "contract-completer");
        completer.start();
        RawConnection.Answer answer = waiting.read(WAIT);
        assertThat(answer.status()).isEqualTo(202);
        assertThat(answer.text()).isEqualTo("{\"woke\":true}");
        assertThat(answer.header("X-Late")).isEqualTo("yes");
        completer.join();

        assertThat(waiting.get("/after", WAIT).header("X-Path")).as("the connection is kept").isEqualTo("/after");
    }

    @Test
    void aClientThatClosesItsSendingHalfAfterItsRequestsGetsEveryAnswerThenTheConnectionCloses() throws Exception {
        Server server = start(LIMITS);
        RawConnection client = connect(server);
        client.write("GET /later/only HTTP/1.1\r\nHost: localhost\r\n\r\n");
        client.finishWriting();
        Pending only = server.dispatcher.nextPending();
        Thread.sleep(200); // the end of the client's stream has had time to arrive before the answer is ready
        only.answer().complete(HttpAnswer.bytes(200, "text/plain", "only".getBytes(StandardCharsets.UTF_8)));
        assertThat(client.read(WAIT).text()).isEqualTo("only");
        assertThat(client.closedWithin(WAIT)).as("closed once nothing more can come").isTrue();

        RawConnection pipelining = connect(server);
        pipelining.write("GET /later/1 HTTP/1.1\r\nHost: localhost\r\n\r\n"
                + "GET /second HTTP/1.1\r\nHost: localhost\r\n\r\n");
        pipelining.finishWriting();
        Pending first = server.dispatcher.nextPending();
        Thread.sleep(200);
        first.answer().complete(HttpAnswer.bytes(200, "text/plain", "first".getBytes(StandardCharsets.UTF_8)));
        assertThat(pipelining.read(WAIT).text()).isEqualTo("first");
        assertThat(pipelining.read(WAIT).header("X-Path")).isEqualTo("/second");
        assertThat(pipelining.closedWithin(WAIT)).as("closed once nothing more can come").isTrue();

        RawConnection idle = connect(server);
        assertThat(idle.get("/once", WAIT).status()).isEqualTo(200);
        idle.finishWriting();
        assertThat(idle.closedWithin(WAIT)).as("an idle connection whose client is done").isTrue();
    }

    @Test
    void aBodyCutShortByTheClientClosingIsNeverDispatched() {
        Server server = start(LIMITS);
        RawConnection client = connect(server);
        client.write("POST /short HTTP/1.1\r\nHost: localhost\r\nContent-Length: 10\r\n\r\n12345");
        client.finishWriting();
        assertThat(client.closedWithin(WAIT)).isTrue();

        RawConnection chunked = connect(server);
        chunked.write("POST /chunked HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "5\r\n12345\r\n");
        chunked.finishWriting();
        assertThat(chunked.closedWithin(WAIT)).isTrue();
        assertThat(server.dispatcher.dispatched).as("no route sees a body that never arrived whole").isEmpty();
    }

    @Test
    void anAnswerThatFailsBecomesTheDispatchersJson500() {
        Server server = start(LIMITS);
        RawConnection client = connect(server);
        RawConnection.Answer answer = client.get("/fail", WAIT);
        assertThat(answer.status()).isEqualTo(500);
        assertThat(answer.header("Content-Type")).isEqualTo("application/json");
        assertThat(answer.text()).contains("\"error\":\"internal\"");
        Refusal refusal = server.dispatcher.nextRefusal();
        assertThat(refusal.status()).isEqualTo(500);
        assertThat(refusal.error()).isEqualTo("internal");
    }

    @Test
    void anIdleKeepAliveConnectionIsClosed() {
        Server server = start(new HttpLimits(1024, 2048, 512, 6, Duration.ofSeconds(1), Duration.ofSeconds(1),
                Duration.ofMillis(300)));
        RawConnection client = connect(server);
        assertThat(client.get("/once", WAIT).status()).isEqualTo(200);
        assertThat(client.closedWithin(WAIT)).isTrue();
        assertThat(server.dispatcher.refused).as("nothing to answer: no refusal").isEmpty();
    }

    @Test
    void connectionsOverTheCapAreRefused503AndClosedAndAFreedPlaceIsGivenToTheNext() {
        Server server = start(LIMITS);
        List<RawConnection> held = new ArrayList<>();
        for (int i = 0; i < LIMITS.maxConnections(); i++) {
            RawConnection client = connect(server);
            client.write("GET /held/" + i + " HTTP/1.1\r\nHost: localhost\r\n\r\n");
            assertThat(client.read(WAIT).status()).isEqualTo(200);
            held.add(client);
        }
        server.dispatcher().dispatched.clear();
        RawConnection over = connect(server);
        over.write("GET /over HTTP/1.1\r\nHost: localhost\r\n\r\n");
        assertRefused(server, over, 503, "too_many_connections");

        held.get(0).close();
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (true) {
            RawConnection next = connect(server);
            RawConnection.Answer answer = next.get("/next", WAIT);
            if (answer.status() == 200) {
                break;
            }
            assertThat(answer.status()).isEqualTo(503);
            assertThat(System.nanoTime()).as("a freed place is given to a new connection").isLessThan(deadline);
        }
        for (RawConnection client : held.subList(1, held.size())) {
            assertThat(client.get("/still", WAIT).status()).as("the held connections still work").isEqualTo(200);
        }
    }

    @Test
    void stopClosesEveryConnectionAndThePort() {
        Server server = start(LIMITS);
        RawConnection client = connect(server);
        assertThat(client.get("/before", WAIT).status()).isEqualTo(200);
        assertThat(server.transport.description()).isNotBlank();

        server.transport.stop();
        started.remove(server.transport);
        assertThat(client.closedWithin(WAIT)).isTrue();
        assertThatThrownBy(() -> {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", server.port), 5_000);
            }
        }).isInstanceOf(IOException.class);
    }

    // ================================================================== helpers

    /** A started transport, its port and its dispatcher. */
    protected record Server(HttpTransport transport, int port, TestDispatcher dispatcher) {}

    /** Starts a new transport with {@code limits} on an ephemeral loopback port (stopped after the test). */
    protected final Server start(HttpLimits limits) {
        HttpTransport transport = newTransport(limits);
        TestDispatcher dispatcher = new TestDispatcher();
        try {
            int port = transport.start("127.0.0.1", 0, dispatcher);
            started.add(transport);
            assertThat(port).isPositive();
            return new Server(transport, port, dispatcher);
        } catch (IOException e) {
            throw new AssertionError("the transport did not start", e);
        }
    }

    protected final RawConnection connect(Server server) {
        RawConnection connection = new RawConnection(server.port());
        connections.add(connection);
        return connection;
    }

    /** The client got the refusal's JSON answer and the connection was closed; no route saw the request. */
    /** Sends {@code request} to a new server with {@link #LIMITS} and requires it refused ({@link #assertRefused}). */
    private Refusal refused(int status, String error, String request) {
        return refusedOn(start(LIMITS), status, error, request);
    }

    /** Sends {@code request} on a new connection to {@code server} and requires it refused ({@link #assertRefused}). */
    private Refusal refusedOn(Server server, int status, String error, String request) {
        RawConnection client = connect(server);
        client.write(request);
        return assertRefused(server, client, status, error);
    }

    private static Refusal assertRefused(Server server, RawConnection client, int status, String error) {
        RawConnection.Answer answer = client.read(WAIT);
        assertThat(answer.status()).isEqualTo(status);
        assertThat(answer.header("Content-Type")).isEqualTo("application/json");
        assertThat(answer.text()).contains("\"error\":\"" + error + "\"");
        assertThat(client.closedWithin(WAIT)).as("the connection is closed after a refusal").isTrue();
        Refusal refusal = server.dispatcher().nextRefusal();
        assertThat(refusal.status()).isEqualTo(status);
        assertThat(refusal.error()).isEqualTo(error);
        assertThat(server.dispatcher().dispatched).as("no route saw the request").isEmpty();
        return refusal;
    }

    /** A refusal the transport asked the dispatcher for. */
    protected record Refusal(String method, String target, int status, String error, String message) {}

    /** A request whose answer the test completes. */
    protected record Pending(HttpRequest request, CompletableFuture<HttpAnswer> answer) {}

    /**
     * The suite's dispatcher: {@code /later/...} answers when the test completes its future, {@code /fail} answers a
     * failed future, anything else echoes the body with {@code X-Method} and {@code X-Path}; refusals are JSON
     * errors, as the real router's are. It records everything it is given.
     */
    protected static final class TestDispatcher implements HttpDispatcher {
        final BlockingQueue<HttpRequest> dispatched = new LinkedBlockingQueue<>();
        final BlockingQueue<Refusal> refused = new LinkedBlockingQueue<>();
        final BlockingQueue<Pending> pending = new LinkedBlockingQueue<>();

        @Override
        public CompletableFuture<HttpAnswer> dispatch(HttpRequest request) {
            if (request.rawPath().startsWith("/later/")) {
                CompletableFuture<HttpAnswer> answer = new CompletableFuture<>();
                pending.add(new Pending(request, answer));
                return answer;
            }
            dispatched.add(request);
            if (request.rawPath().equals("/fail")) {
                return CompletableFuture.failedFuture(new IllegalStateException("the route failed"));
            }
            String contentType = request.header("Content-Type") == null ? "text/plain"
                    : request.header("Content-Type");
            return CompletableFuture.completedFuture(HttpAnswer.bytes(200, contentType, request.body())
                    .header("X-Method", request.method()).header("X-Path", request.rawPath()));
        }

        @Override
        public HttpAnswer refuse(String method, String target, ErrorCode code, String message) {
            int status = code.status();
            String error = code.code();
            refused.add(new Refusal(method, target, status, error, message));
            String json = "{\"error\":\"" + error + "\",\"message\":\"" + message.replace("\"", "'") + "\"}";
            return HttpAnswer.bytes(status, "application/json", json.getBytes(StandardCharsets.UTF_8));
        }

        /** The next request dispatched (echo or failure), waiting for it. */
        HttpRequest next() {
            return take(dispatched, "a dispatched request");
        }

        Pending nextPending() {
            return take(pending, "a request answered later");
        }

        Refusal nextRefusal() {
            return take(refused, "a refusal");
        }

        private static <T> T take(BlockingQueue<T> queue, String what) {
            try {
                T item = queue.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
                if (item == null) {
                    throw new AssertionError("waited " + WAIT.toSeconds() + " s for " + what);
                }
                return item;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for " + what, e);
            }
        }
    }
}
