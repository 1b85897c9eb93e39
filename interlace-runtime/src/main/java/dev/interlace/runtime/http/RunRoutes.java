package dev.interlace.runtime.http;

import dev.interlace.client.ErrorCode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.interlace.runtime.model.ModelDefinition;
import dev.interlace.runtime.model.ModelGraph;
import dev.interlace.runtime.model.ModelRunner;
import dev.interlace.runtime.warehouse.RunRecord;
import dev.interlace.runtime.warehouse.RunStatus;
import dev.interlace.runtime.warehouse.Trigger;
import jakarta.inject.Inject;
import java.io.IOException;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/** {@code GET /runs}, {@code GET /runs/{id}}, {@code GET /models} and {@code POST /models/{name}/run}. */
final class RunRoutes implements RouteSet {

    private static final Set<String> FILTERS = Set.of("model", "status", "trigger", "since", "until", "limit");

    private final Optional<ModelRunner> runner;

    @Inject
    RunRoutes(Optional<ModelRunner> runner) {
        this.runner = runner;
    }

    @Override
    public void register(List<Route> routes) {
        // Runs and models live in the warehouse: every route is served by the node running it.
        Stream.of(
                Route.blocking("GET", "/runs", Access.READ, this::list),
                Route.blocking("GET", "/runs/{id}", Access.READ, this::show),
                Route.blocking("GET", "/models", Access.READ, this::models),
                Route.blocking("POST", "/models/{name}/run", Access.OPERATE, this::run))
                .map(route -> route.placedOn(Route.Placement.WAREHOUSE))
                .forEach(routes::add);
    }

    /** The DAG: every model in run order, with the streams and models it reads. */
    private HttpAnswer models(HttpRequest request, List<String> path, String requestId) throws IOException {
        ListQuery.of(request, requestId, Set.of());
        ObjectNode body = HttpResponses.JSON.createObjectNode();
        ArrayNode models = body.putArray("models");
        if (runner.isPresent()) {
            ModelGraph graph = runner.get().graph();
            for (ModelDefinition model : graph.inOrder()) {
                ObjectNode node = models.addObject();
                node.put("name", model.name());
                node.put("relation", model.qualifiedName());
                node.put("materialise", model.materialise().name().toLowerCase(Locale.ROOT));
                node.put("language", model.javaModel() == null ? "sql" : "java");
                node.put("unique_key", model.uniqueKey());
                ArrayNode streams = node.putArray("reads_streams");
                graph.streamsReadBy(model.name()).forEach(streams::add);
                ArrayNode inputs = node.putArray("reads_models");
                graph.modelsReadBy(model.name()).forEach(inputs::add);
            }
        }
        body.put("count", models.size());
        body.put("total", models.size());
        return HttpResponses.json(200, body);
    }

    private HttpAnswer list(HttpRequest request, List<String> path, String requestId) throws IOException {
        ListQuery query = ListQuery.of(request, requestId, FILTERS);
        RunRecord.Filter filter = new RunRecord.Filter(query.text("model"),
                query.parsed("status", RunStatus::fromWire, "one of " + String.join(", ", RunStatus.wireForms())),
                query.parsed("trigger", Trigger::parse, "stream:<name>:<offset>, manual or startup"),
                query.time("since"), query.time("until"), query.limit());
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
            return HttpResponses.error(ErrorCode.UNKNOWN_RUN, "no run has id " + path.get(0), requestId);
        }
        return HttpResponses.json(200, describe(run.get(), true));
    }

    private HttpAnswer run(HttpRequest request, List<String> path, String requestId) throws IOException {
        String model = path.get(0);
        if (runner.isEmpty() || !runner.get().hasModel(model)) {
            return HttpResponses.error(ErrorCode.UNKNOWN_MODEL, "no model is named " + model + "; GET /runs shows"
                    + " the models that ran", requestId);
        }
        ObjectNode body = HttpResponses.JSON.createObjectNode();
        body.put("run_id", runner.get().runManually(model));
        return HttpResponses.json(202, body);
    }

    private static ObjectNode describe(RunRecord run, boolean withModels) {
        ObjectNode node = HttpResponses.JSON.createObjectNode();
        node.put("id", run.id());
        node.put("trigger", run.trigger().toString());
        ArrayNode triggers = node.putArray("triggers");
        run.triggers().forEach(trigger -> triggers.add(trigger.toString()));
        node.put("status", run.status().wire());
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
        HttpResponses.putTraces(node, run.traces());
        if (withModels) {
            ArrayNode models = node.putArray("models");
            for (RunRecord.ModelResult model : run.models()) {
                models.addObject().put("name", model.name()).put("status", model.status().wire()).put("rows", model.rows())
                        .put("duration_ms", model.durationMillis()).put("error", model.error());
            }
        }
        return node;
    }
}
