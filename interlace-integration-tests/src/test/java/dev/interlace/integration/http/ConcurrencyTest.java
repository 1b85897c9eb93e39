package dev.interlace.integration.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Many clients at once: none refused, each acknowledged with its own offset. */
class ConcurrencyTest {

    @TempDir
    Path dataDirectory;

    @Test
    void twoHundredFiftySixConcurrentConnectionsAreAllServed() throws Exception {
        int clients = 256;
        try (TestServer api = TestServer.start(dataDirectory)) {
            List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
            List<HttpClient> connections = new ArrayList<>();
            for (int i = 0; i < clients; i++) {
                // One client each, so every request has a connection of its own.
                HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
                connections.add(client);
                responses.add(client.sendAsync(api.request("/streams/orders")
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"order_id\":\"c" + i + "\"}")).build(),
                        HttpResponse.BodyHandlers.ofString()));
            }
            Set<String> offsets = new HashSet<>();
            for (CompletableFuture<HttpResponse<String>> response : responses) {
                HttpResponse<String> result = response.get();
                assertThat(result.statusCode()).isEqualTo(200);
                offsets.add(TestServer.JSON.readTree(result.body()).get("last_offset").asText());
            }
            assertThat(offsets).hasSize(clients);
            assertThat(api.head("orders")).isEqualTo(clients);
            assertThat(connections).hasSize(clients);
        }
    }
}
