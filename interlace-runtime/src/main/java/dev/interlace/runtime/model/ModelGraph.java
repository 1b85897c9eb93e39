package dev.interlace.runtime.model;

import dev.interlace.annotations.Materialise;
import dev.interlace.runtime.sql.QueryException;
import dev.interlace.runtime.warehouse.Queries;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The models and what each reads, derived from the SQL by the warehouse's own parser, checked at start-up: every
 * table must be a declared stream or a model, and the models must form a DAG.
 */
public final class ModelGraph {

    private final Map<String, ModelDefinition> models;
    private final Map<String, Set<String>> streamInputs;
    private final Map<String, Set<String>> modelInputs;
    private final List<String> order;
    /** A stream's log streams (its partitions'), for a stream of several; any other stream is its own one. */
    private final java.util.function.Function<String, List<String>> logStreams;

    private ModelGraph(Map<String, ModelDefinition> models, Map<String, Set<String>> streamInputs,
            Map<String, Set<String>> modelInputs, List<String> order,
            java.util.function.Function<String, List<String>> logStreams) {
        this.models = models;
        this.streamInputs = streamInputs;
        this.modelInputs = modelInputs;
        this.order = order;
        this.logStreams = logStreams;
    }

    /** This graph, whose streams have the log streams {@code of} names (a partitioned stream's partitions). */
    public ModelGraph withLogStreams(java.util.function.Function<String, List<String>> of) {
        return new ModelGraph(models, streamInputs, modelInputs, order, of);
    }

    /**
     * The log streams a model reads directly: each stream's own name, or every partition's log stream of a stream of
     * several partitions ({@code orders}, {@code orders__p1}, …); an incremental model keeps a watermark per one.
     */
    public List<String> logStreamsReadBy(String model) {
        List<String> all = new ArrayList<>();
        streamsReadBy(model).forEach(stream -> all.addAll(logStreams.apply(stream)));
        return all;
    }

    /**
     * Builds and checks the graph.
     *
     * @throws ModelException naming the model and the problem: SQL that does not parse, an unknown table, a name
     *     clash, a cycle
     */
    public static ModelGraph build(Collection<ModelDefinition> definitions, Set<String> streams, Queries warehouse) {
        Map<String, ModelDefinition> models = new TreeMap<>();
        for (ModelDefinition model : definitions) {
            ModelDefinition clash = models.putIfAbsent(model.name(), model);
            if (clash != null) {
                throw new ModelException("two models are named " + model.name() + " (" + clash.source() + " and "
                        + model.source() + "); rename one");
            }
            if (streams.contains(model.name()) && model.schema().equals("streams")) {
                throw new ModelException(model.source() + ": model " + model.name() + " clashes with stream "
                        + model.name());
            }
        }
        Map<String, Set<String>> streamInputs = new LinkedHashMap<>();
        Map<String, Set<String>> modelInputs = new LinkedHashMap<>();
        for (ModelDefinition model : models.values()) {
            List<Queries.TableReference> tables = new ArrayList<>();
            if (model.javaModel() != null) {
                for (String input : model.dependsOn()) {
                    int dot = input.indexOf('.');
                    tables.add(dot < 0 ? new Queries.TableReference("", input)
                            : new Queries.TableReference(input.substring(0, dot), input.substring(dot + 1)));
                }
            } else {
                try {
                    tables = warehouse.tablesReadBy(model.sql());
                } catch (QueryException e) {
                    throw new ModelException(model.source() + ": the SQL of model " + model.name()
                            + " does not parse: " + e.getMessage());
                }
            }
            Set<String> readStreams = new TreeSet<>();
            Set<String> readModels = new TreeSet<>();
            for (Queries.TableReference table : tables) {
                if (table.schema().equals("streams")) {
                    if (!streams.contains(table.table())) {
                        throw unknown(model, table, streams, models);
                    }
                    readStreams.add(table.table());
                    continue;
                }
                ModelDefinition input = models.get(table.table());
                boolean matches = input != null
                        && (table.schema().isEmpty() || table.schema().equals(input.schema()));
                if (!matches) {
                    throw unknown(model, table, streams, models);
                }
                if (input.name().equals(model.name())) {
                    throw new ModelException(model.source() + ": model " + model.name() + " reads itself");
                }
                readModels.add(input.name());
            }
            if (model.materialise() == Materialise.INCREMENTAL && readStreams.isEmpty()) {
                throw new ModelException(model.source() + ": incremental model " + model.name() + " reads no stream;"
                        + " incremental models process new stream rows, so make it a table or a view");
            }
            streamInputs.put(model.name(), readStreams);
            modelInputs.put(model.name(), readModels);
        }
        return new ModelGraph(models, streamInputs, modelInputs, topologicalOrder(models, modelInputs), List::of);
    }

