package dev.interlace.runtime.cluster;

import dev.interlace.client.TrustedCertificates;
import dev.interlace.runtime.config.Exposure;
import dev.interlace.runtime.config.InterlaceConfig;
import jakarta.inject.Inject;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * {@link Peers} over HTTP: a request to another node is a {@code POST /_cluster/forward} to its advertised URL, the
 * forwarded request's body as the body and its method, target, request id and caller in signed
 * {@code Interlace-Forward-*} headers ({@link ForwardSignature}).
 *
 * <p>Plain {@code http://} is refused for a host that is not loopback (the request and its caller would cross the
 * network readable); {@code https://} nodes are trusted through the JVM's default authorities and the certificates
 * of {@code --cluster-ca-file}, with the host name checked. Connecting and answering are both bounded in time, so
 * an unreachable node costs a client a {@code 503}, never a hung request.
 */
public final class PeerClient implements Peers {

    /** The route every forwarded request goes to. */
    public static final String FORWARD_PATH = "/_cluster/forward";
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
    /** Longer than any route takes to answer (a publish waiting for a takeover, a bounded {@code /sql} query). */
    static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(90);

    /** Headers of the node's answer that belong to its connection, not to the answer relayed. */
    private static final Set<String> NOT_RELAYED = Set.of("connection", "content-length", "transfer-encoding",
            "keep-alive", "date", ":status");

    private final Optional<ForwardSignature> signature;
    private final HttpClient client;

    @Inject
    public PeerClient(InterlaceConfig config, Optional<ForwardSignature> signature) {
        this.signature = signature;
        HttpClient.Builder builder = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(CONNECT_TIMEOUT).followRedirects(HttpClient.Redirect.NEVER);
        if (config.log().clusterCaFile() != null) {
            builder.sslContext(sslContext(TrustedCertificates.read(config.log().clusterCaFile())));
        }
        this.client = builder.build();
    }

    @Override
    public Answer send(String nodeUrl, Request request) throws IOException {
        try {
            return sendAsync(nodeUrl, request).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for " + nodeUrl);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            throw new IOException(e.getCause());
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>Here each part of the answer is offered to {@code allowance} as it arrives, before it is kept; a refused
     * answer is not read further (its connection is closed).
     */
    @Override
    public CompletableFuture<Answer> sendAsync(String nodeUrl, Request request, AnswerAllowance allowance) {
        HttpRequest http;
        try {
            http = build(nodeUrl, request);
        } catch (IOException e) {
            return CompletableFuture.failedFuture(e);
        }
        return client.sendAsync(http, info -> new BoundedBody(nodeUrl, allowance)).handle((response, failure) -> {
            if (failure != null) {
                Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                        ? failure.getCause() : failure;
                throw new CompletionException(cause instanceof IOException ? cause
                        : new IOException(cause.toString(), cause));
            }
            Map<String, String> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
            response.headers().map().forEach((name, values) -> {
                if (!values.isEmpty() && !NOT_RELAYED.contains(name.toLowerCase(Locale.ROOT))) {
                    headers.put(name, values.get(0));
                }
            });
            return new Answer(response.statusCode(), headers, response.body());
        });
    }

    /** An answer's body kept as it arrives, each part granted by an allowance first. */
    private static final class BoundedBody implements HttpResponse.BodySubscriber<byte[]> {

        private final String nodeUrl;
        private final AnswerAllowance allowance;
        private final CompletableFuture<byte[]> body = new CompletableFuture<>();
        private final ByteArrayOutputStream kept = new ByteArrayOutputStream();
        private Flow.Subscription subscription;

        BoundedBody(String nodeUrl, AnswerAllowance allowance) {
            this.nodeUrl = nodeUrl;
            this.allowance = allowance;
        }

        @Override
        public CompletionStage<byte[]> getBody() {
            return body;
        }

        @Override
        public void onSubscribe(Flow.Subscription granted) {
            subscription = granted;
            granted.request(1);
        }

        @Override
        public void onNext(List<ByteBuffer> parts) {
            long bytes = 0;
            for (ByteBuffer part : parts) {
                bytes += part.remaining();
            }
            if (body.isDone()) {
                return;
            }
            if (!allowance.admit(bytes)) {
                body.completeExceptionally(new AnswerRefused(nodeUrl, kept.size() + bytes));
                subscription.cancel();
                return;
            }
            for (ByteBuffer part : parts) {
                byte[] copy = new byte[part.remaining()];
                part.get(copy);
                kept.writeBytes(copy);
            }
            subscription.request(1);
        }

        @Override
        public void onError(Throwable failure) {
            body.completeExceptionally(failure);
        }

        @Override
        public void onComplete() {
            body.complete(kept.toByteArray());
        }
    }

    private HttpRequest build(String nodeUrl, Request request) throws IOException {
        if (signature.isEmpty()) {
            throw new IOException("this node has no cluster secret (--cluster-secret-file), so it sends no request"
                    + " to other nodes");
        }
        URI node;
        try {
            node = URI.create(nodeUrl.endsWith("/") ? nodeUrl.substring(0, nodeUrl.length() - 1) : nodeUrl);
        } catch (IllegalArgumentException e) {
            throw new IOException("the node URL \"" + nodeUrl + "\" is not a URL");
        }
        String scheme = node.getScheme() == null ? "" : node.getScheme().toLowerCase(Locale.ROOT);
        if (node.getHost() == null || !(scheme.equals("https") || scheme.equals("http"))) {
            throw new IOException("the node URL \"" + nodeUrl + "\" is not http(s)://host[:port]");
        }
        if (scheme.equals("http") && !Exposure.isLoopback(node.getHost())) {
            throw new IOException("refusing to send a request to " + nodeUrl + " over plain http: it is not on"
                    + " loopback (the node must serve TLS and advertise https://)");
        }
        HttpRequest.Builder http = HttpRequest.newBuilder(URI.create(node + FORWARD_PATH))
                .timeout(ANSWER_TIMEOUT)
                .header("Content-Type", "application/octet-stream")
                .header("X-Request-Id", request.requestId())
                .POST(HttpRequest.BodyPublishers.ofByteArray(request.body()));
        signature.get().headers(request).forEach(http::header);
        return http.build();
    }

    /** A TLS context trusting the JVM's default authorities and {@code extra}. */
    static SSLContext sslContext(List<X509Certificate> extra) {
        try {
            TrustManagerFactory defaults = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            defaults.init((KeyStore) null);
            KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
            store.load(null, null);
            for (int i = 0; i < extra.size(); i++) {
                store.setCertificateEntry("cluster-ca-" + i, extra.get(i));
            }
            TrustManagerFactory cluster = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            cluster.init(store);
            List<X509ExtendedTrustManager> managers = new ArrayList<>();
            for (TrustManagerFactory factory : List.of(defaults, cluster)) {
                for (TrustManager manager : factory.getTrustManagers()) {
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
