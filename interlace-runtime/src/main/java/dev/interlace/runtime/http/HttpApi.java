package dev.interlace.runtime.http;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.interlace.runtime.ops.EpochMicros;
import dev.interlace.runtime.ops.RequestIds;
import dev.interlace.runtime.records.ApiRecord;
import dev.interlace.runtime.records.RefusedRequests;
import jakarta.inject.Inject;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The HTTP API on the JDK's built-in server: one router for every route, request ids on every response, and a
 * JSON error for every failure.
 */
public final class HttpApi {

    private static final Logger LOG = Logger.getLogger(HttpApi.class.getName());

    /** Connections the kernel may queue before accepting; sized so bursts of hundreds of clients are not refused. */
    static final int ACCEPT_BACKLOG = 1024;
    /** Handler threads on Java 17 (one per in-flight request, since a publish waits for its group commit). */
    static final int PLATFORM_THREADS = 256;

    private final List<Route> routes = new ArrayList<>();
    private final RequestIds requestIds;
    private final RefusedRequests refused;
    private final java.time.Clock clock;
    private final AtomicInteger inFlight = new AtomicInteger();
    private volatile boolean draining;
    private HttpServer server;
    private ExecutorService executor;
    private String executorDescription;

    @Inject
    public HttpApi(RequestIds requestIds, RefusedRequests refused, java.time.Clock clock, PublishRoutes publish,
            StreamRoutes streams, HealthRoutes health, SqlRoutes sql, RunRoutes runs, ConsumerRoutes consumers,
            RecordRoutes records, MetricsRoutes metrics) {
        this.requestIds = requestIds;
        this.refused = refused;
        this.clock = clock;
        publish.register(routes);
        streams.register(routes);
        health.register(routes);
        sql.register(routes);
        runs.register(routes);
        consumers.register(routes);
        records.register(routes);
        metrics.register(routes);
    }

    /** Starts listening; returns the bound port (useful with port 0). */
    public int start(String bind, int port) throws IOException {
        // Without TCP_NODELAY a keep-alive POST waits ~40 ms for the delayed ACK (Nagle); set before the first server.
        System.setProperty("sun.net.httpserver.nodelay", "true");
        server = HttpServer.create(new InetSocketAddress(bind, port), ACCEPT_BACKLOG);
        executor = newExecutor();
        server.setExecutor(executor);
        server.createContext("/", this::dispatch);
        server.start();
        LOG.info("HTTP handlers run on " + executorDescription);
        return server.getAddress().getPort();
    }

    /** Which executor runs the handlers, e.g. {@code virtual threads}. */
    public String executorDescription() {
        return executorDescription;
    }

    /**
     * Stops taking requests (new ones get 503 {@code shutting_down}), waits up to {@code graceSeconds} for those in
     * flight to be answered, then closes every connection.
     */
    public void stop(int graceSeconds) {
        if (server == null) {
            return;
        }
        draining = true;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(graceSeconds);
        while (inFlight.get() > 0 && System.nanoTime() < deadline) {
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        server.stop(0);
        executor.shutdown();
        try {
            if (!executor.awaitTermination(graceSeconds + 5L, TimeUnit.SECONDS)) {
                executor.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            executor.shutdownNow();
        }
    }

    private ExecutorService newExecutor() {
        try {
            // Java 21+: a virtual thread per request; the baseline stays Java 17, so it is looked up reflectively.
            ExecutorService virtual = (ExecutorService) java.util.concurrent.Executors.class
                    .getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
            executorDescription = "virtual threads";
            return virtual;
        } catch (ReflectiveOperationException e) {
            AtomicInteger count = new AtomicInteger();
            ThreadPoolExecutor pool = new ThreadPoolExecutor(PLATFORM_THREADS, PLATFORM_THREADS, 60, TimeUnit.SECONDS,
                    new LinkedBlockingQueue<>(), runnable -> {
                        Thread thread = new Thread(runnable, "interlace-http-" + count.incrementAndGet());
                        thread.setDaemon(true);
                        return thread;
                    });
            pool.allowCoreThreadTimeOut(true);
            executorDescription = "a pool of " + PLATFORM_THREADS + " platform threads";
            return pool;
        }
    }

    private void dispatch(HttpExchange exchange) throws IOException {
        String requestId = requestIds.resolve(exchange.getRequestHeaders().getFirst("X-Request-Id"));
        exchange.getResponseHeaders().set("X-Request-Id", requestId);
        java.time.Instant received = clock.instant();
        long startNanos = System.nanoTime();
        boolean[] kept = new boolean[1];
        exchange.setAttribute(HttpResponses.REFUSAL_ATTRIBUTE, (HttpResponses.Refusal) (status, error, message) -> {
            kept[0] = true;
            keepRefused(exchange, requestId, status, error, message, received, startNanos);
        });
        inFlight.incrementAndGet();
        try (exchange) {
            if (draining) {
                exchange.getResponseHeaders().set("Retry-After", "1");
                exchange.getResponseHeaders().set("Connection", "close");
                HttpResponses.error(exchange, 503, "shutting_down", "the server is shutting down; nothing was"
                        + " stored, retry against the restarted server", requestId);
                return;
            }
            URI uri = exchange.getRequestURI();
            String path = uri.getRawPath();
            if (path.length() > 1 && path.endsWith("/")) {
                path = path.substring(0, path.length() - 1);
            }
            List<String> allowed = new ArrayList<>();
            for (Route route : routes) {
                List<String> parameters = route.match(path);
                if (parameters == null) {
                    continue;
                }
                if (route.method().equals(exchange.getRequestMethod())) {
                    route.handler().handle(exchange, parameters, requestId);
                    return;
                }
                allowed.add(route.method());
            }
            if (allowed.isEmpty()) {
                HttpResponses.error(exchange, 404, "not_found", "no route for " + exchange.getRequestMethod() + " "
                        + path, requestId);
            } else {
                exchange.getResponseHeaders().set("Allow", String.join(", ", allowed));
                HttpResponses.error(exchange, 405, "method_not_allowed", exchange.getRequestMethod()
                        + " is not allowed on " + path + "; use " + String.join(" or ", allowed), requestId);
            }
        } catch (IOException e) {
            LOG.log(Level.FINE, "client connection failed", e);
        } catch (RuntimeException | Error e) {
            LOG.log(Level.SEVERE, "request " + requestId + " failed", e);
            try {
                HttpResponses.error(exchange, 500, "internal_error", "the server failed: " + e, requestId);
            } catch (IOException | RuntimeException ignored) {
                // headers may already be sent; the connection is closed either way
            }
        } finally {
            inFlight.decrementAndGet();
            int status = exchange.getResponseCode();
            if (status >= 400 && !kept[0]) { // answered without a JSON error body
                keepRefused(exchange, requestId, status, null, null, received, startNanos);
            }
        }
    }

    /** Keeps a refused request in the ring that {@code GET /logs/api} lists. */
    private void keepRefused(HttpExchange exchange, String requestId, int status, String error, String message,
            java.time.Instant received, long startNanos) {
        String path = exchange.getRequestURI().getRawPath();
        String stream = null;
        if (path.startsWith("/streams/")) {
            int end = path.indexOf('/', "/streams/".length());
            stream = path.substring("/streams/".length(), end < 0 ? path.length() : end);
        }
        refused.add(new ApiRecord("ring", requestId, exchange.getRequestMethod(), path, stream, status, error, message,
                EpochMicros.of(received),
                (System.nanoTime() - startNanos) / 1_000));
    }
}
