package dev.interlace.integration.crash;

import com.google.inject.AbstractModule;
import com.google.inject.Module;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import com.google.inject.multibindings.Multibinder;
import dev.interlace.runtime.config.InterlaceConfig;
import dev.interlace.runtime.dedup.DedupIndex;
import dev.interlace.runtime.dedup.SegmentListener;
import dev.interlace.runtime.log.CommitListener;
import dev.interlace.runtime.log.LogSettings;
import dev.interlace.runtime.log.SqliteStreamLog;
import dev.interlace.runtime.log.StreamLog;
import dev.interlace.runtime.log.Watermarks;
import java.time.Clock;
import java.time.Duration;
import java.util.Set;

/**
 * The bindings a crash-test child overrides: its halting commit listener, for the negative control a log that
 * acknowledges too early, for the deduplication index's faults a log that seals and merges often and tells a
 * halting segment listener (for the trim's faults one that seals often and never merges), and the clock, which a
 * child running its log a week later than the last one is given.
 */
final class FaultModule {

    private FaultModule() {}

    /**
     * Keys a deduplication index of a child with an index fault keeps in memory: a few hundred, so that segments are
     * sealed and merged many times a second under the crash tests' load.
     */
    static final int SMALL_RECENT_KEYS = 300;
    /**
     * Segments merged at once in a child with a trim fault: never, so that the segments sealed before the clock moves
     * stay whole and below the trim's bound, and the trim always has some to delete.
     */
    static final int NO_MERGES = 1 << 20;

    /** The production clock moved {@code shift} ahead. */
    static Module clock(Duration shift) {
        Clock clock = Clock.offset(Clock.systemUTC(), shift);
        return binder -> binder.bind(Clock.class).toInstance(clock);
    }

    static Module of(FaultPoint fault, CommitListener listener, SegmentListener segmentListener) {
        if (fault.inDedupIndex()) {
            return new IndexFault(listener, segmentListener, fault.inTrim() ? NO_MERGES : 2);
        }
        return fault == FaultPoint.ACK_BEFORE_COMMIT ? new AckBeforeCommit(listener) : new Listener(listener);
    }

    /** The production SQLite log with a small in-memory part of its index, telling the halting segment listener. */
    private static final class IndexFault extends Listener {
        private final SegmentListener segmentListener;
        private final int fanIn;

        IndexFault(CommitListener listener, SegmentListener segmentListener, int fanIn) {
            super(listener);
            this.segmentListener = segmentListener;
            this.fanIn = fanIn;
        }

        @Provides
        @Singleton
        StreamLog streamLog(InterlaceConfig config, LogSettings settings, Watermarks watermarks,
                Set<CommitListener> commitListeners, Clock clock) {
            return new SqliteStreamLog(config.dataDirectory(),
                    settings.withDedup(new DedupIndex.Settings(SMALL_RECENT_KEYS, fanIn)), watermarks,
                    CommitListener.all(commitListeners), clock, segmentListener);
        }
    }

    /** Binds the commit listener; the log itself is the production one. */
    private static class Listener extends AbstractModule {
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
    private static final class AckBeforeCommit extends Listener {

        AckBeforeCommit(CommitListener listener) {
            super(listener);
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
