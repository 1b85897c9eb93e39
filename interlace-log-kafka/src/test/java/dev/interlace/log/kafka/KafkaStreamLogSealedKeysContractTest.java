package dev.interlace.log.kafka;

import dev.interlace.runtime.dedup.DedupIndex;
import dev.interlace.runtime.log.LogSettings;
import dev.interlace.runtime.log.StreamLog;
import dev.interlace.runtime.log.Watermarks;
import dev.interlace.runtime.log.tck.EventLogContract;
import dev.interlace.runtime.log.tck.QuarantineStoreContract;
import java.nio.file.Path;
import java.time.Clock;
import org.junit.jupiter.api.Nested;

/**
 * The Kafka log's append decisions against the contract with a sequencer whose deduplication index keeps only two keys
 * in memory and merges segments in pairs: nearly every key a test looks up is in a segment sealed from the stream's
 * key blocks, and a reopened log rebuilds its index from the segments it kept and the blocks after them. Only the
 * suites whose verdicts go through the index run here (publishes, and replays of quarantined events); consumer groups
 * and publish records do not consult it and run once, in {@link KafkaStreamLogContractTest}.
 */
class KafkaStreamLogSealedKeysContractTest {

    private static StreamLog sealedKeysLog(Path dataDirectory, LogSettings settings, Watermarks watermarks,
            Clock clock) {
        return new KafkaStreamLog(KafkaStreamLogContractTest.settingsFor(dataDirectory),
                settings.withDedup(new DedupIndex.Settings(2, 2)), watermarks, clock);
    }

    /** Publishes, reads and deduplication. */
    @Nested
    class EventLogSuite extends EventLogContract {
        @Override
        protected StreamLog openLog(Path dataDirectory, LogSettings settings, Watermarks watermarks, Clock clock) {
            return sealedKeysLog(dataDirectory, settings, watermarks, clock);
        }
    }

    /** Quarantine and replay, whose replayed events are deduplicated against the sealed keys. */
    @Nested
    class QuarantineStoreSuite extends QuarantineStoreContract {
        @Override
        protected StreamLog openLog(Path dataDirectory, LogSettings settings, Watermarks watermarks, Clock clock) {
            return sealedKeysLog(dataDirectory, settings, watermarks, clock);
        }
    }
}
