package dev.interlace.integration.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.interlace.client.InterlaceClient;
import dev.interlace.client.PublishResult;
import dev.interlace.client.TrustedCertificates;
import dev.interlace.client.testing.SelfSignedCertificate;
import dev.interlace.runtime.Interlace;
import dev.interlace.runtime.config.ConfigLoader;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLParameters;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The server itself over TLS (PEM certificate and key): its URL is https, a client trusting the CA publishes. */
class TlsServerTest {

    @TempDir
    Path directory;

    @Test
    void theServerSpeaksTlsToClientsThatTrustItsCertificateAndOnlyTlsTwelveOrLater() throws Exception {
        SelfSignedCertificate certificate = SelfSignedCertificate.generate(Files.createDirectories(
                directory.resolve("tls")));
        try (Interlace server = Interlace.builder().config(ConfigLoader.load(new String[] {"--port", "0",
                "--data-dir", directory.resolve("data").toString(), "--tls-cert",
                certificate.certificatePem().toString(), "--tls-key", certificate.privateKeyPem().toString()},
                Map.of()).config()).start()) {
            assertThat(server.uri().getScheme()).isEqualTo("https");

            InterlaceClient trusting = InterlaceClient.builder(server.uri())
                    .trustedCertificates(certificate.certificatePem()).build();
            PublishResult result = trusting.publish("orders", Map.of("order_id", "tls-1"));
            assertThat(result.accepted()).isEqualTo(1);

            HttpClient defaultTrust = HttpClient.newHttpClient();
            assertThatThrownBy(() -> defaultTrust.send(HttpRequest.newBuilder(server.uri().resolve("/health/live"))
                    .build(), HttpResponse.BodyHandlers.ofString())).isInstanceOf(SSLHandshakeException.class);

            SSLContext context = TrustedCertificates.sslContext(certificate.certificatePem());
            SSLParameters tlsOneOne = new SSLParameters();
            tlsOneOne.setProtocols(new String[] {"TLSv1.1"});
            HttpClient old = HttpClient.newBuilder().sslContext(context).sslParameters(tlsOneOne).build();
            assertThatThrownBy(() -> old.send(HttpRequest.newBuilder(server.uri().resolve("/health/live")).build(),
                    HttpResponse.BodyHandlers.ofString())).isInstanceOf(java.io.IOException.class);

            HttpClient plainHttp = HttpClient.newHttpClient();
            assertThatThrownBy(() -> plainHttp.send(HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:"
                    + server.port() + "/health/live")).build(), HttpResponse.BodyHandlers.ofString()))
                    .isInstanceOf(java.io.IOException.class);
        }
    }
}
