package dev.interlace.runtime.log;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import dev.interlace.runtime.config.InterlaceConfig;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;

/**
 * Binds {@link StreamLog} to the SQLite log in the data directory, and each narrow log interface ({@link EventLog},
 * {@link ConsumerGroups}, {@link PublishRecords}, {@link QuarantineStore}) to whatever {@code StreamLog} is bound to, so that an override of
 * {@code StreamLog} takes effect for every user.
 */
public final class LogModule extends AbstractModule {

    @Override
    protected void configure() {
        bind(CommitListener.class).toInstance(CommitListener.NONE);
        bind(EventLog.class).to(StreamLog.class);
        bind(ConsumerGroups.class).to(StreamLog.class);
        bind(PublishRecords.class).to(StreamLog.class);
        bind(QuarantineStore.class).to(StreamLog.class);
    }

    @Provides
    @Singleton
    LogSettings settings(InterlaceConfig config) {
        LogSettings defaults = LogSettings.defaults(config.maxPending());
        return new LogSettings(defaults.maxPending(), defaults.walCapBytes(), defaults.maxGroupRequests(),
                config.keepsRecords());
    }

    @Provides
    @Singleton
    StreamLog streamLog(InterlaceConfig config, LogSettings settings, Watermarks watermarks, CommitListener listener,
            MeterRegistry registry, Clock clock) {
        return new SqliteStreamLog(config.dataDirectory(), settings, watermarks,
                CommitListener.both(listener, new CommitMetrics(registry)), clock);
    }
}
