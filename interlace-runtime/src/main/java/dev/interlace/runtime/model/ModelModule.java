package dev.interlace.runtime.model;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import dev.interlace.runtime.ops.RequestIds;
import dev.interlace.runtime.stream.StreamCatalog;
import dev.interlace.runtime.stream.StreamDescriptor;
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
        bind(ModelListener.class).toInstance(ModelListener.NONE);
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
    Optional<ModelRunner> runner(List<ModelDefinition> definitions, StreamCatalog catalog,
            Optional<Warehouse> warehouse, Clock clock, RequestIds ids, ModelListener listener,
            MeterRegistry registry) {
        if (warehouse.isEmpty()) {
            if (!definitions.isEmpty()) {
                throw new ModelException("there are models but no warehouse to run them in; put"
                        + " interlace-warehouse-duckdb on the class path");
            }
            return Optional.empty();
        }
        Set<String> streams = catalog.streams().stream().map(StreamDescriptor::name).collect(Collectors.toSet());
        ModelGraph graph = ModelGraph.build(definitions, streams, warehouse.get());
        ModelListener observed = ModelListener.both(listener, new ModelMetrics(registry, graph));
        return Optional.of(new ModelRunner(graph, warehouse.get(), warehouse.get(), clock, ids, observed));
    }
}
