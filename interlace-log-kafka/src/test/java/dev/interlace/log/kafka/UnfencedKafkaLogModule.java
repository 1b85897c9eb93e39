package dev.interlace.log.kafka;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import dev.interlace.runtime.config.InterlaceConfig;
import dev.interlace.runtime.flush.FlushPositions;
import dev.interlace.runtime.log.LogSettings;
import java.time.Clock;

/**
 * For negative controls only: the Kafka log of {@code serve --log kafka} with sequencers whose producers are not
 * transactional, so that nothing fences a holder paused past its ownership. Laid over the Kafka log's module with
 * {@code Interlace.Builder.override}; no flag of the shipped jar reaches it.
 */
public final class UnfencedKafkaLogModule extends AbstractModule {

    private final KafkaLogSettings kafka;

    public UnfencedKafkaLogModule(InterlaceConfig config) {
        this.kafka = KafkaLogSettings.from(config);
    }

    @Override
    protected void configure() {
        // Only the provider below replaces the Kafka log module's.
    }

    @Provides
    @Singleton
    KafkaStreamLog unfencedKafkaStreamLog(LogSettings settings, FlushPositions materialised, Clock clock) {
        return new KafkaStreamLog(kafka, settings, materialised, clock, Unfenced.NONE);
    }
}
