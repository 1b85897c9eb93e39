package dev.interlace.runtime.cluster;

import dev.interlace.client.TrustedCertificates;
import dev.interlace.runtime.config.Exposure;
import dev.interlace.runtime.config.InterlaceConfig;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import jakarta.inject.Inject;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.URI;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import javax.net.ssl.SSLContext;

/**
 * {@link Peers} over HTTP/1.1 on a few persistent connections per node ({@link PeerPool}): a request to another node
 * is a {@code POST /_cluster/forward} to its advertised URL, the forwarded request's body as the body and its method,
 * target, request id and caller in {@code Interlace-Forward-*} headers ({@link ForwardSignature}). Each connection
 * first opens a session that proves the cluster secret both ways ({@code POST /_cluster/session}), after which its
 * requests carry no signature and are pipelined: several in flight on one connection, answered in order. A node that
 * opens no session (one from before sessions) gets every request signed on its own, as then.
 *
 * <p>Plain {@code http://} is refused for a host that is not loopback (the request and its caller would cross the
 * network readable); {@code https://} nodes are trusted through the JVM's default authorities and the certificates
 * of {@code --cluster-ca-file}, with the host name checked. Connecting and answering are both bounded in time, so
 * an unreachable node costs a client a {@code 503}, never a hung request.
 */
public final class PeerClient implements Peers {

    /** The route every forwarded request goes to. */
    public static final String FORWARD_PATH = "/_cluster/forward";
    /** The route a connection's session is opened with, before its first forwarded request. */
    public static final String SESSION_PATH = "/_cluster/session";
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
    /** Longer than any route takes to answer (a publish waiting for a takeover, a bounded {@code /sql} query). */
    static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(90);

    private final Optional<ForwardSignature> signature;
    private final java.util.List<java.security.cert.X509Certificate> clusterCertificates;
    private final Map<String, PeerPool> pools = new ConcurrentHashMap<>();
    private volatile SSLContext tls;
    private volatile EventLoopGroup loop;

    @Inject
    public PeerClient(InterlaceConfig config, Optional<ForwardSignature> signature) {
        this.signature = signature;
        this.clusterCertificates = config.log().clusterCaFile() == null ? null
                : TrustedCertificates.read(config.log().clusterCaFile());
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
     * <p>Here each part of the answer is offered to {@code allowance} as it arrives, before it is kept; the rest of a
     * refused answer is read and thrown away, and the connection serves the next answers.
     */
    @Override
    public CompletableFuture<Answer> sendAsync(String nodeUrl, Request request, AnswerAllowance allowance) {
        URI node;
        try {
            node = node(nodeUrl);
        } catch (IOException e) {
            return CompletableFuture.failedFuture(e);
        }
        String key = node.getScheme().toLowerCase(Locale.ROOT) + "://" + node.getHost().toLowerCase(Locale.ROOT)
                + ":" + port(node);
        PeerPool pool = pools.computeIfAbsent(key, ignored -> new PeerPool(nodeUrl, node.getHost(), port(node),
                node.getScheme().equalsIgnoreCase("https") ? tls() : null, signature.get(), loop()));
        return pool.send(request, allowance);
    }

    /** The node's URL, checked: a cluster secret to send with, http(s), and plain http only to loopback. */
    private URI node(String nodeUrl) throws IOException {
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
        return node;
    }

    private static int port(URI node) {
        return node.getPort() > 0 ? node.getPort() : node.getScheme().equalsIgnoreCase("https") ? 443 : 80;
    }

    /** The TLS trust: the JVM's default authorities, and the cluster's certificates when there are some. */
    private SSLContext tls() {
        SSLContext context = tls;
        if (context == null) {
            try {
                context = clusterCertificates == null ? SSLContext.getDefault()
                        : ClusterTrust.context(clusterCertificates);
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("this JVM has no TLS", e);
            }
            tls = context;
        }
        return context;
    }

    /** The one event loop every connection to other nodes runs on, started with the first request. */
    private EventLoopGroup loop() {
        EventLoopGroup group = loop;
        if (group == null) {
            synchronized (this) {
                if (loop == null) {
                    loop = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("interlace-peer-io", true),
                            NioIoHandler.newFactory());
                }
                group = loop;
            }
        }
        return group;
    }
}
