package dev.interlace.runtime.records;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import dev.interlace.runtime.config.InterlaceConfig;
import dev.interlace.runtime.ops.EpochMicros;
import dev.interlace.runtime.ops.RequestIds;
import java.time.Clock;

/** This boot's id, the system records ({@code records.sqlite}) and the ring of refused requests. */
public final class RecordsModule extends AbstractModule {

    @Provides
    @Singleton
    Boot boot(RequestIds ids, Clock clock) {
        return new Boot(ids.mintWithPrefix("boot-"), EpochMicros.now(clock));
    }

    @Provides
    @Singleton
    SystemRecords systemRecords(InterlaceConfig config, Clock clock) {
        return config.keepsRecords()
                ? new SqliteSystemRecords(config.dataDirectory(), config.recordRetentionMicros(), clock)
                : SystemRecords.DISCARD;
    }

    @Provides
    @Singleton
    RefusedRequests refusedRequests(InterlaceConfig config, Boot boot) {
        return new RefusedRequests(config.refusedRequests(), boot.startedAtMicros());
    }
}
