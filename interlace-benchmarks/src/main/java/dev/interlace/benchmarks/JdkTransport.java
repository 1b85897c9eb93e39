package dev.interlace.benchmarks;

import dev.interlace.client.ErrorCode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.interlace.runtime.http.HttpAnswer;
import dev.interlace.runtime.http.HttpDispatcher;
import dev.interlace.runtime.http.HttpLimits;
import dev.interlace.runtime.http.HttpRequest;
import dev.interlace.runtime.http.HttpTransport;
import jakarta.inject.Inject;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The arrangement before Netty, as the benchmark's baseline: the JDK's {@code com.sun.net.httpserver} with
 * {@code sun.net.httpserver.nodelay=true}, a 1024 accept backlog and 256 platform handler threads (what the old server
 * had on Java 17; {@link Virtual}: a virtual thread per request, what it had on 21+), each blocked for the whole of its
 * request (reading it, and waiting for the answer: a publish's group commit, a long poll's wait).
 * Unlike the old server, the route itself runs where the dispatcher puts it (the runtime's workers) and the handler
 * thread waits for its future; it is still one thread per request in flight. The JDK server has no header or body
 * deadline and no connection bound (as before); the body is read up to {@code maxBodyBytes}.
 */
final class JdkTransport implements HttpTransport {

    /** Handler threads, as the old server had on Java 17. */
    static final int PLATFORM_THREADS = 256;
    private static final int ACCEPT_BACKLOG = 1024;

    private final HttpLimits limits;
    private final boolean virtualThreads;
    private HttpServer server;
    private ExecutorService executor;

    @Inject
    JdkTransport(HttpLimits limits) {
        this(limits, false);
    }

    private JdkTransport(HttpLimits limits, boolean virtualThreads) {
        this.limits = limits;
        this.virtualThreads = virtualThreads;
    }

    /** The old server as it ran on Java 21+: a virtual thread per request. */
    static final class Virtual implements HttpTransport {

        private final JdkTransport transport;

        @Inject
        Virtual(HttpLimits limits) {
            this.transport = new JdkTransport(limits, true);
        }

        @Override
        public int start(String bind, int port, HttpDispatcher dispatcher) throws IOException {
            return transport.start(bind, port, dispatcher);
        }

        @Override
        public void stop() {
            transport.stop();
        }

        @Override
        public String description() {
            return transport.description();
        }
    }

    @Override
    public int start(String bind, int port, HttpDispatcher dispatcher) throws IOException {
        // Without TCP_NODELAY a keep-alive POST waits ~40 ms for the delayed ACK (Nagle); set before the first server.
        System.setProperty("sun.net.httpserver.nodelay", "true");
        server = HttpServer.create(new InetSocketAddress(bind, port), ACCEPT_BACKLOG);
        executor = virtualThreads ? virtualThreadPerTask() : platformThreads();
        server.setExecutor(executor);
        server.createContext("/", exchange -> handle(exchange, dispatcher));
        server.start();
        return server.getAddress().getPort();
    }

    private void handle(HttpExchange exchange, HttpDispatcher dispatcher) throws IOException {
        try (exchange) {
            String method = exchange.getRequestMethod();
            String target = exchange.getRequestURI().getRawPath()
                    + (exchange.getRequestURI().getRawQuery() == null ? "" : "?" + exchange.getRequestURI().getRawQuery());
            HttpAnswer answer;
            byte[] body;
            try (InputStream in = exchange.getRequestBody()) {
                body = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, limits.maxBodyBytes() + 1));
            }
            if (body.length > limits.maxBodyBytes()) {
                answer = dispatcher.refuse(method, target, ErrorCode.PAYLOAD_TOO_LARGE, "the body is larger than the"
                        + " limit of " + limits.maxBodyBytes() + " bytes");
            } else {
                try {
                    answer = dispatcher.dispatch(new HttpRequest(method, target, exchange.getRequestHeaders(), body))
                            .get();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                } catch (ExecutionException e) {
                    answer = dispatcher.refuse(method, target, ErrorCode.INTERNAL, "the server failed");
                }
            }
            exchange.getResponseHeaders().set("Content-Type", answer.contentType());
            answer.headers().forEach((name, value) -> exchange.getResponseHeaders().set(name, value));
            exchange.sendResponseHeaders(answer.status(), answer.body().length == 0 ? -1 : answer.body().length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(answer.body());
            }
        }
    }

    private static ExecutorService platformThreads() {
        AtomicInteger count = new AtomicInteger();
        ThreadPoolExecutor pool = new ThreadPoolExecutor(PLATFORM_THREADS, PLATFORM_THREADS, 60, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), runnable -> {
                    Thread thread = new Thread(runnable, "bench-jdk-http-" + count.incrementAndGet());
                    thread.setDaemon(true);
                    return thread;
                });
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }

    private static ExecutorService virtualThreadPerTask() {
        try {
            // Java 21+ only; the module compiles for 17, so it is looked up reflectively (as the old server did).
            return (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("jdk-virtual needs Java 21 or later", e);
        }
    }

    @Override
    public void stop() {
        if (server != null) {
            server.stop(0);
        }
        if (executor != null) {
            executor.shutdownNow();
        }
    }

    @Override
    public String description() {
        return "jdk httpserver (" + (virtualThreads ? "a virtual thread per request"
                : PLATFORM_THREADS + " platform threads") + ", blocking)";
    }
}
