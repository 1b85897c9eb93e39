package dev.interlace.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.runtime.Interlace;
import dev.interlace.runtime.config.InterlaceConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code Interlace.builder().meterRegistry(registry)}, the seam the starter hands the application's registry through:
 * the server's meters land in it, the JVM's are left to its owner (bound twice, every GC pause would count twice), and
 * {@code GET /metrics} says it has no Prometheus text when the registry is not a Prometheus one.
 */
class MeterRegistrySeamTest {

    @TempDir
    Path dataDir;

    @Test
    void theServersMetersGoToTheGivenRegistryAndTheJvmsAreLeftToItsOwner() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        HttpClient http = HttpClient.newHttpClient();
        try (Interlace server = Interlace.builder().config(InterlaceConfig.defaults().withDataDirectory(dataDir)
                .withPort(0)).meterRegistry(registry).start()) {
            HttpResponse<String> published = http.send(HttpRequest.newBuilder(server.uri().resolve(
                    "/streams/shop_orders")).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"order_id\": \"a\", \"total\": 1}")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(published.statusCode()).isEqualTo(200);
            assertThat(registry.find("interlace.publish.requests").tag("stream", "shop_orders").counters())
                    .isNotEmpty();
            assertThat(registry.find("jvm.memory.used").meters()).isEmpty();
            assertThat(registry.find("jvm.gc.pause").meters()).isEmpty();

            HttpResponse<String> metrics = http.send(HttpRequest.newBuilder(server.uri().resolve("/metrics")).GET()
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(metrics.statusCode()).isEqualTo(404);
            assertThat(metrics.body()).contains("\"not_found\"").contains("not a Prometheus registry");
        }
    }
}
