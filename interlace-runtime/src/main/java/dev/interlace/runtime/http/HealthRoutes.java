package dev.interlace.runtime.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.interlace.runtime.config.InterlaceConfig;
import dev.interlace.runtime.flush.FlushStatus;
import dev.interlace.runtime.flush.Flusher;
import dev.interlace.runtime.ingest.IngestLimits;
import dev.interlace.runtime.log.EventLog;
import dev.interlace.runtime.ops.ComponentHealth;
import dev.interlace.runtime.ops.DiskSpace;
import dev.interlace.runtime.ops.EpochMicros;
import dev.interlace.runtime.stream.StreamCatalog;
import dev.interlace.runtime.stream.StreamDescriptor;
import jakarta.inject.Inject;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** {@code /health/live} (the process answers) and {@code /health/ready} (it can take publishes now). */
final class HealthRoutes implements RouteSet {

    private final EventLog log;
    private final DiskSpace disk;
    private final IngestLimits limits;
    private final StreamCatalog catalog;
    private final Flusher flusher;
    private final long failingThresholdMicros;
    private final java.time.Clock clock;
    private final ComponentHealth components;

    @Inject
    HealthRoutes(EventLog log, DiskSpace disk, IngestLimits limits, StreamCatalog catalog, Flusher flusher,
            InterlaceConfig config, java.time.Clock clock, ComponentHealth components) {
        this.components = components;
        this.log = log;
        this.disk = disk;
        this.limits = limits;
        this.catalog = catalog;
        this.flusher = flusher;
        this.failingThresholdMicros = config.readyFlushFailingMillis() * 1_000L;
        this.clock = clock;
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
        putComponents(body);
        return HttpResponses.json(failed ? 503 : 200, body);
    }

    /** The failed components, each with its cause; an empty list when none is. */
    private void putComponents(ObjectNode body) {
        ArrayNode list = body.putArray("components");
        for (ComponentHealth.Failure failure : components.failures()) {
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
        List<String> reasons = new ArrayList<>();
        EventLog.Health health = log.health();
        if (!health.writable()) {
            reasons.add("log_unavailable: " + health.problem());
        }
        for (ComponentHealth.Failure failure : components.failures()) {
            if (failure.component().servesPublishes()) {
                reasons.add("component_failed: " + failure.name() + ": " + failure.cause());
            }
        }
        long free = disk.usableBytesNow();
        if (free < limits.minFreeDiskBytes()) {
            reasons.add("disk_below_floor: " + free + " bytes free, floor " + limits.minFreeDiskBytes());
        }
        long nowMicros = EpochMicros.now(clock);
        List<String> failingBriefly = new ArrayList<>();
        for (StreamDescriptor stream : catalog.streams()) {
            FlushStatus status = flusher.status(stream.name());
            if (status.failing() && nowMicros - status.failingSinceMicros() < failingThresholdMicros) {
                failingBriefly.add(stream.name());
            } else if (status.failing()) {
                reasons.add("flush_failing: stream " + stream.name() + " since "
                        + HttpResponses.time(status.failingSinceMicros()) + ": " + status.error());
            }
        }
        ObjectNode body = HttpResponses.JSON.createObjectNode();
        body.put("status", reasons.isEmpty() ? "ready" : "not_ready");
        ArrayNode list = body.putArray("reasons");
        reasons.forEach(list::add);
        // Shown, not counted against readiness yet: a flush that failed once is retried within a second.
        ArrayNode warnings = body.putArray("flush_failing_below_threshold");
        failingBriefly.forEach(warnings::add);
        body.put("free_disk_bytes", free);
        putComponents(body);
        return HttpResponses.json(reasons.isEmpty() ? 200 : 503, body);
    }
}
