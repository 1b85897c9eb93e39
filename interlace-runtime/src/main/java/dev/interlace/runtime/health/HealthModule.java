package dev.interlace.runtime.health;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import dev.interlace.runtime.records.SystemRecords;
import java.time.Clock;

/** The components' health: where long-lived components report failures, and what the health routes read. */
public final class HealthModule extends AbstractModule {

    @Provides
    @Singleton
    ComponentHealth componentHealth(SystemRecords records, Clock clock) {
        return new ComponentHealth(records, clock, ComponentHealth.DEFAULT_EXIT_AFTER);
    }
}
