package dev.interlace.runtime.log;

import com.google.inject.Module;
import dev.interlace.runtime.config.InterlaceConfig;

/**
 * A stream log other than SQLite, selected with {@code --log NAME}: found with {@code ServiceLoader}
 * ({@code META-INF/services/dev.interlace.runtime.log.LogBackendFactory}), so the runtime does not depend on it.
 *
 * <p>Its module overrides {@link LogModule}'s binding of {@link StreamLog} (and may bind {@link Sequencers}); every
 * narrow log interface follows, since {@code LogModule} binds them to {@code StreamLog}.
 */
public interface LogBackendFactory {

    /** The value of {@code --log} that selects this backend, e.g. {@code kafka}. */
    String name();

    /** The Guice module binding {@link StreamLog} to this backend, configured from {@code config}. */
    Module module(InterlaceConfig config);

    /**
     * A follower of this backend's log for a query process (a local replica of a server's warehouse): it reads the
     * log the settings of {@code config.log()} name and never writes to it, keeps its consumer groups in memory
     * ({@link FollowerGroups}), so that the log's cluster does not see it, and refuses appends, replays, trims and
     * grants. {@code config} is the query process's: its data directory is the follower's own.
     */
    StreamLog follower(InterlaceConfig config, java.time.Clock clock);
}
