package dev.interlace.log.kafka;

import dev.interlace.log.kafka.testing.KafkaCluster;
import dev.interlace.runtime.log.LogSettings;
import dev.interlace.runtime.log.StreamLog;
import dev.interlace.runtime.log.Watermarks;
import dev.interlace.runtime.log.tck.StreamLogContract;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;

/**
 * The Kafka log against the {@link StreamLogContract}, on the shared one-node cluster. Each test's data directory
 * names its own topic prefix (so its own topics, sequencer group and transactional ids): a directory opened again
 * finds the same topics, a new one an empty log.
 */
class KafkaStreamLogContractTest extends StreamLogContract {

    @Override
    protected StreamLog openLog(Path dataDirectory, LogSettings settings, Watermarks watermarks, Clock clock) {
        return new KafkaStreamLog(settingsFor(dataDirectory), settings, watermarks, clock);
    }

    /** One-replica topics named after the directory, this node called after it too. */
    static KafkaLogSettings settingsFor(Path dataDirectory) {
        String namespace = "t" + Integer.toUnsignedString(dataDirectory.toAbsolutePath().toString().hashCode(), 36);
        return new KafkaLogSettings(KafkaCluster.shared().bootstrap(), namespace + ".", 1, 1,
                "http://" + namespace + ".test", Duration.ofSeconds(6), Duration.ofSeconds(20), dataDirectory);
    }
}
