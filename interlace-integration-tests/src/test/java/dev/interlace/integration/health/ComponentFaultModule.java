package dev.interlace.integration.health;

import com.google.inject.Binder;
import com.google.inject.Module;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import com.google.inject.multibindings.Multibinder;
import dev.interlace.runtime.config.InterlaceConfig;
import dev.interlace.runtime.dedup.DedupIndex;
import dev.interlace.runtime.flush.FlushListener;
import dev.interlace.runtime.log.CommitListener;
import dev.interlace.runtime.log.LogSettings;
import dev.interlace.runtime.log.SqliteStreamLog;
import dev.interlace.runtime.log.StreamLog;
import dev.interlace.runtime.log.Watermarks;
import dev.interlace.runtime.model.ModelListener;
import dev.interlace.runtime.health.ComponentHealth;
import dev.interlace.runtime.records.SystemRecords;
import java.time.Clock;
import java.time.Duration;
import java.util.Set;

/**
 * The bindings a component-failure child overrides: the fault's listeners, the production SQLite log with a small
 * in-memory part of its deduplication index (so that keys are sealed after a few hundred) telling the fault's
 * segment listener, and the component health with the grace the test chose before the process exits.
 */
record ComponentFaultModule(ComponentFault fault, Duration exitAfter) implements Module {

    /** Keys of a stream held in memory before they are sealed into a segment. */
    static final int SMALL_RECENT_KEYS = 300;

    @Override
    public void configure(Binder binder) {
        Multibinder.newSetBinder(binder, FlushListener.class).addBinding().toInstance(fault.flushListener());
        Multibinder.newSetBinder(binder, CommitListener.class).addBinding().toInstance(fault.commitListener());
        Multibinder.newSetBinder(binder, ModelListener.class).addBinding().toInstance(fault.modelListener());
    }

    @Provides
    @Singleton
    ComponentHealth componentHealth(SystemRecords records, Clock clock) {
        return new ComponentHealth(records, clock, exitAfter);
    }

    @Provides
    @Singleton
    StreamLog streamLog(InterlaceConfig config, LogSettings settings, Watermarks watermarks,
            Set<CommitListener> listeners, Clock clock, ComponentHealth components) {
        return new SqliteStreamLog(config.dataDirectory(),
                settings.withDedup(new DedupIndex.Settings(SMALL_RECENT_KEYS, 2)), watermarks,
                CommitListener.all(listeners), clock, fault.segmentListener(), components);
    }
}
