package dev.interlace.runtime.cluster;

import dev.interlace.client.TrustedCertificates;
import java.io.IOException;
import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

/** Whom a node trusts when it connects to another over TLS: the JVM's default authorities and the cluster's own. */
final class ClusterTrust {

    private ClusterTrust() {
    }

    /** A TLS context trusting the JVM's default authorities and {@code extra}. */
    static SSLContext context(List<X509Certificate> extra) {
        try {
            TrustManagerFactory defaults = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            defaults.init((KeyStore) null);
            List<X509ExtendedTrustManager> managers = new ArrayList<>();
            TrustManager[] own = TrustedCertificates.trustManagers(extra);
            for (TrustManager[] trust : List.of(defaults.getTrustManagers(), own)) {
                for (TrustManager manager : trust) {
                    if (manager instanceof X509ExtendedTrustManager x509) {
                        managers.add(x509);
                    }
                }
            }
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, new TrustManager[] {new EitherTrustManager(managers)}, null);
            return context;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("cannot set up TLS trust for the cluster: " + e.getMessage(), e);
        }
    }

    /** Trusts a server that any of its managers trusts (each checks the chain and the host name itself). */
    private static final class EitherTrustManager extends X509ExtendedTrustManager {

        private final List<X509ExtendedTrustManager> managers;

        EitherTrustManager(List<X509ExtendedTrustManager> managers) {
            this.managers = managers;
        }

        private interface Check {
            void run(X509ExtendedTrustManager manager) throws CertificateException;
        }

        private void any(Check check) throws CertificateException {
            CertificateException last = new CertificateException("no trust manager");
            for (X509ExtendedTrustManager manager : managers) {
                try {
                    check.run(manager);
                    return;
                } catch (CertificateException e) {
                    last = e;
                }
            }
            throw last;
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
                throws CertificateException {
            any(manager -> manager.checkServerTrusted(chain, authType, socket));
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
                throws CertificateException {
            any(manager -> manager.checkServerTrusted(chain, authType, engine));
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            any(manager -> manager.checkServerTrusted(chain, authType));
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
                throws CertificateException {
            throw new CertificateException("a node's client does not check clients");
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
                throws CertificateException {
            throw new CertificateException("a node's client does not check clients");
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            throw new CertificateException("a node's client does not check clients");
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return managers.stream().flatMap(manager -> java.util.Arrays.stream(manager.getAcceptedIssuers()))
                    .toArray(X509Certificate[]::new);
        }
    }
}
