package dev.interlace.runtime.http.netty;

import dev.interlace.client.ErrorCode;
import dev.interlace.runtime.config.Exposure;
import dev.interlace.runtime.config.InterlaceConfig;
import dev.interlace.runtime.http.HttpAnswer;
import dev.interlace.runtime.http.HttpDispatcher;
import dev.interlace.runtime.http.HttpLimits;
import dev.interlace.runtime.http.HttpTransport;
import dev.interlace.runtime.http.InflightBytes;
import dev.interlace.runtime.ops.FatalErrors;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.GlobalEventExecutor;
import jakarta.inject.Inject;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * The HTTP transport on Netty: a few event-loop threads own every connection, read requests under the byte, time
 * and connection bounds of {@link HttpLimits}, and write answers when the dispatcher's future completes, so a slow
 * client, a parked long poll or a publish waiting for its group commit holds no thread.
 */
public final class NettyTransport implements HttpTransport {

    private static final Logger LOG = Logger.getLogger(NettyTransport.class.getName());
    /** Connections the kernel may queue before accepting; sized so bursts of hundreds of clients are not refused. */
    static final int ACCEPT_BACKLOG = 1024;

    private final HttpLimits limits;
    private final Exposure exposure;
    private final ConnectionShares shares;
    private final InflightBytes budget;
    private EventLoopGroup acceptor;
    private EventLoopGroup io;
    private Channel server;
    private ChannelGroup channels;
    /** Set once a stop waits for the answers being written; then each written answer wakes it ({@link #written}). */
    private volatile boolean stopping;
    private final Object writes = new Object();
    private int ioThreads;

    @Inject
    public NettyTransport(HttpLimits limits, InterlaceConfig config, MeterRegistry registry) {
        this.limits = limits;
        this.shares = new ConnectionShares(limits, registry);
        this.exposure = config.exposure();
        this.budget = new InflightBytes(config.inflightBudgetBytes());
    }

    @Override
    public int start(String bind, int port, HttpDispatcher dispatcher) throws IOException {
        SslContext tls = exposure.tls() ? tls(exposure) : null;
        ioThreads = Math.max(2, Runtime.getRuntime().availableProcessors());
        acceptor = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("interlace-http-accept", true),
                NioIoHandler.newFactory());
        io = new MultiThreadIoEventLoopGroup(ioThreads, new DefaultThreadFactory("interlace-http-io", true),
                NioIoHandler.newFactory());
        channels = new DefaultChannelGroup("interlace-http", GlobalEventExecutor.INSTANCE);
        HttpDecoderConfig decoding = new HttpDecoderConfig()
                .setMaxInitialLineLength(limits.maxUrlBytes())
                .setMaxHeaderSize(limits.maxHeaderBytes())
                .setMaxChunkSize(64 * 1024);
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(acceptor, io)
                .channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_BACKLOG, ACCEPT_BACKLOG)
                .childOption(ChannelOption.TCP_NODELAY, true)
                // A client's FIN ends its input, not the connection: answers to what it sent still go out (Connection).
                .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel channel) {
                        channels.add(channel);
                        ConnectionShares.Admission admission = shares.admit(channel);
                        if (admission.refused()) {
                            channel.pipeline().addLast(new TooManyConnections(dispatcher, admission.message()));
                            return;
                        }
                        Connection connection = new Connection(channel, limits, dispatcher, budget, shares,
                                admission, NettyTransport.this::written);
                        if (tls != null) {
                            channel.pipeline().addLast("tls", tls.newHandler(channel.alloc()));
                        }
                        channel.pipeline()
                                .addLast("first-byte", connection.firstByteWatcher())
                                .addLast("codec", new HttpServerCodec(decoding))
                                .addLast("request", connection);
                    }
                });
        try {
            server = bootstrap.bind(new InetSocketAddress(bind, port)).sync().channel();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stop();
            throw new IOException("interrupted while binding " + bind + ":" + port, e);
        } catch (RuntimeException e) {
            stop();
            throw e;
        }
        if (server == null || !server.isActive()) {
            stop();
            throw new IOException("cannot bind " + bind + ":" + port);
        }
        return ((InetSocketAddress) server.localAddress()).getPort();
    }

    /** The server's TLS context from PEM files: TLS 1.2 and 1.3 only. */
    private static SslContext tls(Exposure exposure) throws IOException {
        try {
            return SslContextBuilder.forServer(exposure.tlsCertificate().toFile(), exposure.tlsKey().toFile())
                    .sslProvider(SslProvider.JDK)
                    .protocols("TLSv1.3", "TLSv1.2")
                    .build();
        } catch (javax.net.ssl.SSLException | IllegalArgumentException e) {
            throw new IOException("cannot use the TLS certificate " + exposure.tlsCertificate() + " with the key "
                    + exposure.tlsKey() + " (PEM; the key unencrypted PKCS#8, \"BEGIN PRIVATE KEY\"): "
                    + e.getMessage(), e);
        }
    }

    /** A connection wrote an answer: a stop under way looks again whether any is still being written. */
    private void written() {
        if (stopping) {
            synchronized (writes) {
                writes.notifyAll();
            }
        }
    }

    @Override
    public void stop() {
        if (server != null) {
            server.close().syncUninterruptibly();
        }
        if (channels != null) {
            // Answers already handed to a connection are written before it is closed.
            stopping = true;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
            synchronized (writes) {
                long left;
                while ((left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())) > 0
                        && channels.stream().anyMatch(Connection::isWriting)) {
                    try {
                        writes.wait(left);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        break;
                    }
                }
            }
            channels.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
        }
        if (acceptor != null) {
            acceptor.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
        if (io != null) {
            io.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
    }

    @Override
    public String description() {
        return "netty (nio, " + ioThreads + " event loops)";
    }

    /** The in-flight byte budget the connections reserve against. */
    public InflightBytes budget() {
        return budget;
    }

    /** Connections open now (for tests and the benchmark). */
    public int openConnections() {
        return shares.open();
    }

    /** Answers a connection beyond the limits and their reserve with 503 as it opens, then closes it. */
    private static final class TooManyConnections extends ChannelInboundHandlerAdapter {

        private final HttpDispatcher dispatcher;
        private final String message;

        TooManyConnections(HttpDispatcher dispatcher, String message) {
            this.dispatcher = dispatcher;
            this.message = message;
        }

        @Override
        public void channelActive(ChannelHandlerContext context) {
            HttpAnswer answer = dispatcher.refuse(null, null, ErrorCode.TOO_MANY_CONNECTIONS, message)
                    .header("Retry-After", "1");
            HttpWire.writeRaw(context.channel(), answer);
        }

        @Override
        public void channelRead(ChannelHandlerContext context, Object message) {
            ReferenceCountUtil.release(message);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext context, Throwable cause) {
            FatalErrors.exitIfFatal(cause);
            context.close();
        }
    }

    static Logger log() {
        return LOG;
    }
}
