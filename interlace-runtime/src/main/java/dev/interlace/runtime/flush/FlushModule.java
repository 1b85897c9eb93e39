package dev.interlace.runtime.flush;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import com.google.inject.multibindings.Multibinder;
import com.google.inject.multibindings.ProvidesIntoSet;
import dev.interlace.runtime.cluster.Peers;
import dev.interlace.runtime.cluster.SequencerConsumerGroups;
import dev.interlace.runtime.config.InterlaceConfig;
import dev.interlace.runtime.config.LogOptions;
import dev.interlace.runtime.config.Role;
import dev.interlace.runtime.log.ConsumerGroups;
import dev.interlace.runtime.log.StreamLog;
import dev.interlace.runtime.log.Sequencers;
import dev.interlace.runtime.log.Watermarks;
import dev.interlace.runtime.ops.RequestIds;
import dev.interlace.runtime.tracing.Tracing;
import dev.interlace.runtime.records.SystemRecords;
import dev.interlace.runtime.stream.StreamCatalog;
import dev.interlace.runtime.warehouse.FlushRecord;
import dev.interlace.runtime.warehouse.FlushRecords;
import dev.interlace.runtime.warehouse.Queries;
import dev.interlace.runtime.warehouse.StreamTables;
import dev.interlace.runtime.warehouse.Warehouse;
import dev.interlace.runtime.warehouse.WarehouseFactory;
import java.time.Clock;
import java.util.Optional;
import java.util.Set;

/**
 * The flusher, its positions (which the log reads for backpressure) and the warehouse found on the class path; none
 * on {@code --role ingest}, whose flusher has nothing to write to and whose warehouse routes go to the warehouse node.
 */
public final class FlushModule extends AbstractModule {

    @Override
    protected void configure() {
        bind(FlushPositions.class).in(Singleton.class);
        bind(Watermarks.class).to(FlushPositions.class);
        bind(FlushMetrics.class).in(Singleton.class);
        Multibinder.newSetBinder(binder(), FlushListener.class).addBinding().to(FlushMetrics.class);
    }

    /** Reports each committed batch to the tracer (nothing without one). */
    @ProvidesIntoSet
    @Singleton
    FlushListener tracedFlushes(Tracing tracing) {
        return new FlushListener() {
            @Override
            public void recorded(FlushRecord record) {
                tracing.flushed(record);
            }
        };
    }

    /**
     * The flusher's lease: on the Kafka log held under this node's advertised URL, so that two nodes never renew each
     * other's lease and the holder names the node where the warehouse is. A {@code --role warehouse} node is a replica
     * of its own (its id in the data directory, {@link ReplicaIds}); {@code --role all} nodes share one warehouse.
     */
    @Provides
    @Singleton
    FlushLease flushLease(InterlaceConfig config) {
        if (config.log().backend().equals(LogOptions.SQLITE)) {
            return FlushLease.DEFAULT;
        }
        String replica = config.role() == Role.WAREHOUSE
                ? ReplicaIds.of(config.dataDirectory(), config.advertisedUrl()) : null;
        return new FlushLease(config.advertisedUrl(), FlushLease.DEFAULT.ttl(), replica);
    }

    @Provides
    @Singleton
    Optional<Warehouse> warehouse(InterlaceConfig config, Set<FlushListener> listeners) {
        if (!config.role().runsWarehouse()) {
            return Optional.empty();
        }
        return WarehouseFactory.onClassPath()
                .map(factory -> factory.open(config.dataDirectory(), FlushListener.all(listeners)));
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

    /**
     * The acknowledged events kept decoded for this node's flusher: per stream two batches' worth (the one being
     * written and the next), never more than a stream may have pending; in all at most 64 MiB or a sixteenth of the
     * heap; none where no warehouse runs.
     */
    @Provides
    @Singleton
    RecentEvents recentEvents(InterlaceConfig config) {
        if (!config.role().runsWarehouse()) {
            return RecentEvents.NONE;
        }
        return new RecentEvents((int) Math.min(2L * config.flushBatchRows(), config.maxPending()),
                Math.min(64L << 20, Runtime.getRuntime().maxMemory() / 16));
    }

    @Provides
    @Singleton
    Flusher flusher(StreamCatalog catalog, StreamLog log, ConsumerGroups groups, Optional<Sequencers> sequencers,
            Peers peers, Optional<Warehouse> warehouse, FlushPositions positions,
            Set<FlushListener> listeners, FlushLease lease, RequestIds ids, SystemRecords records, Clock clock,
            InterlaceConfig config, RecentEvents recent,
            dev.interlace.runtime.health.ComponentHealth components) {
        // The flusher's lease, commit and release go to each stream's sequencer, wherever it runs.
        ConsumerGroups atSequencers = new SequencerConsumerGroups(groups, sequencers, peers, ids, config,
                FlushLease.PEER_CALLER);
        return new Flusher(catalog, log, atSequencers, warehouse, positions, FlushListener.all(listeners), lease, ids,
                records, clock, config, recent, components);
    }
}