    private static ModelException unknown(ModelDefinition model, Queries.TableReference table, Set<String> streams,
            Map<String, ModelDefinition> models) {
        List<String> known = new ArrayList<>();
        new TreeSet<>(streams).forEach(stream -> known.add("streams." + stream));
        models.values().forEach(other -> known.add(other.qualifiedName()));
        return new ModelException(model.source() + ": model " + model.name() + " reads unknown table "
                + table.qualified() + "; it can read " + String.join(", ", known));
    }

    /** Kahn's algorithm with names as tie-break, so the order is stable; a leftover means a cycle, which is named. */
    private static List<String> topologicalOrder(Map<String, ModelDefinition> models,
            Map<String, Set<String>> modelInputs) {
        Map<String, Integer> waiting = new TreeMap<>();
        modelInputs.forEach((model, inputs) -> waiting.put(model, inputs.size()));
        List<String> order = new ArrayList<>();
        TreeSet<String> ready = new TreeSet<>();
        waiting.forEach((model, count) -> {
            if (count == 0) {
                ready.add(model);
            }
        });
        while (!ready.isEmpty()) {
            String next = ready.pollFirst();
            order.add(next);
            modelInputs.forEach((model, inputs) -> {
                if (inputs.contains(next) && waiting.merge(model, -1, Integer::sum) == 0) {
                    ready.add(model);
                }
            });
        }
        if (order.size() < models.size()) {
            throw new ModelException("models form a cycle: " + String.join(" -> ", cycle(modelInputs, order)));
        }
        return order;
    }

    private static List<String> cycle(Map<String, Set<String>> modelInputs, List<String> resolved) {
        String start = modelInputs.keySet().stream().filter(model -> !resolved.contains(model)).findFirst()
                .orElseThrow();
        List<String> path = new ArrayList<>();
        String current = start;
        while (!path.contains(current)) {
            path.add(current);
            current = modelInputs.get(current).stream().filter(input -> !resolved.contains(input)).findFirst()
                    .orElseThrow();
        }
        List<String> cycle = new ArrayList<>(path.subList(path.indexOf(current), path.size()));
        cycle.add(current);
        return cycle;
    }

    /** Every model, in an order where each comes after the models it reads. */
    public List<ModelDefinition> inOrder() {
        List<ModelDefinition> ordered = new ArrayList<>();
        order.forEach(name -> ordered.add(models.get(name)));
        return ordered;
    }

    public ModelDefinition model(String name) {
        return models.get(name);
    }

    /** The streams a model reads directly. */
    public Set<String> streamsReadBy(String model) {
        return streamInputs.getOrDefault(model, Set.of());
    }

    /** The models a model reads directly. */
    public Set<String> modelsReadBy(String model) {
        return modelInputs.getOrDefault(model, Set.of());
    }

    /** The models that read {@code stream}, directly or through other models. */
    public Set<String> affectedByStream(String stream) {
        Set<String> affected = new LinkedHashSet<>();
        streamInputs.forEach((model, inputs) -> {
            if (inputs.contains(stream)) {
                affected.addAll(withDependants(model));
            }
        });
        return affected;
    }

    /** {@code model} and every model that reads it, directly or indirectly. */
    public Set<String> withDependants(String model) {
        Set<String> result = new LinkedHashSet<>();
        List<String> queue = new ArrayList<>(List.of(model));
        while (!queue.isEmpty()) {
            String next = queue.remove(0);
            if (result.add(next)) {
                modelInputs.forEach((candidate, inputs) -> {
                    if (inputs.contains(next)) {
                        queue.add(candidate);
                    }
                });
            }
        }
        return result;
    }
}
