package dev.interlace.log.kafka;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import dev.interlace.runtime.config.InterlaceConfig;
import dev.interlace.runtime.dedup.DedupIndex;
import dev.interlace.runtime.dedup.SegmentListener;
import dev.interlace.runtime.flush.FlushPositions;
import dev.interlace.runtime.log.LogSettings;
import java.time.Clock;

/**
 * For crash tests only: the Kafka log of {@code serve --log kafka} with deduplication indexes of {@code dedup}'s
 * (small) sizes, so that segments are sealed, published and merged after a few thousand keys, and whose files' and
 * publication's steps are told to {@code segments} and {@code publication}. Laid over the Kafka log's module with
 * {@code Interlace.Builder.override}; no flag of the shipped jar reaches it.
 */
public final class IndexFaultKafkaLogModule extends AbstractModule {

    private final KafkaLogSettings kafka;
    private final DedupIndex.Settings dedup;
    private final SegmentListener segments;
    private final IndexPublicationListener publication;

    public IndexFaultKafkaLogModule(InterlaceConfig config, DedupIndex.Settings dedup, SegmentListener segments,
            IndexPublicationListener publication) {
        this.kafka = KafkaLogSettings.from(config);
        this.dedup = dedup;
        this.segments = segments;
        this.publication = publication;
    }

    @Override
    protected void configure() {
        // Only the provider below replaces the Kafka log module's.
    }

    @Provides
    @Singleton
    KafkaStreamLog faultingKafkaStreamLog(LogSettings settings, FlushPositions materialised, Clock clock) {
        return new KafkaStreamLog(kafka, settings.withDedup(dedup), materialised, clock, segments, publication);
    }
}
