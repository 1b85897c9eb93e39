package dev.interlace.runtime.model;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import com.google.inject.multibindings.Multibinder;
import com.google.inject.multibindings.ProvidesIntoSet;
import dev.interlace.runtime.config.InterlaceConfig;
import dev.interlace.runtime.ops.RequestIds;
import dev.interlace.runtime.tracing.Tracing;
import dev.interlace.runtime.stream.StreamCatalog;
import dev.interlace.runtime.stream.StreamDescriptor;
import dev.interlace.runtime.warehouse.RunRecord;
import dev.interlace.runtime.warehouse.Warehouse;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.stream.Collectors;

/** The models on the class path and their runner (none without a warehouse). */
public final class ModelModule extends AbstractModule {

    @Override
    protected void configure() {
        Multibinder.newSetBinder(binder(), ModelListener.class);
    }

    /** The models' meters, created at start-up for every model of the graph. */
    @ProvidesIntoSet
    @Singleton
    ModelListener metrics(MeterRegistry registry, Optional<ModelGraph> graph) {
        return graph.<ModelListener>map(models -> new ModelMetrics(registry, models)).orElse(ModelListener.NONE);
    }

    /** Reports each finished run to the tracer (nothing without one). */
    @ProvidesIntoSet
    @Singleton
    ModelListener tracedRuns(Tracing tracing) {
        return new ModelListener() {
            @Override
            public void runFinished(RunRecord run) {
                tracing.ran(run);
            }
        };
    }

    /**
     * The models in dependency order; none without a warehouse, and an error if there are models but no warehouse
     * on the class path. A node of {@code --role ingest} runs none: they run on the warehouse node.
     */
    @Provides
    @Singleton
    Optional<ModelGraph> graph(List<ModelDefinition> definitions, StreamCatalog catalog,
            Optional<Warehouse> warehouse, InterlaceConfig config) {
        if (warehouse.isEmpty()) {
            if (!definitions.isEmpty() && config.role().runsWarehouse()) {
                throw new ModelException("there are models but no warehouse to run them in; put"
                        + " interlace-warehouse-duckdb on the class path");
            }
            return Optional.empty();
        }
        Set<String> streams = catalog.streams().stream().map(StreamDescriptor::name).collect(Collectors.toSet());
        ModelGraph graph = ModelGraph.build(definitions, streams, warehouse.get()).withLogStreams(stream ->
                catalog.find(stream).map(declared -> declared.logStreams().stream().map(StreamDescriptor::name)
                        .toList()).orElse(List.of(stream)));
        return Optional.of(graph);
    }

    @Provides
    @Singleton
    List<ModelDefinition> definitions() {
        ClassLoader classLoader = Thread.currentThread().getContextClassLoader();
        List<ModelDefinition> models = new ArrayList<>(SqlModelFiles.load(classLoader));
        for (ModelRegistry registry : ServiceLoader.load(ModelRegistry.class, classLoader)) {
            models.addAll(registry.models());
        }
        return models;
    }

    @Provides
    @Singleton
    Optional<ModelRunner> runner(Optional<ModelGraph> graph, Optional<Warehouse> warehouse, Clock clock,
            RequestIds ids, Set<ModelListener> listeners, InterlaceConfig config,
            dev.interlace.runtime.health.ComponentHealth components) {
        return graph.map(models -> new ModelRunner(models, warehouse.get(), warehouse.get(), clock, ids,
                ModelListener.all(listeners), config.modelRestRatio(), components));
    }
}
