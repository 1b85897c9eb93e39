package dev.interlace.client;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;

/**
 * Trust for a server whose certificate is signed by a private CA (or is self-signed): an {@link SSLContext} that
 * trusts exactly the certificates of a PEM file ({@code --tls-ca FILE}) and nothing else — not the JDK's default
 * authorities, and never every certificate. Host names are still checked against the certificate.
 */
public final class TrustedCertificates {

    private static final Pattern PEM_CERTIFICATE = Pattern.compile(
            "-----BEGIN CERTIFICATE-----([A-Za-z0-9+/=\\s]+?)-----END CERTIFICATE-----");

    private TrustedCertificates() {}

    /**
     * The certificates of a PEM file: one or more {@code -----BEGIN CERTIFICATE-----} blocks; text around them
     * (such as {@code openssl}'s subject lines) is ignored.
     *
     * @throws IllegalArgumentException naming the file when it holds no certificate or one that cannot be read
     * @throws UncheckedIOException when the file cannot be read
     */
    public static List<X509Certificate> read(Path pemFile) {
        String text;
        try {
            text = Files.readString(pemFile, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the CA certificates file " + pemFile + ": " + e, e);
        }
        List<X509Certificate> certificates = new ArrayList<>();
        Matcher block = PEM_CERTIFICATE.matcher(text);
        try {
            CertificateFactory factory = CertificateFactory.getInstance("X.509");
            while (block.find()) {
                byte[] der = Base64.getMimeDecoder().decode(block.group(1));
                certificates.add((X509Certificate) factory.generateCertificate(new ByteArrayInputStream(der)));
            }
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            throw new IllegalArgumentException("certificate " + (certificates.size() + 1) + " in " + pemFile
                    + " cannot be read: " + e.getMessage(), e);
        }
        if (certificates.isEmpty()) {
            throw new IllegalArgumentException(pemFile + " holds no PEM certificate (-----BEGIN CERTIFICATE-----"
                    + " ... -----END CERTIFICATE-----)");
        }
        return List.copyOf(certificates);
    }

    /** A TLS context trusting only the certificates of {@code pemFile}; see {@link #read}. */
    public static SSLContext sslContext(Path pemFile) {
        return sslContext(read(pemFile));
    }

    /** A TLS context trusting only {@code certificates}. */
    public static SSLContext sslContext(List<X509Certificate> certificates) {
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, trustManagers(certificates), null);
            return context;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("cannot set up TLS trust: " + e.getMessage(), e);
        }
    }

    /** The trust managers (the JDK's default algorithm) of a trust store holding only {@code certificates}. */
    public static TrustManager[] trustManagers(List<X509Certificate> certificates)
            throws GeneralSecurityException, IOException {
        KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
        trusted.load(null, null);
        for (int i = 0; i < certificates.size(); i++) {
            trusted.setCertificateEntry("trusted-" + i, certificates.get(i));
        }
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(trusted);
        return trust.getTrustManagers();
    }
}
