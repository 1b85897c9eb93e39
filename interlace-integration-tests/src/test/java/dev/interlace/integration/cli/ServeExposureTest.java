package dev.interlace.integration.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.runtime.Interlace;
import dev.interlace.runtime.auth.KeyFile;
import dev.interlace.runtime.auth.Scope;
import dev.interlace.runtime.cli.CliHarness;
import dev.interlace.runtime.cli.Main;
import dev.interlace.runtime.config.ConfigLoader;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Serving beyond loopback: refused without a key unless the operator insists; served with keys. */
class ServeExposureTest {

    @TempDir
    Path dataDirectory;

    @Test
    void aNonLoopbackBindWithoutAKeyExits2SayingHowToCreateOne() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = CliHarness.main(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8)).run(new String[] {"serve", "--bind", "0.0.0.0",
                        "--port", "0", "--data-dir", dataDirectory.toString()});
        assertThat(code).isEqualTo(Main.USAGE);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("no API key").contains("interlace keys create")
                .contains("--insecure-no-auth");
        assertThat(out.toString(StandardCharsets.UTF_8)).doesNotContain("listening");
    }

    @Test
    void withAKeyANonLoopbackServerRequiresIt() throws Exception {
        String secret;
        try (KeyFile keys = KeyFile.open(dataDirectory)) {
            secret = keys.create("admin", List.of(Scope.parse("admin")), 0).secret();
        }
        try (Interlace server = Interlace.builder().config(ConfigLoader.load(new String[] {"--bind", "0.0.0.0",
                "--port", "0", "--data-dir", dataDirectory.toString()}, Map.of()).config()).start()) {
            URI streams = URI.create("http://127.0.0.1:" + server.port() + "/streams");
            HttpClient client = HttpClient.newHttpClient();
            assertThat(client.send(HttpRequest.newBuilder(streams).build(), HttpResponse.BodyHandlers.ofString())
                    .statusCode()).isEqualTo(401);
            assertThat(client.send(HttpRequest.newBuilder(streams).header("Authorization", "Bearer " + secret)
                    .build(), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
        }
    }

    @Test
    void insecureNoAuthServesWithoutKeysAndLeavesASystemRecord() throws Exception {
        try (Interlace server = Interlace.builder().config(ConfigLoader.load(new String[] {"--bind", "0.0.0.0",
                "--port", "0", "--data-dir", dataDirectory.toString(), "--insecure-no-auth", "--allowed-hosts",
                "127.0.0.1"}, Map.of()).config()).start()) {
            HttpClient client = HttpClient.newHttpClient();
            HttpResponse<String> records = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                    + server.port() + "/logs/sys?event=insecure_no_auth")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(records.statusCode()).isEqualTo(200);
            assertThat(records.body()).contains("WITHOUT API KEYS");
        }
    }

    @Test
    void plainHttpAdvertisedOffLoopbackOrAnOpenClusterSecretExits2SayingWhy() throws Exception {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        CliHarness.CommandLine main = CliHarness.main(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(main.run(new String[] {"serve", "--port", "0", "--data-dir", dataDirectory.toString(),
                "--advertise-url", "http://10.0.0.5:8000"})).isEqualTo(Main.USAGE);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("is plain http:// to a host that is not loopback");

        java.nio.file.Path secret = java.nio.file.Files.writeString(dataDirectory.resolve("cluster.secret"),
                "a secret of more than thirty-two bytes, but readable by all");
        java.nio.file.Files.setPosixFilePermissions(secret,
                java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
        err.reset();
        assertThat(main.run(new String[] {"serve", "--port", "0", "--data-dir", dataDirectory.toString(),
                "--cluster-secret-file", secret.toString()})).isEqualTo(Main.USAGE);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("may be read or written by other users")
                .contains("chmod 600");
    }
}
