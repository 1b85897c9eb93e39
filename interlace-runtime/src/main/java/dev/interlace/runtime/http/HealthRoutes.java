package dev.interlace.runtime.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.interlace.runtime.health.ComponentHealth;
import dev.interlace.runtime.status.Readiness;
import jakarta.inject.Inject;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** {@code /health/live} (the process answers) and {@code /health/ready} (it can take publishes now). */
final class HealthRoutes implements RouteSet {

    private final Readiness readiness;
    private final ComponentHealth components;

    @Inject
    HealthRoutes(Readiness readiness, ComponentHealth components) {
        this.readiness = readiness;
        this.components = components;
    }

    @Override
    public void register(List<Route> routes) {
        routes.add(Route.inline("GET", "/health/live", Access.PUBLIC, this::live));
        routes.add(Route.blocking("GET", "/health/ready", Access.PUBLIC, this::ready));
    }

    private HttpAnswer live(HttpRequest request, List<String> path, String requestId) throws IOException {
        // A component that serves publishes failed and has not recovered: a supervisor should know (the process
        // exits on its own if it stays so; see ComponentHealth).
        boolean failed = components.publishesFailed();
        ObjectNode body = HttpResponses.JSON.createObjectNode();
        body.put("status", failed ? "component_failed" : "live");
        putComponents(body, components.failures());
        return HttpResponses.json(failed ? 503 : 200, body);
    }

    /** The failed components, each with its cause; an empty list when none is. */
    private static void putComponents(ObjectNode body, List<ComponentHealth.Failure> failures) {
        ArrayNode list = body.putArray("components");
        for (ComponentHealth.Failure failure : failures) {
            ObjectNode item = list.addObject();
            item.put("component", failure.component().label());
            if (failure.scope() != null) {
                item.put("stream", failure.scope());
            }
            item.put("serves_publishes", failure.component().servesPublishes());
            item.put("fate", failure.fate() == ComponentHealth.Fate.DEAD ? "dead" : "restarting");
            item.put("cause", failure.cause());
            item.put("since", HttpResponses.time(failure.sinceMicros()));
        }
    }

    private HttpAnswer ready(HttpRequest request, List<String> path, String requestId) throws IOException {
        Readiness.Report report = readiness.check();
        List<String> reasons = new ArrayList<>();
        if (!report.logWritable()) {
            reasons.add("log_unavailable: " + report.logProblem());
        }
        for (ComponentHealth.Failure failure : report.failedPublishComponents()) {
            reasons.add("component_failed: " + failure.name() + ": " + failure.cause());
        }
        for (ComponentHealth.Failure failure : report.failedComponents()) {
            // /sql cannot be served at all: readiness, not liveness (publishes are served).
            if (failure.component() == ComponentHealth.Component.QUERY_PROCESS
                    && failure.fate() == ComponentHealth.Fate.DEAD) {
                reasons.add("query_process_failed: " + failure.cause());
            }
        }
        if (report.diskBelowFloor()) {
            reasons.add("disk_below_floor: " + report.freeDiskBytes() + " bytes free, floor "
                    + report.minFreeDiskBytes());
        }
        for (Readiness.FailingFlush failing : report.flushFailing()) {
            reasons.add((failing.stopped() ? "flush_stopped" : "flush_failing") + ": stream " + failing.stream()
                    + " since "
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
        putComponents(body, report.failedComponents());
        return HttpResponses.json(reasons.isEmpty() ? 200 : 503, body);
    }
}
