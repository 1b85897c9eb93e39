package dev.interlace.runtime.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.ReferenceCountUtil;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;

/**
 * One connection to another node: opens its session ({@link ForwardSignature#sessionProof}, both ends proving the
 * secret over both nonces), then carries pipelined requests and reads their answers in the order they were sent.
 * Everything but {@link #submit} and the counters runs on the connection's event loop.
 *
 * <p>A node that does not know sessions (it answers the opening {@code 404}) gets each request signed on its own. A
 * request not answered within {@link PeerClient#ANSWER_TIMEOUT} closes the connection (those pipelined behind it
 * would wait as long), failing what was in flight on it; so does an answer this node cannot read.
 */
final class PeerConnection extends ChannelInboundHandlerAdapter {

    /** Closed when nothing was sent on it for this long: before the other node's idle limit (60 s by default). */
    static final int IDLE_SECONDS = 30;
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Headers of the node's answer that belong to its connection, not to the answer relayed. */
    private static final Set<String> NOT_RELAYED = Set.of("connection", "content-length", "transfer-encoding",
            "keep-alive", "date");

    /** A request and the answer being read for it. */
    static final class Exchange {
        private final Peers.Request request;
        private final Peers.AnswerAllowance allowance;
        private final CompletableFuture<Peers.Answer> answer = new CompletableFuture<>();
        private boolean pooled;
        private int status;
        private boolean keepAlive;
        private final Map<String, String> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        private final ByteArrayOutputStream kept = new ByteArrayOutputStream();
        private boolean refused;
        private ScheduledFuture<?> timeout;

        Exchange(Peers.Request request, Peers.AnswerAllowance allowance) {
            this.request = request;
            this.allowance = allowance;
        }

        CompletableFuture<Peers.Answer> answer() {
            return answer;
        }
    }

    private final PeerPool pool;
    private final String nodeUrl;
    private final String authority;
    private final ForwardSignature signature;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final ArrayDeque<Exchange> answering = new ArrayDeque<>();
    private final String connectingNonce = ForwardSignature.nonce();
    private volatile Channel channel;
    private volatile boolean ready;
    /** The node opened no session: each request is signed on its own. */
    private boolean signing;
    /** The connection was ready once (its session opened): its failure says nothing about reaching the node. */
    private boolean opened;
    private boolean closed;

    private PeerConnection(PeerPool pool, String nodeUrl, String authority, ForwardSignature signature) {
        this.pool = pool;
        this.nodeUrl = nodeUrl;
        this.authority = authority;
        this.signature = signature;
    }

