package dev.interlace.integration.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.interlace.runtime.Interlace;
import dev.interlace.runtime.auth.KeyFile;
import dev.interlace.runtime.cli.CliHarness;
import dev.interlace.runtime.cli.Main;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code interlace keys create --quota-bytes}: a key's publishes limited in bytes per second beside events per
 * second, over real HTTP against a server reading the key file; each refusal names the limit that was hit, so that a
 * client knows whether to send fewer events or smaller ones.
 */
class ByteQuotaTest {

    private static final Pattern SECRET = Pattern.compile("ilk_[A-Za-z0-9_-]{43}");

    @TempDir
    Path dataDirectory;

    private final CliHarness cli = new CliHarness();
    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void aKeyOverItsBytesPerSecondIs429NamingTheBytesLimitAndNothingIsStored() throws Exception {
        String bulky = createKey("bulky", "--quota-bytes", "1000");
        assertThat(cli.stdout()).contains("quota 1000 bytes/s");
        assertThat(Files.readString(KeyFile.file(dataDirectory))).contains("\"quota_bytes\" : 1000");
        assertThat(cli.run("keys", "list", "--data-dir", dataDirectory.toString())).isZero();
        assertThat(cli.stdout()).contains("1000 B/s");

        try (Interlace server = CliHarness.start(dataDirectory, List.of())) {
            String big = order("b-1", 3_000);
            assertThat(publish(server, bulky, big).statusCode()).as("a full bucket lets one large body go, in debt")
                    .isEqualTo(200);
            HttpResponse<String> over = publish(server, bulky, order("b-2", 10));
            assertThat(over.statusCode()).as(over.body()).isEqualTo(429);
            JsonNode body = CliHarness.JSON.readTree(over.body());
            assertThat(body.get("error").asText()).isEqualTo("rate_limited");
            assertThat(body.get("limit").asText()).isEqualTo("bytes");
            assertThat(body.get("quota_bytes_per_second").asLong()).isEqualTo(1000);
            assertThat(body.get("message").asText()).contains("1000 bytes per second");
            assertThat(Integer.parseInt(over.headers().firstValue("Retry-After").orElseThrow()))
                    .as("the debt of 2000 bytes and the next body take 2 to 3 s to refill").isBetween(2, 4);
            assertThat(head(server, bulky)).as("nothing of the refusal stored")
                    .isEqualTo(1);
        }
    }

    @Test
    void aKeyWithBothQuotasIsToldWhichOneItHit() throws Exception {
        String both = createKey("both", "--quota", "2", "--quota-bytes", "100000");
        try (Interlace server = CliHarness.start(dataDirectory, List.of())) {
            assertThat(publish(server, both, "[" + order("e-1", 10) + "," + order("e-2", 10) + "]").statusCode())
                    .isEqualTo(200);
            HttpResponse<String> over = publish(server, both, order("e-3", 10));
            assertThat(over.statusCode()).isEqualTo(429);
            JsonNode body = CliHarness.JSON.readTree(over.body());
            assertThat(body.get("limit").asText()).isEqualTo("events");
            assertThat(body.get("quota_events_per_second").asDouble()).isEqualTo(2);
            assertThat(over.headers().firstValue("Retry-After")).isPresent();
        }
    }

    @Test
    void aBadQuotaBytesIsAUsageError() {
        assertThat(cli.run("keys", "create", "--name", "k", "--scope", "publish", "--quota-bytes", "-1",
                "--data-dir", dataDirectory.toString())).isEqualTo(Main.USAGE);
        assertThat(cli.stderr()).contains("--quota-bytes is bytes per second");
    }

    /** Creates a key with the CLI; its secret. */
    private String createKey(String name, String... quota) {
        List<String> args = new java.util.ArrayList<>(List.of("keys", "create", "--name", name, "--scope",
                "publish,read", "--data-dir", dataDirectory.toString()));
        args.addAll(List.of(quota));
        assertThat(cli.run(args.toArray(String[]::new))).as(cli.stderr()).isZero();
        Matcher secret = SECRET.matcher(cli.stdout());
        assertThat(secret.find()).as(cli.stdout()).isTrue();
        return secret.group();
    }

    /** An order of about {@code bytes} bytes of JSON. */
    private static String order(String id, int bytes) {
        return "{\"order_id\":\"" + id + "\",\"meta\":{\"pad\":\"" + "x".repeat(Math.max(0, bytes - 40)) + "\"}}";
    }

    private long head(Interlace server, String secret) throws Exception {
        HttpResponse<String> stream = http.send(HttpRequest.newBuilder(server.uri().resolve("/streams/orders"))
                .header("Authorization", "Bearer " + secret).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(stream.statusCode()).as(stream.body()).isEqualTo(200);
        return CliHarness.JSON.readTree(stream.body()).get("head").asLong();
    }

    private HttpResponse<String> publish(Interlace server, String secret, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(server.uri().resolve("/streams/orders"))
                .header("Authorization", "Bearer " + secret).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
