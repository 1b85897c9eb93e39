package dev.interlace.examples.crash;

import com.google.inject.AbstractModule;
import com.google.inject.Module;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import com.google.inject.multibindings.Multibinder;
import dev.interlace.runtime.config.InterlaceConfig;
import dev.interlace.runtime.log.CommitListener;
import dev.interlace.runtime.log.LogSettings;
import dev.interlace.runtime.log.SqliteStreamLog;
import dev.interlace.runtime.log.StreamLog;
import dev.interlace.runtime.log.Watermarks;
import java.time.Clock;
import java.util.Set;

/**
 * The bindings a crash-test child overrides: its halting commit listener, and for the negative control a log that
 * acknowledges too early.
 */
final class FaultModule {

    private FaultModule() {}

    static Module of(FaultPoint fault, CommitListener listener) {
        return fault == FaultPoint.ACK_BEFORE_COMMIT ? new AckBeforeCommit(listener) : new Listener(listener);
    }

    /** Binds the commit listener; the log itself is the production one. */
    private static final class Listener extends AbstractModule {
        private final CommitListener listener;

        Listener(CommitListener listener) {
            this.listener = listener;
        }

        @Override
        protected void configure() {
            Multibinder.newSetBinder(binder(), CommitListener.class).addBinding().toInstance(listener);
        }
    }

    /** Binds the commit listener and wraps the production SQLite log in {@link AckBeforeCommitLog}. */
    private static final class AckBeforeCommit extends AbstractModule {
        private final CommitListener listener;

        AckBeforeCommit(CommitListener listener) {
            this.listener = listener;
        }

        @Override
        protected void configure() {
            Multibinder.newSetBinder(binder(), CommitListener.class).addBinding().toInstance(listener);
        }

        @Provides
        @Singleton
        StreamLog streamLog(InterlaceConfig config, LogSettings settings, Watermarks watermarks,
                Set<CommitListener> commitListeners, Clock clock) {
            return AckBeforeCommitLog.wrap(new SqliteStreamLog(config.dataDirectory(), settings, watermarks,
                    CommitListener.all(commitListeners), clock));
        }
    }
}
