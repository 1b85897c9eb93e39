package dev.interlace.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.interlace.client.testing.RecordingServer;
import dev.interlace.client.testing.SelfSignedCertificate;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Java client's API key and certificate settings, against a recording stand-in server. */
class ClientAuthTest {

    private static final String PUBLISHED = "{\"accepted\":1,\"deduplicated\":0,\"quarantined\":0,"
            + "\"last_offset\":7,\"request_id\":\"req-1\"}";

    @TempDir
    Path directory;

    @Test
    void thePublisherSendsItsKeyOverTlsTrustingTheGivenCertificate() throws Exception {
        SelfSignedCertificate certificate = SelfSignedCertificate.generate(directory);
        try (RecordingServer server = RecordingServer.https(certificate.serverContext(), 200, PUBLISHED)) {
            InterlaceClient client = InterlaceClient.builder(server.uri()).apiKey("ilk_secret")
                    .trustedCertificates(certificate.certificatePem()).build();
            PublishResult result = client.publish("orders", Map.of("order_id", "o1"));
            assertThat(result.accepted()).isEqualTo(1);
            assertThat(server.authorizations()).containsExactly("Bearer ilk_secret");
            assertThat(server.paths()).containsExactly("/streams/orders");
        }
    }

    @Test
    void withoutTheCertificateTheJdkDefaultTrustRefusesTheServer() throws Exception {
        SelfSignedCertificate certificate = SelfSignedCertificate.generate(directory);
        try (RecordingServer server = RecordingServer.https(certificate.serverContext(), 200, PUBLISHED)) {
            InterlaceClient client = InterlaceClient.builder(server.uri()).apiKey("ilk_secret").build();
            assertThatThrownBy(() -> client.publish("orders", Map.of("order_id", "o1")))
                    .isInstanceOf(PublishException.class).hasMessageContaining("tls_failed")
                    .hasMessageContaining("trustedCertificates");
            assertThat(server.authorizations()).isEmpty();
        }
    }

    @Test
    void aCertificateForAnotherHostIsRefusedEvenWhenTrusted() throws Exception {
        SelfSignedCertificate certificate = SelfSignedCertificate.generate(directory);
        try (RecordingServer server = RecordingServer.https(certificate.serverContext(), 200, PUBLISHED)) {
            // The certificate names 127.0.0.1 and localhost; the same server reached as 127.0.0.2 is not it.
            java.net.URI other = java.net.URI.create(server.uri().toString().replace("127.0.0.1", "127.0.0.2"));
            InterlaceClient client = InterlaceClient.builder(other)
                    .sslContext(TrustedCertificates.sslContext(certificate.certificatePem()))
                    .retryDeadline(java.time.Duration.ofMillis(200)).build();
            assertThatThrownBy(() -> client.publish("orders", Map.of("order_id", "o1")))
                    .isInstanceOf(PublishException.class);
            assertThat(server.authorizations()).isEmpty();
        }
    }

    @Test
    void aRefusedKeyIsNotRetried() throws Exception {
        try (RecordingServer server = RecordingServer.http(401,
                "{\"error\":\"unauthorized\",\"message\":\"unknown API key\"}")) {
            InterlaceClient client = InterlaceClient.builder(server.uri()).apiKey("ilk_revoked").build();
            assertThatThrownBy(() -> client.publish("orders", Map.of("order_id", "o1")))
                    .isInstanceOfSatisfying(PublishException.class, e -> {
                        assertThat(e.status()).isEqualTo(401);
                        assertThat(e.code()).isEqualTo("unauthorized");
                    });
            assertThat(server.authorizations()).containsExactly("Bearer ilk_revoked");
        }
    }

    @Test
    void theConsumerSendsItsKeyAndStopsWhenItIsRefused() throws Exception {
        try (RecordingServer server = RecordingServer.http(403,
                "{\"error\":\"forbidden\",\"message\":\"needs consume:orders\"}")) {
            StreamConsumer consumer = StreamConsumer.of(server.uri(), "orders", "billing", "worker-1")
                    .withApiKey("ilk_reader");
            assertThatThrownBy(() -> consumer.run(events -> { })).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("refused the consumer's API key").hasMessageContaining("consume:orders");
            assertThat(server.authorizations()).containsExactly("Bearer ilk_reader");
        }
    }

    @Test
    void trustedCertificatesReadsEveryCertificateOfAPemFile() throws Exception {
        SelfSignedCertificate first = SelfSignedCertificate.generate(directory.resolve("a"));
        SelfSignedCertificate second = SelfSignedCertificate.generate(directory.resolve("b"));
        Path bundle = directory.resolve("bundle.pem");
        Files.writeString(bundle, "subject=CN=localhost\n" + Files.readString(first.certificatePem())
                + Files.readString(second.certificatePem()));
        assertThat(TrustedCertificates.read(bundle)).containsExactly(first.certificate(), second.certificate());
        assertThat(Files.readString(first.privateKeyPem())).startsWith("-----BEGIN PRIVATE KEY-----\n")
                .endsWith("-----END PRIVATE KEY-----\n");
    }
}
