package dev.interlace.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonNode;
import dev.interlace.client.testing.RecordingServer;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link InterlaceClient#call}, the one request under publishing, consuming and the CLI, against a stand-in server. */
class InterlaceClientCallTest {

    @Test
    void aTwoHundredJsonAnswerIsReturnedWithItsNumbersAsSent() throws Exception {
        try (RecordingServer server = RecordingServer.http(200, "{\"total\":49.50}")) {
            InterlaceClient client = InterlaceClient.builder(server.uri()).apiKey("ilk_secret")
                    .objectMapper(ExactJson.mapper()).build();
            JsonNode answer = client.call("POST", "/streams/orders/events?limit=1", "application/json",
                    "{}".getBytes(StandardCharsets.UTF_8));
            assertThat(answer.get("total").toString()).isEqualTo("49.50");
            assertThat(server.paths()).containsExactly("/streams/orders/events?limit=1");
            assertThat(server.authorizations()).containsExactly("Bearer ilk_secret");
        }
    }

    @Test
    void anErrorStatusCarriesTheServersCodeMessageAndBody() throws Exception {
        String body = "{\"error\":\"unknown_stream\",\"message\":\"no stream named nope\"}";
        try (RecordingServer server = RecordingServer.http(404, body)) {
            ServerException failure = catchThrowableOfType(ServerException.class,
                    () -> InterlaceClient.builder(server.uri()).build().call("GET", "/streams/nope", null, null));
            assertThat(failure.failure()).isEqualTo(ServerException.Failure.STATUS);
            assertThat(failure.status()).isEqualTo(404);
            assertThat(failure.code()).isEqualTo("unknown_stream");
            assertThat(failure.serverMessage()).isEqualTo("no stream named nope");
            assertThat(failure.body()).isEqualTo(body);
            assertThat(failure.uri()).isEqualTo(URI.create(server.uri() + "/streams/nope"));
        }
    }

    @Test
    void aTwoHundredAnswerThatIsNotJsonIsAFailureOfItsOwn() throws Exception {
        try (RecordingServer server = RecordingServer.http(200, "<html>a proxy's page</html>")) {
            ServerException failure = catchThrowableOfType(ServerException.class,
                    () -> InterlaceClient.builder(server.uri()).build().call("GET", "/streams", null, null));
            assertThat(failure.failure()).isEqualTo(ServerException.Failure.NOT_JSON);
            assertThat(failure.status()).isEqualTo(200);
            assertThat(failure.json()).isNull();
            assertThat(failure.code()).isNull();
        }
    }

    @Test
    void aPortWithNothingListeningIsUnreachable() throws Exception {
        int port;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort();
        }
        InterlaceClient client = InterlaceClient.builder(URI.create("http://127.0.0.1:" + port)).build();
        ServerException failure = catchThrowableOfType(ServerException.class,
                () -> client.call("GET", "/streams", null, null));
        assertThat(failure.failure()).isEqualTo(ServerException.Failure.UNREACHABLE);
        assertThat(failure.status()).isZero();
        assertThat(failure.body()).isNull();
    }

    @Test
    void publishingRetriesABusyServerUntilTheDeadlineAndThenSaysSo() throws Exception {
        try (RecordingServer server = RecordingServer.http(503,
                "{\"error\":\"busy\",\"message\":\"too many pending events\"}")) {
            InterlaceClient client = InterlaceClient.builder(server.uri()).retryDeadline(Duration.ofMillis(500))
                    .build();
            PublishException failure = catchThrowableOfType(PublishException.class,
                    () -> client.publish("orders", Map.of("id", 1)));
            assertThat(failure.status()).isEqualTo(503);
            assertThat(failure.code()).isEqualTo("busy");
            assertThat(failure.getMessage()).contains("still refused after retrying").contains("too many pending");
            assertThat(server.paths()).hasSizeGreaterThan(1).allMatch("/streams/orders"::equals);
        }
    }
}
