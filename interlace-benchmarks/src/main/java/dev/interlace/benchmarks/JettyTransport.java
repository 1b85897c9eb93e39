package dev.interlace.benchmarks;

import dev.interlace.client.ErrorCode;
import dev.interlace.runtime.http.HttpAnswer;
import dev.interlace.runtime.http.HttpDispatcher;
import dev.interlace.runtime.http.HttpLimits;
import dev.interlace.runtime.http.HttpRequest;
import dev.interlace.runtime.http.HttpTransport;
import jakarta.inject.Inject;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.ConnectionLimit;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * The HTTP transport on Jetty 12's core API, for the benchmark's comparison with the shipped Netty one (never in the
 * runtime, nor in {@code interlace-examples.jar}). What Jetty gives without code of ours: the request line and
 * headers within {@code HttpConfiguration.requestHeaderSize} (431; a long URI is refused by the same limit), the
 * connector's idle timeout (which also cuts a client that stops sending mid-request, but not one that sends a byte
 * before each timeout ends), and a bound on open connections ({@link ConnectionLimit}, which stops accepting rather
 * than answering 503). What it does not have, and this class does not add: a deadline for the whole header block or
 * the whole body, so a slowloris client that keeps dribbling holds its connection (not a thread) until its header
 * block reaches the size limit.
 *
 * <p>The body is read asynchronously up to {@code maxBodyBytes} ({@link Content.Source#asByteArrayAsync}); the answer
 * is written when the dispatcher's future completes, so a parked long poll or a publish waiting for its group commit
 * holds no thread.
 */
final class JettyTransport implements HttpTransport {

    /** Connections the kernel may queue before accepting, as the Netty transport. */
    private static final int ACCEPT_BACKLOG = 1024;

    private final HttpLimits limits;
    private Server server;
    private QueuedThreadPool threads;

    @Inject
    JettyTransport(HttpLimits limits) {
        this.limits = limits;
    }

    @Override
    public int start(String bind, int port, HttpDispatcher dispatcher) throws IOException {
        threads = new QueuedThreadPool(200, 8);
        threads.setName("bench-jetty");
        threads.setDaemon(true);
        server = new Server(threads);
        HttpConfiguration http = new HttpConfiguration();
        http.setRequestHeaderSize(limits.maxHeaderBytes());
        http.setSendServerVersion(false);
        http.setSendDateHeader(false);
        ServerConnector connector = new ServerConnector(server, new HttpConnectionFactory(http));
        connector.setHost(bind);
        connector.setPort(port);
        connector.setAcceptQueueSize(ACCEPT_BACKLOG);
        connector.setIdleTimeout(limits.idleTimeout().toMillis());
        server.addConnector(connector);
        server.addBean(new ConnectionLimit(limits.maxConnections(), connector));
        server.setHandler(new Dispatching(dispatcher));
        try {
            server.start();
        } catch (Exception e) {
            stop();
            throw new IOException("cannot start Jetty on " + bind + ":" + port, e);
        }
        return connector.getLocalPort();
    }

    @Override
    public void stop() {
        if (server != null) {
            try {
                server.stop();
            } catch (Exception e) {
                throw new IllegalStateException("stopping Jetty failed", e);
            }
        }
    }

    @Override
    public String description() {
        return "jetty " + Server.getVersion() + " (core API, async handler, " + threads.getMaxThreads()
                + " pool threads max)";
    }

    /**
     * Reads the body within the transport's limit, dispatches, and completes the callback when the answer is
     * written.
     */
    private final class Dispatching extends Handler.Abstract.NonBlocking {

        private final HttpDispatcher dispatcher;

        Dispatching(HttpDispatcher dispatcher) {
            this.dispatcher = dispatcher;
        }

        @Override
        public boolean handle(Request request, Response response, Callback callback) {
            long maxBodyBytes = limits.maxBodyBytes();
            String method = request.getMethod();
            String target = request.getHttpURI().getPathQuery();
            long declared = request.getLength();
            if (declared > maxBodyBytes) {
                write(response, callback, dispatcher.refuse(method, target, ErrorCode.PAYLOAD_TOO_LARGE, "the body is "
                        + declared + " bytes; the limit is " + maxBodyBytes + " bytes"), true);
                return true;
            }
            Map<String, List<String>> headers = new LinkedHashMap<>();
            for (HttpField field : request.getHeaders()) {
                headers.computeIfAbsent(field.getName(), name -> new ArrayList<>()).add(field.getValue());
            }
            CompletableFuture<byte[]> body = Content.Source.asByteArrayAsync(request, (int) maxBodyBytes);
            body.whenComplete((bytes, failure) -> {
                if (failure != null) {
                    write(response, callback, dispatcher.refuse(method, target, ErrorCode.PAYLOAD_TOO_LARGE,
                            "the body is larger than the limit of " + maxBodyBytes + " bytes, or could not be"
                                    + " read: " + failure), true);
                    return;
                }
                dispatcher.dispatch(new HttpRequest(method, target, headers, bytes)).whenComplete(
                        (answer, error) -> write(response, callback, answer != null ? answer
                                : dispatcher.refuse(method, target, ErrorCode.INTERNAL, "the server failed"), false));
            });
            return true;
        }

        private static void write(Response response, Callback callback, HttpAnswer answer, boolean close) {
            response.setStatus(answer.status());
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, answer.contentType());
            response.getHeaders().put(HttpHeader.CONTENT_LENGTH, answer.body().length);
            answer.headers().forEach((name, value) -> response.getHeaders().put(name, value));
            if (close) {
                response.getHeaders().put(HttpHeader.CONNECTION, "close");
            }
            response.write(true, ByteBuffer.wrap(answer.body()), callback);
        }
    }
}
