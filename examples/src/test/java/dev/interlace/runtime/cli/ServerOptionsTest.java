package dev.interlace.runtime.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.client.testing.RecordingServer;
import dev.interlace.client.testing.SelfSignedCertificate;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The options every server-talking command shares: the API key (from {@code --api-key-file} or
 * {@code INTERLACE_API_KEY}) sent as a Bearer header, and {@code --tls-ca}; checked against a recording stand-in
 * server, since what matters here is what the CLI sends and how it reports refusals.
 */
class ServerOptionsTest {

    private static final String SQL_ANSWER = "{\"columns\":[{\"name\":\"x\",\"type\":\"INTEGER\"}],\"rows\":[[1]],"
            + "\"count\":1,\"truncated\":false}";

    @TempDir
    Path directory;

    private final CliHarness cli = new CliHarness();

    private int run(Map<String, String> environment, String... args) {
        return cli.run(environment, args);
    }

    private String stderr() {
        return cli.stderr();
    }

    @Test
    void theKeyFromTheEnvironmentIsSentAsABearerToken() throws Exception {
        try (RecordingServer server = RecordingServer.http(200, SQL_ANSWER)) {
            assertThat(run(Map.of("INTERLACE_API_KEY", " ilk_from_env \n"), "sql", "SELECT 1", "--server",
                    server.uri().toString())).as(stderr()).isZero();
            assertThat(server.authorizations()).containsExactly("Bearer ilk_from_env");
        }
    }

    @Test
    void theKeyFileWinsOverTheEnvironmentAndOnlyItsFirstLineCounts() throws Exception {
        Path keyFile = directory.resolve("key");
        Files.writeString(keyFile, "  ilk_from_file  \nilk_second_line\n");
        try (RecordingServer server = RecordingServer.http(200, SQL_ANSWER)) {
            assertThat(run(Map.of("INTERLACE_API_KEY", "ilk_from_env"), "sql", "SELECT 1", "--api-key-file",
                    keyFile.toString(), "--server=" + server.uri())).as(stderr()).isZero();
            assertThat(server.authorizations()).containsExactly("Bearer ilk_from_file");
        }
    }

    @Test
    void everyServerCommandSendsTheKey() throws Exception {
        Path keyFile = directory.resolve("key");
        Files.writeString(keyFile, "ilk_k\n");
        Path events = Files.writeString(directory.resolve("events.ndjson"), "{\"order_id\":\"o1\"}\n");
        try (RecordingServer server = RecordingServer.http(500, "{\"error\":\"internal\",\"message\":\"stub\"}")) {
            String url = server.uri().toString();
            List<List<String>> commands = List.of(List.of("sql", "SELECT 1"), List.of("runs"), List.of("run", "m"),
                    List.of("logs", "api"), List.of("logs", "sys"), List.of("tail", "orders"),
                    List.of("correlate", "req-1"), List.of("publish", "orders", events.toString()),
                    List.of("quarantine", "list", "clicks"), List.of("quarantine", "replay", "clicks", "--all"));
            for (List<String> command : commands) {
                List<String> args = new java.util.ArrayList<>(command);
                args.addAll(List.of("--server", url, "--api-key-file", keyFile.toString()));
                assertThat(run(Map.of(), args.toArray(String[]::new))).as(command + ": " + stderr())
                        .isEqualTo(Main.FAILED);
            }
            assertThat(server.authorizations()).hasSize(commands.size()).containsOnly("Bearer ilk_k");
        }
    }

    @Test
    void withoutAKeyNoHeaderIsSentAndA401SaysHowToGiveOne() throws Exception {
        try (RecordingServer server = RecordingServer.http(401,
                "{\"error\":\"unauthorized\",\"message\":\"this server needs an API key\"}")) {
            assertThat(run(Map.of(), "sql", "SELECT 1", "--server", server.uri().toString()))
                    .isEqualTo(Main.FAILED);
            assertThat(server.authorizations()).containsExactly("(none)");
            assertThat(stderr()).contains("the server needs an API key: set INTERLACE_API_KEY or pass"
                    + " --api-key-file");

            assertThat(run(Map.of("INTERLACE_API_KEY", "ilk_revoked"), "runs", "--server", server.uri().toString()))
                    .isEqualTo(Main.FAILED);
            assertThat(stderr()).contains("refused the API key from INTERLACE_API_KEY: unknown or revoked");

            server.answer(403, "{\"error\":\"forbidden\",\"message\":\"the key lacks the read scope\"}");
            assertThat(run(Map.of("INTERLACE_API_KEY", "ilk_publisher"), "runs", "--server",
                    server.uri().toString())).isEqualTo(Main.FAILED);
            assertThat(stderr()).contains("the API key does not allow this").contains("lacks the read scope");
        }
    }

    @Test
    void anUnreadableOrEmptyKeyFileFailsBeforeAnyRequest() throws Exception {
        Path empty = directory.resolve("empty");
        Files.writeString(empty, "\n");
        try (RecordingServer server = RecordingServer.http(200, SQL_ANSWER)) {
            assertThat(run(Map.of(), "sql", "SELECT 1", "--server", server.uri().toString(), "--api-key-file",
                    directory.resolve("missing").toString())).isEqualTo(Main.FAILED);
            assertThat(stderr()).contains("cannot read the API key file");
            assertThat(run(Map.of(), "sql", "SELECT 1", "--server", server.uri().toString(), "--api-key-file",
                    empty.toString())).isEqualTo(Main.FAILED);
            assertThat(stderr()).contains("has no key on its first line");
            assertThat(run(Map.of(), "sql", "SELECT 1", "--api-key-file")).isEqualTo(Main.USAGE);
            assertThat(server.authorizations()).isEmpty();
        }
    }

    @Test
    void tlsCaTrustsAServerCertificateTheJdkDoesNot() throws Exception {
        SelfSignedCertificate certificate = SelfSignedCertificate.generate(directory.resolve("tls"));
        try (RecordingServer server = RecordingServer.https(certificate.serverContext(), 200, SQL_ANSWER)) {
            String url = server.uri().toString();
            assertThat(url).startsWith("https://");

            assertThat(run(Map.of("INTERLACE_API_KEY", "ilk_k"), "sql", "SELECT 1", "--server", url, "--tls-ca",
                    certificate.certificatePem().toString())).as(stderr()).isZero();
            assertThat(server.authorizations()).containsExactly("Bearer ilk_k");

            assertThat(run(Map.of(), "sql", "SELECT 1", "--server", url)).isEqualTo(Main.FAILED);
            assertThat(stderr()).contains("TLS with " + url + " failed").contains("--tls-ca FILE");
            assertThat(server.authorizations()).hasSize(1);
        }
    }

    @Test
    void aTlsCaFileWithoutACertificateFails() throws Exception {
        Path notPem = directory.resolve("ca.pem");
        Files.writeString(notPem, "hello\n");
        assertThat(run(Map.of(), "sql", "SELECT 1", "--server", "https://127.0.0.1:1", "--tls-ca",
                notPem.toString())).isEqualTo(Main.FAILED);
        assertThat(stderr()).contains("--tls-ca").contains("holds no PEM certificate");
    }
}
