package dev.interlace.runtime.ops;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import dev.interlace.runtime.config.InterlaceConfig;
import java.time.Clock;

/** Clock, request ids and disk space: the operational plumbing every other module uses. */
public final class OpsModule extends AbstractModule {

    @Provides
    @Singleton
    Clock clock() {
        return Clock.systemUTC();
    }

    @Provides
    @Singleton
    RequestIds requestIds(Clock clock) {
        return new RequestIds(clock);
    }

    @Provides
    @Singleton
    DiskSpace diskSpace(InterlaceConfig config) {
        return new DataDirectoryDiskSpace(config.dataDirectory());
    }
}
