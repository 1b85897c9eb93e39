package dev.interlace.integration.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.client.testing.SelfSignedCertificate;
import dev.interlace.runtime.Interlace;
import dev.interlace.runtime.auth.KeyFile;
import dev.interlace.runtime.auth.Scope;
import dev.interlace.runtime.cli.CliHarness;
import dev.interlace.runtime.cli.Main;
import dev.interlace.runtime.config.ConfigLoader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The CLI against the real server with keys and TLS: the key and the CA are what make a command work. */
class CliAgainstSecuredServerTest {

    @TempDir
    Path directory;

    private record Run(int code, String out, String err) {}

    private static Run cli(Map<String, String> environment, String... args) {
        CliHarness cli = new CliHarness();
        int code = cli.run(environment, args);
        return new Run(code, cli.stdout(), cli.stderr());
    }

    @Test
    void sqlWorksWithTheKeyAndTheCaAndSaysWhatIsMissingOtherwise() throws Exception {
        Path data = directory.resolve("data");
        SelfSignedCertificate certificate = certificate();
        String secret;
        try (KeyFile keys = KeyFile.open(data)) {
            secret = keys.create("analyst", List.of(Scope.parse("read")), 0).secret();
        }
        Path keyFile = Files.writeString(directory.resolve("analyst.key"), secret + "\n");
        try (Interlace server = startWithTls(data, certificate)) {
            String url = server.uri().toString();
            String ca = certificate.certificatePem().toString();

            Run ok = cli(Map.of(), "sql", "--server", url, "--tls-ca", ca, "--api-key-file", keyFile.toString(),
                    "SELECT 41 + 1 AS answer");
            assertThat(ok.code()).as(ok.err()).isZero();
            assertThat(ok.out()).contains("42");

            Run fromEnvironment = cli(Map.of("INTERLACE_API_KEY", secret), "sql", "--server", url, "--tls-ca", ca,
                    "SELECT 1 AS one");
            assertThat(fromEnvironment.code()).as(fromEnvironment.err()).isZero();

            Run noKey = cli(Map.of(), "sql", "--server", url, "--tls-ca", ca, "SELECT 1");
            assertThat(noKey.code()).isEqualTo(Main.FAILED);
            assertThat(noKey.err()).contains("INTERLACE_API_KEY");

            Run noCa = cli(Map.of("INTERLACE_API_KEY", secret), "sql", "--server", url, "SELECT 1");
            assertThat(noCa.code()).isEqualTo(Main.FAILED);
            assertThat(noCa.err()).contains("--tls-ca");
            assertThat(ok.out() + ok.err() + noKey.err() + noCa.err()).doesNotContain(secret);
        }
    }

    @Test
    void publishAndQuarantineTakeTheKeyAndTheCaLikeTheOtherCommands() throws Exception {
        Path data = directory.resolve("data");
        SelfSignedCertificate certificate = certificate();
        Path publisher;
        Path reader;
        Path operator;
        try (KeyFile keys = KeyFile.open(data)) {
            publisher = Files.writeString(directory.resolve("publisher.key"),
                    keys.create("publisher", List.of(Scope.parse("publish:clicks")), 0).secret() + "\n");
            reader = Files.writeString(directory.resolve("reader.key"),
                    keys.create("reader", List.of(Scope.parse("read")), 0).secret() + "\n");
            operator = Files.writeString(directory.resolve("operator.key"),
                    keys.create("operator", List.of(Scope.parse("operate")), 0).secret() + "\n");
        }
        Path events = Files.writeString(directory.resolve("clicks.ndjson"),
                "{\"click_id\":\"c1\",\"url\":\"/\",\"at\":\"2026-12-01T09:00:00Z\"}\n"
                        + "{\"click_id\":\"c2\",\"url\":\"/\",\"at\":\"soon\"}\n");
        try (Interlace server = startWithTls(data, certificate)) {
            String url = server.uri().toString();
            String ca = certificate.certificatePem().toString();

            Run published = cli(Map.of(), "publish", "clicks", events.toString(), "--server", url, "--tls-ca", ca,
                    "--api-key-file", publisher.toString());
            assertThat(published.code()).as(published.err()).isZero();
            assertThat(published.out()).contains("accepted      1", "quarantined   1");

            Run listed = cli(Map.of(), "quarantine", "list", "clicks", "--server", url, "--tls-ca", ca,
                    "--api-key-file", reader.toString());
            assertThat(listed.code()).as(listed.err()).isZero();
            assertThat(listed.out()).contains("(1 of 1 entries)");

            Run notAllowed = cli(Map.of(), "quarantine", "replay", "clicks", "--all", "--dry-run", "--server", url,
                    "--tls-ca", ca, "--api-key-file", reader.toString());
            assertThat(notAllowed.code()).isEqualTo(Main.FAILED);
            assertThat(notAllowed.err()).contains("does not allow", "operate");

            Run replayed = cli(Map.of(), "quarantine", "replay", "clicks", "--all", "--dry-run", "--server", url,
                    "--tls-ca", ca, "--api-key-file", operator.toString());
            assertThat(replayed.code()).as(replayed.err()).isZero();
            assertThat(replayed.out()).contains("1 still invalid");

            Run noCa = cli(Map.of(), "publish", "clicks", events.toString(), "--server", url, "--api-key-file",
                    publisher.toString());
            assertThat(noCa.code()).isEqualTo(Main.FAILED);
            assertThat(noCa.err()).contains("--tls-ca");
        }
    }

    private SelfSignedCertificate certificate() throws IOException, InterruptedException {
        return SelfSignedCertificate.generate(Files.createDirectories(directory.resolve("tls")));
    }

    /** A server on {@code data} that answers over TLS only, with {@code certificate}. */
    private static Interlace startWithTls(Path data, SelfSignedCertificate certificate) {
        return Interlace.builder().config(ConfigLoader.load(new String[] {"--port", "0", "--data-dir",
                data.toString(), "--tls-cert", certificate.certificatePem().toString(), "--tls-key",
                certificate.privateKeyPem().toString()}, Map.of()).config()).start();
    }
}
