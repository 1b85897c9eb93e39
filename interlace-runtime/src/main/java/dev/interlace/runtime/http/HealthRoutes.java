package dev.interlace.runtime.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.interlace.runtime.ops.Readiness;
import jakarta.inject.Inject;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** {@code /health/live} (the process answers) and {@code /health/ready} (it can take publishes now). */
final class HealthRoutes implements RouteSet {

    private final Readiness readiness;

    @Inject
    HealthRoutes(Readiness readiness) {
        this.readiness = readiness;
    }

    @Override
    public void register(List<Route> routes) {
        routes.add(Route.inline("GET", "/health/live", Access.PUBLIC, this::live));
        routes.add(Route.blocking("GET", "/health/ready", Access.PUBLIC, this::ready));
    }

    private HttpAnswer live(HttpRequest request, List<String> path, String requestId) throws IOException {
        ObjectNode body = HttpResponses.JSON.createObjectNode();
        body.put("status", "live");
        return HttpResponses.json(200, body);
    }

    private HttpAnswer ready(HttpRequest request, List<String> path, String requestId) throws IOException {
        Readiness.Report report = readiness.check();
        List<String> reasons = new ArrayList<>();
        if (!report.logWritable()) {
            reasons.add("log_unavailable: " + report.logProblem());
        }
        if (report.diskBelowFloor()) {
            reasons.add("disk_below_floor: " + report.freeDiskBytes() + " bytes free, floor "
                    + report.minFreeDiskBytes());
        }
        for (Readiness.FailingFlush failing : report.flushFailing()) {
            reasons.add("flush_failing: stream " + failing.stream() + " since "
                    + HttpResponses.time(failing.sinceMicros()) + ": " + failing.error());
        }
        ObjectNode body = HttpResponses.JSON.createObjectNode();
        body.put("status", reasons.isEmpty() ? "ready" : "not_ready");
        ArrayNode list = body.putArray("reasons");
        reasons.forEach(list::add);
        // Shown, not counted against readiness yet: a flush that failed once is retried within a second.
        ArrayNode warnings = body.putArray("flush_failing_below_threshold");
        report.flushFailingBelowThreshold().forEach(warnings::add);
        body.put("free_disk_bytes", report.freeDiskBytes());
        return HttpResponses.json(reasons.isEmpty() ? 200 : 503, body);
    }
}
