package dev.interlace.runtime.flush;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import com.google.inject.multibindings.Multibinder;
import dev.interlace.runtime.config.InterlaceConfig;
import dev.interlace.runtime.log.ConsumerGroups;
import dev.interlace.runtime.log.EventLog;
import dev.interlace.runtime.log.Watermarks;
import dev.interlace.runtime.ops.RequestIds;
import dev.interlace.runtime.records.SystemRecords;
import dev.interlace.runtime.stream.StreamCatalog;
import dev.interlace.runtime.warehouse.FlushRecords;
import dev.interlace.runtime.warehouse.Queries;
import dev.interlace.runtime.warehouse.StreamTables;
import dev.interlace.runtime.warehouse.Warehouse;
import dev.interlace.runtime.warehouse.WarehouseFactory;
import java.time.Clock;
import java.util.Iterator;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.Set;

/** The flusher, its positions (which the log reads for backpressure) and the warehouse found on the class path. */
public final class FlushModule extends AbstractModule {

    @Override
    protected void configure() {
        bind(FlushPositions.class).in(Singleton.class);
        bind(Watermarks.class).to(FlushPositions.class);
        bind(FlushMetrics.class).in(Singleton.class);
        Multibinder.newSetBinder(binder(), FlushListener.class).addBinding().to(FlushMetrics.class);
        bind(FlushLease.class).toInstance(FlushLease.DEFAULT);
    }

    @Provides
    @Singleton
    Optional<Warehouse> warehouse(InterlaceConfig config, Set<FlushListener> listeners) {
        Iterator<WarehouseFactory> factories = ServiceLoader.load(WarehouseFactory.class,
                Thread.currentThread().getContextClassLoader()).iterator();
        if (!factories.hasNext()) {
            return Optional.empty();
        }
        return Optional.of(factories.next().open(config.dataDirectory(), FlushListener.all(listeners)));
    }

    /** The warehouse's flush records, for retention and the record routes. */
    @Provides
    Optional<FlushRecords> flushRecords(Optional<Warehouse> warehouse) {
        return warehouse.map(FlushRecords.class::cast);
    }

    /** The warehouse's stream tables, for the stream routes. */
    @Provides
    Optional<StreamTables> streamTables(Optional<Warehouse> warehouse) {
        return warehouse.map(StreamTables.class::cast);
    }

    /** The warehouse's read-only queries, for {@code POST /sql}. */
    @Provides
    Optional<Queries> queries(Optional<Warehouse> warehouse) {
        return warehouse.map(Queries.class::cast);
    }

    @Provides
    @Singleton
    Flusher flusher(StreamCatalog catalog, EventLog log, ConsumerGroups groups, Optional<Warehouse> warehouse,
            FlushPositions positions, Set<FlushListener> listeners, FlushLease lease, RequestIds ids,
            SystemRecords records, Clock clock, InterlaceConfig config) {
        return new Flusher(catalog, log, groups, warehouse, positions, FlushListener.all(listeners), lease, ids,
                records, clock, config);
    }
}
