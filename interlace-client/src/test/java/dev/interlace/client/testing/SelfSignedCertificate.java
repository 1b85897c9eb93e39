package dev.interlace.client.testing;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/**
 * A self-signed EC certificate for {@code 127.0.0.1} and {@code localhost}, made by the JDK's {@code keytool} in a
 * directory: {@code server.p12} (PKCS#12), {@code cert.pem} (the certificate) and {@code key.pem} (its private key,
 * unencrypted PKCS#8, {@code -----BEGIN PRIVATE KEY-----}) — what {@code --tls-cert}/{@code --tls-key} and
 * {@code --tls-ca} take.
 *
 * @param keyStore the PKCS#12 file holding key and certificate under {@link #ALIAS}
 * @param certificatePem the certificate as PEM, for clients to trust
 * @param privateKeyPem the private key as PKCS#8 PEM, for a server
 * @param certificate the certificate itself
 */
public record SelfSignedCertificate(Path keyStore, Path certificatePem, Path privateKeyPem,
        X509Certificate certificate) {

    public static final String ALIAS = "interlace-test";
    /** The password of the PKCS#12 file and of its key entry. */
    public static final String PASSWORD = "interlace-test";

    /** Generates a certificate valid for two days in {@code directory}. */
    public static SelfSignedCertificate generate(Path directory) throws IOException, InterruptedException {
        Files.createDirectories(directory);
        Path keyStore = directory.resolve("server.p12");
        Files.deleteIfExists(keyStore);
        Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
        Process process = new ProcessBuilder(List.of(keytool.toString(), "-genkeypair", "-keyalg", "EC",
                "-groupname", "secp256r1", "-alias", ALIAS, "-dname", "CN=localhost", "-ext",
                "san=ip:127.0.0.1,dns:localhost", "-validity", "2", "-storetype", "PKCS12", "-keystore",
                keyStore.toString(), "-storepass", PASSWORD, "-keypass", PASSWORD)).redirectErrorStream(true).start();
        String output;
        try (InputStream stream = process.getInputStream()) {
            output = new String(stream.readAllBytes(), StandardCharsets.UTF_8);
        }
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            process.destroyForcibly();
            throw new IOException("keytool failed: " + output);
        }
        try {
            KeyStore store = load(keyStore);
            X509Certificate certificate = (X509Certificate) store.getCertificate(ALIAS);
            PrivateKey key = (PrivateKey) store.getKey(ALIAS, PASSWORD.toCharArray());
            if (!"PKCS#8".equals(key.getFormat())) {
                throw new IOException("the key is " + key.getFormat() + ", not PKCS#8");
            }
            Path certificatePem = directory.resolve("cert.pem");
            Path privateKeyPem = directory.resolve("key.pem");
            Files.writeString(certificatePem, pem("CERTIFICATE", certificate.getEncoded()));
            Files.writeString(privateKeyPem, pem("PRIVATE KEY", key.getEncoded()));
            return new SelfSignedCertificate(keyStore, certificatePem, privateKeyPem, certificate);
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot read " + keyStore + ": " + e, e);
        }
    }

    /** A TLS context serving this certificate, for a test server. */
    public SSLContext serverContext() {
        try {
            KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keys.init(load(keyStore), PASSWORD.toCharArray());
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keys.getKeyManagers(), null, null);
            return context;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static KeyStore load(Path file) throws IOException, GeneralSecurityException {
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(file)) {
            store.load(in, PASSWORD.toCharArray());
        }
        return store;
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }
}
