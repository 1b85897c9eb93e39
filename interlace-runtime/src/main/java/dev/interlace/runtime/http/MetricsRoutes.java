package dev.interlace.runtime.http;

import com.sun.net.httpserver.HttpExchange;
import dev.interlace.runtime.ops.Metrics;
import jakarta.inject.Inject;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.List;

/** {@code GET /metrics}: every meter in Prometheus text format. */
final class MetricsRoutes {

    private final Metrics metrics;

    @Inject
    MetricsRoutes(Metrics metrics) {
        this.metrics = metrics;
    }

    void register(List<Route> routes) {
        routes.add(new Route("GET", "/metrics", this::metrics));
    }

    private void metrics(HttpExchange exchange, List<String> path, String requestId) throws IOException {
        ByteArrayOutputStream text = new ByteArrayOutputStream(64 * 1024);
        if (!metrics.writePrometheusText(text)) {
            HttpResponses.error(exchange, 404, "not_found", "this server's meter registry is not a Prometheus"
                    + " registry, so there is no Prometheus text to serve", requestId);
            return;
        }
        exchange.getResponseHeaders().set("Content-Type", Metrics.CONTENT_TYPE);
        exchange.sendResponseHeaders(200, text.size());
        try (OutputStream out = exchange.getResponseBody()) {
            text.writeTo(out);
        }
    }
}
