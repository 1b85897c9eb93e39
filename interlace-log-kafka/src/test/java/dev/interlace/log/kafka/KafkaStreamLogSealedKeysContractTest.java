package dev.interlace.log.kafka;

import dev.interlace.runtime.dedup.DedupIndex;
import dev.interlace.runtime.log.LogSettings;
import dev.interlace.runtime.log.StreamLog;
import dev.interlace.runtime.log.Watermarks;
import dev.interlace.runtime.log.tck.StreamLogContract;
import java.nio.file.Path;
import java.time.Clock;

/**
 * The Kafka log against the {@link StreamLogContract} with a sequencer whose deduplication index keeps only two keys
 * in memory and merges segments in pairs: nearly every key a test looks up is in a segment sealed from the stream's
 * key blocks, and a reopened log rebuilds its index from the segments it kept and the blocks after them.
 */
class KafkaStreamLogSealedKeysContractTest extends StreamLogContract {

    @Override
    protected StreamLog openLog(Path dataDirectory, LogSettings settings, Watermarks watermarks, Clock clock) {
        return new KafkaStreamLog(KafkaStreamLogContractTest.settingsFor(dataDirectory),
                settings.withDedup(new DedupIndex.Settings(2, 2)), watermarks, clock);
    }
}
