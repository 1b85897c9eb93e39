package dev.interlace.runtime.http;

import dev.interlace.client.ErrorCode;
import dev.interlace.runtime.ops.Metrics;
import jakarta.inject.Inject;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.List;

/** {@code GET /metrics}: every meter in Prometheus text format. */
final class MetricsRoutes implements RouteSet {

    private final Metrics metrics;

    @Inject
    MetricsRoutes(Metrics metrics) {
        this.metrics = metrics;
    }

    @Override
    public void register(List<Route> routes) {
        routes.add(Route.blocking("GET", "/metrics", Access.METRICS, this::metrics));
    }

    private HttpAnswer metrics(HttpRequest request, List<String> path, String requestId) throws IOException {
        ByteArrayOutputStream text = new ByteArrayOutputStream(64 * 1024);
        if (!metrics.writePrometheusText(text)) {
            return HttpResponses.error(ErrorCode.NOT_FOUND, "this server's meter registry is not a Prometheus"
                    + " registry, so there is no Prometheus text to serve", requestId);
        }
        return HttpAnswer.bytes(200, Metrics.CONTENT_TYPE, text.toByteArray());
    }
}