    /** Starts connecting to {@code host:port} (over TLS with {@code tls}, the host name checked). */
    static PeerConnection open(PeerPool pool, String nodeUrl, String host, int port, SSLContext tls,
            ForwardSignature signature, EventLoopGroup loop) {
        String address = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        PeerConnection connection = new PeerConnection(pool, nodeUrl, host + ":" + port, signature);
        new Bootstrap().group(loop).channel(NioSocketChannel.class)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) PeerClient.CONNECT_TIMEOUT.toMillis())
                .option(ChannelOption.TCP_NODELAY, true)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel channel) {
                        if (tls != null) {
                            SSLEngine engine = tls.createSSLEngine(address, port);
                            engine.setUseClientMode(true);
                            SSLParameters parameters = engine.getSSLParameters();
                            parameters.setEndpointIdentificationAlgorithm("HTTPS");
                            engine.setSSLParameters(parameters);
                            channel.pipeline().addLast("tls", new SslHandler(engine));
                        }
                        channel.pipeline().addLast("codec", new HttpClientCodec())
                                .addLast("idle", new IdleStateHandler(0, 0, IDLE_SECONDS))
                                .addLast("peer", connection);
                    }
                })
                .connect(address, port).addListener((ChannelFutureListener) connected -> {
                    if (!connected.isSuccess()) {
                        connected.channel().eventLoop().execute(() -> connection.fail(io(connected.cause())));
                    }
                });
        return connection;
    }

    /** Whether requests may be sent: the session is open (or the node signs none). */
    boolean ready() {
        return ready;
    }

    /** Requests the pool placed here and not yet answered. */
    int inFlight() {
        return inFlight.get();
    }

    /** Counts a request the pool is about to {@link #submit} here (under the pool's lock). */
    void reserve() {
        inFlight.incrementAndGet();
    }

    /** Sends a request the pool {@link #reserve reserved} a place for. */
    void submit(Exchange exchange) {
        exchange.pooled = true;
        channel.eventLoop().execute(() -> {
            if (closed) { // closed before it was written: nothing of it reached the node, another connection takes it
                inFlight.decrementAndGet();
                exchange.pooled = false;
                pool.resend(exchange);
                return;
            }
            Map<String, String> forward;
            try {
                forward = signing ? signature.headers(exchange.request)
                        : ForwardSignature.unsignedHeaders(exchange.request);
            } catch (IllegalArgumentException e) {
                finished(exchange);
                exchange.answer.completeExceptionally(new IOException(e.getMessage(), e));
                return;
            }
            FullHttpRequest http = request(PeerClient.FORWARD_PATH, exchange.request.body(), forward);
            http.headers().set("X-Request-Id", exchange.request.requestId());
            send(http, exchange);
        });
    }

    @Override
    public void channelActive(ChannelHandlerContext context) {
        channel = context.channel();
        Exchange opening = new Exchange(null, Peers.AnswerAllowance.UNLIMITED);
        opening.answer.thenAccept(this::challenged);
        send(request(PeerClient.SESSION_PATH, new byte[0], Map.of(ForwardSignature.SESSION_NONCE, connectingNonce)),
                opening);
        context.fireChannelActive();
    }

    /** The node's answer to the session's opening: its nonce and proof, checked before this node proves its own. */
    private void challenged(Peers.Answer answer) {
        if (answer.status() == 404) { // a node from before sessions: it checks a signature on every request
            signing = true;
            open();
            return;
        }
        JsonNode body = json(answer);
        String nonce = body.path("nonce").asText(null);
        if (answer.status() != 200 || !ForwardSignature.isNonce(nonce) || !signature.provesSession(
                body.path("proof").asText(null), ForwardSignature.Side.ACCEPTING, connectingNonce, nonce)) {
            String why = answer.status() == 200 ? "its proof is of another secret"
                    : "it answered " + answer.status() + " " + body.path("message").asText("");
            fail(new IOException("node " + nodeUrl + " did not prove the cluster secret when this node opened a"
                    + " session (" + why + "); do the nodes share the same --cluster-secret-file?"));
            return;
        }
        Exchange proving = new Exchange(null, Peers.AnswerAllowance.UNLIMITED);
        proving.answer.thenAccept(proved -> {
            if (proved.status() == 200) {
                open();
            } else {
                fail(new IOException("node " + nodeUrl + " refused this node's session (" + proved.status() + " "
                        + json(proved).path("message").asText("") + "); do the nodes share the same"
                        + " --cluster-secret-file?"));
            }
        });
        send(request(PeerClient.SESSION_PATH, new byte[0], Map.of(ForwardSignature.SESSION_PROOF,
                signature.sessionProof(ForwardSignature.Side.CONNECTING, connectingNonce, nonce))), proving);
    }

    private void open() {
        opened = true;
        ready = true;
        pool.room(this);
    }

    private FullHttpRequest request(String path, byte[] body, Map<String, String> headers) {
        FullHttpRequest http = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, path,
                Unpooled.wrappedBuffer(body));
        http.headers().set(HttpHeaderNames.HOST, authority)
                .set(HttpHeaderNames.CONTENT_TYPE, "application/octet-stream")
                .set(HttpHeaderNames.CONTENT_LENGTH, body.length);
        headers.forEach(http.headers()::set);
        return http;
    }

    /** Writes {@code http}; its answer is the next one read after those in flight before it. */
    private void send(FullHttpRequest http, Exchange exchange) {
        answering.add(exchange);
        exchange.timeout = channel.eventLoop().schedule(() -> fail(new IOException("node " + nodeUrl + " did not"
                + " answer within " + PeerClient.ANSWER_TIMEOUT.toSeconds() + " s")),
                PeerClient.ANSWER_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        channel.writeAndFlush(http).addListener((ChannelFutureListener) written -> {
            if (!written.isSuccess()) {
                fail(io(written.cause()));
            }
        });
    }

    @Override
    public void channelRead(ChannelHandlerContext context, Object message) {
        try {
            Exchange exchange = answering.peek();
            if (exchange == null) {
                fail(new IOException("node " + nodeUrl + " sent an answer to no request"));
                return;
            }
            if (message instanceof HttpResponse response) {
                if (response.decoderResult().isFailure()) {
                    fail(new IOException("node " + nodeUrl + " sent an answer that is not HTTP: "
                            + response.decoderResult().cause()));
                    return;
                }
                exchange.status = response.status().code();
                exchange.keepAlive = HttpUtil.isKeepAlive(response);
                response.headers().forEach(header -> {
                    if (!NOT_RELAYED.contains(header.getKey().toLowerCase(Locale.ROOT))) {
                        exchange.headers.putIfAbsent(header.getKey(), header.getValue());
                    }
                });
            }
            if (message instanceof HttpContent content) {
                take(exchange, content);
            }
        } finally {
            ReferenceCountUtil.release(message);
        }
    }

    /** A part of {@code exchange}'s answer: kept when the allowance grants it, thrown away after a refusal. */
    private void take(Exchange exchange, HttpContent content) {
        int bytes = content.content().readableBytes();
        if (bytes > 0 && !exchange.refused) {
            if (exchange.allowance.admit(bytes)) {
                exchange.kept.writeBytes(io.netty.buffer.ByteBufUtil.getBytes(content.content()));
            } else {
                exchange.refused = true; // the rest is read and thrown away: the answers behind it still come
                exchange.answer.completeExceptionally(new Peers.AnswerRefused(nodeUrl, exchange.kept.size() + bytes));
            }
        }
        if (content instanceof LastHttpContent) {
            if (exchange.status >= 100 && exchange.status < 200) { // an interim answer: the real one follows
                exchange.headers.clear();
                return;
            }
            answering.poll();
            finished(exchange);
            if (!exchange.refused) {
                exchange.answer.complete(new Peers.Answer(exchange.status, exchange.headers,
                        exchange.kept.toByteArray()));
            }
            if (!exchange.keepAlive) {
                fail(new IOException("node " + nodeUrl + " closed the connection after an answer"));
            } else if (exchange.request != null) {
                pool.room(this);
            }
        }
    }

    private void finished(Exchange exchange) {
        if (exchange.timeout != null) {
            exchange.timeout.cancel(false);
        }
        if (exchange.pooled) {
            exchange.pooled = false;
            inFlight.decrementAndGet();
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext context, Object event) {
        if (event instanceof IdleStateEvent && answering.isEmpty() && pool.retireIfIdle(this)) {
            fail(new IOException("the connection to node " + nodeUrl + " was idle"));
        }
        context.fireUserEventTriggered(event);
    }

    /** Marks the connection as no longer taking requests (the pool's lock held); false when some are on the way. */
    boolean retire() {
        if (inFlight.get() > 0) {
            return false;
        }
        ready = false;
        return true;
    }

    @Override
    public void channelInactive(ChannelHandlerContext context) {
        fail(new IOException("the connection to node " + nodeUrl + " closed"
                + (answering.isEmpty() ? "" : " before its answer")));
        context.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext context, Throwable cause) {
        fail(io(cause));
    }

    /** Ends the connection: what was in flight on it fails with {@code cause}, and the pool forgets it. */
    private void fail(IOException cause) {
        if (closed) {
            return;
        }
        closed = true;
        ready = false;
        for (Exchange exchange; (exchange = answering.poll()) != null; ) {
            finished(exchange);
            exchange.answer.completeExceptionally(cause);
        }
        if (channel != null) {
            channel.close();
        }
        pool.closed(this, cause, opened);
    }

    private static JsonNode json(Peers.Answer answer) {
        try {
            return JSON.readTree(answer.body());
        } catch (IOException e) {
            return JSON.createObjectNode();
        }
    }

    private static IOException io(Throwable cause) {
        if (cause instanceof IOException io) {
            return io;
        }
        if (cause.getCause() instanceof IOException io) {
            return io;
        }
        return new IOException(String.valueOf(cause), cause);
    }
}
