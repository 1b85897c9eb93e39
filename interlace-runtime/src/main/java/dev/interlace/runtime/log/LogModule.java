package dev.interlace.runtime.log;

import dev.interlace.runtime.dedup.SegmentListener;
import dev.interlace.runtime.health.ComponentHealth;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import com.google.inject.multibindings.Multibinder;
import dev.interlace.runtime.config.InterlaceConfig;
import dev.interlace.runtime.dedup.DedupIndex;
import dev.interlace.runtime.stream.StreamCatalog;
import java.time.Clock;
import java.util.Set;

/**
 * Binds {@link StreamLog} to the SQLite log in the data directory, and each narrow log interface ({@link EventLog},
 * {@link ConsumerGroups}, {@link PublishRecords}, {@link QuarantineStore}) to whatever {@code StreamLog} is bound to, so that an override of
 * {@code StreamLog} takes effect for every user.
 */
public final class LogModule extends AbstractModule {

    @Override
    protected void configure() {
        bind(CommitMetrics.class).in(Singleton.class);
        bind(RetentionSweep.class).in(Singleton.class);
        Multibinder.newSetBinder(binder(), CommitListener.class).addBinding().to(CommitMetrics.class);
        bind(EventLog.class).to(StreamLog.class);
        bind(DedupMetrics.class).asEagerSingleton();
        bind(ConsumerGroups.class).to(StreamLog.class);
        bind(PublishRecords.class).to(StreamLog.class);
        bind(QuarantineStore.class).to(StreamLog.class);
        // Bound only by a backend whose streams have one sequencer each (the Kafka log).
        com.google.inject.multibindings.OptionalBinder.newOptionalBinder(binder(), Sequencers.class);
    }

    /** The share of the heap every keyed stream's recent deduplication keys take together, at most. */
    static final int DEDUP_HEAP_FRACTION = 16;

    @Provides
    @Singleton
    LogSettings settings(InterlaceConfig config, StreamCatalog catalog) {
        LogSettings defaults = LogSettings.defaults(config.maxPending());
        int keyedStreams = (int) catalog.logStreams().stream().filter(stream -> stream.idempotencyKey() != null).count();
        return new LogSettings(defaults.maxPending(), defaults.walCapBytes(), defaults.maxGroupRequests(),
                config.keepsRecords()).withDedup(DedupIndex.Settings.forHeap(
                        Runtime.getRuntime().maxMemory() / DEDUP_HEAP_FRACTION, keyedStreams));
    }

    @Provides
    @Singleton
    StreamLog streamLog(InterlaceConfig config, LogSettings settings, Watermarks watermarks,
            Set<CommitListener> listeners, Clock clock, ComponentHealth components) {
        return new SqliteStreamLog(config.dataDirectory(), settings, watermarks, CommitListener.all(listeners), clock,
                SegmentListener.NONE, components);
    }
}
