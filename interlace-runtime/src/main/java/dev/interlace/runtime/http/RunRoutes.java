package dev.interlace.runtime.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.interlace.runtime.model.ModelRunner;
import dev.interlace.runtime.warehouse.RunRecord;
import dev.interlace.runtime.ops.EpochMicros;
import jakarta.inject.Inject;
import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** {@code GET /runs}, {@code GET /runs/{id}} and {@code POST /models/{name}/run}. */
final class RunRoutes {

    static final int DEFAULT_LIMIT = 100;
    static final int MAX_LIMIT = 1000;
    private static final Set<String> STATUSES = Set.of("queued", "running", "succeeded", "failed");

    private final Optional<ModelRunner> runner;

    @Inject
    RunRoutes(Optional<ModelRunner> runner) {
        this.runner = runner;
    }

    void register(List<Route> routes) {
        routes.add(Route.blocking("GET", "/runs", Access.READ, this::list));
        routes.add(Route.blocking("GET", "/runs/{id}", Access.READ, this::show));
        routes.add(Route.blocking("POST", "/models/{name}/run", Access.OPERATE, this::run));
    }

    private HttpAnswer list(HttpRequest request, List<String> path, String requestId) throws IOException {
        Map<String, String> query = request.query();
        RunRecord.Filter filter;
        try {
            String status = query.get("status");
            if (status != null && !STATUSES.contains(status)) {
                throw new IllegalArgumentException("status must be one of queued, running, succeeded, failed");
            }
            int limit = query.containsKey("limit") ? Integer.parseInt(query.get("limit")) : DEFAULT_LIMIT;
            if (limit < 1 || limit > MAX_LIMIT) {
                throw new IllegalArgumentException("limit must be between 1 and " + MAX_LIMIT);
            }
            filter = new RunRecord.Filter(query.get("model"), status, query.get("trigger"),
                    time(query.get("since"), "since"), time(query.get("until"), "until"), limit);
        } catch (IllegalArgumentException e) {
            return HttpResponses.error(400, "invalid_filter", e.getMessage(), requestId);
        }
        ObjectNode body = HttpResponses.JSON.createObjectNode();
        ArrayNode runs = body.putArray("runs");
        RunRecord.Page page = runner.isPresent() ? runner.get().runs(filter)
                : new RunRecord.Page(List.of(), 0);
        page.runs().forEach(run -> runs.add(describe(run, false)));
        body.put("count", page.runs().size());
        body.put("total", page.total());
        body.put("completeness", "store");
        return HttpResponses.json(200, body);
    }

    private HttpAnswer show(HttpRequest request, List<String> path, String requestId) throws IOException {
        Optional<RunRecord> run = runner.flatMap(r -> r.run(path.get(0)));
        if (run.isEmpty()) {
            return HttpResponses.error(404, "unknown_run", "no run has id " + path.get(0), requestId);
        }
        return HttpResponses.json(200, describe(run.get(), true));
    }

    private HttpAnswer run(HttpRequest request, List<String> path, String requestId) throws IOException {
        String model = path.get(0);
        if (runner.isEmpty() || !runner.get().hasModel(model)) {
            return HttpResponses.error(404, "unknown_model", "no model is named " + model + "; GET /runs shows"
                    + " the models that ran", requestId);
        }
        ObjectNode body = HttpResponses.JSON.createObjectNode();
        body.put("run_id", runner.get().runManually(model));
        return HttpResponses.json(202, body);
    }

    private static ObjectNode describe(RunRecord run, boolean withModels) {
        ObjectNode node = HttpResponses.JSON.createObjectNode();
        node.put("id", run.id());
        node.put("trigger", run.trigger());
        ArrayNode triggers = node.putArray("triggers");
        run.triggers().forEach(triggers::add);
        node.put("status", run.status());
        node.put("queued_at", HttpResponses.time(run.queuedAtMicros()));
        if (run.startedAtMicros() > 0) {
            node.put("started_at", HttpResponses.time(run.startedAtMicros()));
        } else {
            node.putNull("started_at");
        }
        if (run.finishedAtMicros() > 0) {
            node.put("finished_at", HttpResponses.time(run.finishedAtMicros()));
            node.put("duration_ms", (run.finishedAtMicros() - run.startedAtMicros()) / 1_000);
        } else {
            node.putNull("finished_at");
            node.putNull("duration_ms");
        }
        if (withModels) {
            ArrayNode models = node.putArray("models");
            for (RunRecord.ModelResult model : run.models()) {
                models.addObject().put("name", model.name()).put("status", model.status()).put("rows", model.rows())
                        .put("duration_ms", model.durationMillis()).put("error", model.error());
            }
        }
        return node;
    }

    /** A time filter: RFC 3339 or epoch microseconds. */
    static Long time(String value, String name) {
        if (value == null) {
            return null;
        }
        if (value.matches("-?\\d+")) {
            return Long.parseLong(value);
        }
        try {
            return EpochMicros.of(Instant.parse(value));
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(name + " must be RFC 3339 (e.g. 2026-11-29T08:00:00Z) or epoch"
                    + " microseconds, got " + value);
        }
    }
}
