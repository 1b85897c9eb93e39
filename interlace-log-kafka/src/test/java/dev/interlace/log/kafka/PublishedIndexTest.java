package dev.interlace.log.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.log.kafka.testing.KafkaCluster;
import dev.interlace.runtime.dedup.KeyHash;
import dev.interlace.runtime.dedup.SegmentFile;
import dev.interlace.runtime.log.AppendResult;
import dev.interlace.runtime.testing.Eventually;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The holder publishes its deduplication segments ({@link IndexTopic}); a node that never followed the stream takes
 * it over from them (their filters and fences fetched, the runs when read) and the key blocks after them only, and
 * answers every old key deduplicated at its original offset. A seal that fails its checksum is detected and the index
 * built from the key blocks, as before. And the oracle of these tests is shown to catch a seal saved ahead of its
 * events (a negative control).
 */
class PublishedIndexTest extends SharedBrokerTest {

    private static final int RECENT_KEYS = 50;
    private static final int KEYS = 401;

    /** Held here: a logger nobody holds may be collected, and the handler with it. */
    private final Logger indexLog = Logger.getLogger(IndexTopic.class.getName());
    private Admin admin;
    private Readers readers;
    private IndexTopics published;
    private final List<String> logged = new CopyOnWriteArrayList<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            logged.add(record.getLevel() + " " + record.getMessage());
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    };

    @BeforeEach
    void connect() {
        String bootstrap = KafkaCluster.shared().bootstrap();
        admin = Admin.create(Map.of("bootstrap.servers", bootstrap));
        readers = new Readers(bootstrap, "published-index-test");
        published = new IndexTopics(bootstrap, "published-index-test", new Topics(admin, prefix, 1, 1), readers);
        indexLog.addHandler(capture);
    }

    @AfterEach
    void disconnect() {
        indexLog.removeHandler(capture);
        published.close();
        readers.close();
        admin.close();
    }

    @Test
    void aNodeThatNeverFollowedTheStreamTakesItOverFromThePublishedIndexAndFindsEveryOldKey() throws Exception {
        List<Long> offsets = storeThroughAHolderThatLeaves();
        try (KafkaStreamLog fresh = open("fresh")) {
            fresh.register(orders);
            assertThat(anomalies(fresh, offsets)).isEmpty();
            assertThat(entry(fresh, "key-new").status()).isEqualTo(AppendResult.Status.ACCEPTED);
            assertThat(fresh.dedupStats("orders").orElseThrow().segments()).isPositive();
        }
        assertThat(logged).as("restored from the published copies").anyMatch(line -> line.startsWith("INFO restored")
                && line.contains(prefix + "orders__index"));
    }

    /**
     * Many retries of old keys at once right after a takeover from the published index, with new keys among them,
     * looked up by the publishing threads and the sequencer together: each retry is answered deduplicated at its
     * original offset and each new key accepted. (This test's segments fit their first part, which a restore writes;
     * lookups that wait for one part being fetched are tested on the index itself, in {@code DedupIndexTest}.)
     */
    @Test
    void manyRetriesAtOnceRightAfterATakeoverFromThePublishedIndexAreEachDeduplicatedToTheirOffset() throws Exception {
        List<Long> offsets = storeThroughAHolderThatLeaves();
        try (KafkaStreamLog fresh = open("fresh")) {
            fresh.register(orders);
            java.util.concurrent.ExecutorService clients = java.util.concurrent.Executors.newFixedThreadPool(16);
            try {
                List<java.util.concurrent.Future<String>> answers = new ArrayList<>();
                for (int i = 0; i < KEYS; i += 3) {
                    int key = i;
                    answers.add(clients.submit(() -> {
                        AppendResult.EntryResult entry = entry(fresh, "key-" + key);
                        return entry.status() + " " + entry.offset();
                    }));
                    if (i % 30 == 0) {
                        answers.add(clients.submit(() -> entry(fresh, "new-" + key).status().toString()));
                    }
                }
                int answer = 0;
                for (int i = 0; i < KEYS; i += 3) {
                    assertThat(answers.get(answer++).get(60, TimeUnit.SECONDS)).as("key-%d", i)
                            .isEqualTo("DUPLICATE " + offsets.get(i));
                    if (i % 30 == 0) {
                        assertThat(answers.get(answer++).get(60, TimeUnit.SECONDS)).as("new-%d", i)
                                .isEqualTo("ACCEPTED");
                    }
                }
            } finally {
                clients.shutdownNow();
            }
        }
        // Said at the takeover: by the end the background copy may have brought every run (no segment left remote).
        assertThat(logged).as("taken over from segments restored without their runs").anyMatch(line ->
                line.startsWith("INFO restored") && line.contains(prefix + "orders__index")
                        && line.contains("their runs are copied in the background"));
    }

    @Test
    void aSealThatFailsItsChecksumIsDetectedAndTheIndexIsBuiltFromTheKeyBlocks() throws Exception {
        List<Long> offsets = storeThroughAHolderThatLeaves();
        byte[] spoiled = IndexTopic.encode(published.of("orders").latestSeal());
        spoiled[spoiled.length / 2] ^= 1;
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of("bootstrap.servers",
                KafkaCluster.shared().bootstrap()), new ByteArraySerializer(), new ByteArraySerializer())) {
            producer.send(new ProducerRecord<>(prefix + "orders__index", 0, Codec.text("seal"), spoiled))
                    .get(30, TimeUnit.SECONDS);
        }
        try (KafkaStreamLog fresh = open("fresh")) {
            fresh.register(orders);
            assertThat(anomalies(fresh, offsets)).isEmpty();
            assertThat(remoteSegments(directory.resolve("fresh"))).as("nothing restored").isEmpty();
        }
        assertThat(logged).noneMatch(line -> line.startsWith("INFO restored"));
        assertThat(logged).anyMatch(line -> line.startsWith("WARNING") && line.contains("does not match its"
                + " checksum") && line.contains("building it from the key blocks"));
    }

    /**
     * The negative control: a seal saved ahead of its events (its segment claims offsets 1 to 401 but holds only the
     * keys of the first 200) makes the node that takes over skip the key blocks of keys it lacks, and the oracle
     * above finds the duplicates it accepts.
     */
    @Test
    void theOracleCatchesASealSavedAheadOfItsEvents() throws Exception {
        List<Long> offsets = storeThroughAHolderThatLeaves();
        Path ahead = directory.resolve("forged").resolve(String.format("%019d-%019d.seg", 0, KEYS));
        Files.createDirectories(ahead.getParent());
        long[][] pairs = new long[200][];
        for (int i = 0; i < 200; i++) {
            pairs[i] = new long[] {KeyHash.of("key-" + i), offsets.get(i)};
        }
        Arrays.sort(pairs, (a, b) -> Long.compare(a[0], b[0]));
        SegmentFile.write(ahead, 0, KEYS, System.currentTimeMillis() * 1_000,
                Arrays.stream(pairs).mapToLong(pair -> pair[0]).toArray(),
                Arrays.stream(pairs).mapToLong(pair -> pair[1]).toArray(), pairs.length);
        IndexTopic index = published.of("orders");
        index.publishing(true);
        index.inUse(List.of(ahead), KEYS);
        Eventually.until("the forged seal is published", Duration.ofSeconds(60),
                () -> index.latestSeal().copies().containsKey(ahead.getFileName().toString()));
        try (KafkaStreamLog fresh = open("fresh")) {
            fresh.register(orders);
            assertThat(anomalies(fresh, offsets)).as("the oracle finds the keys the forged seal left out")
                    .isNotEmpty().allMatch(anomaly -> anomaly.contains("ACCEPTED"));
        }
    }

    /** Stores {@value #KEYS} keys through a first holder, waits until its segments are published, closes it. */
    private List<Long> storeThroughAHolderThatLeaves() throws Exception {
        List<Long> offsets;
        try (KafkaStreamLog first = open("first")) {
            first.register(orders);
            offsets = KeyedAppends.append(first, KEYS, 20);
            // A seal is put in use at the commit after it: a key more each time the publication is looked at.
            IndexTopic index = published.of("orders");
            int[] fillers = {0};
            Eventually.until("the holder published segments through most of the keys", Duration.ofSeconds(60),
                    () -> entry(first, "filler-" + fillers[0]++) != null
                            && sealedThrough(index) >= KEYS - 2 * RECENT_KEYS);
        }
        return offsets;
    }

    private static long sealedThrough(IndexTopic index) throws Exception {
        IndexTopic.Seal seal = index.latestSeal();
        return seal == null ? -1 : seal.sealedThrough();
    }

    /**
     * The oracle: every seventh old key retried must be deduplicated to the offset it was stored at; what is not.
     */
    private static List<String> anomalies(KafkaStreamLog log, List<Long> offsets) {
        List<String> found = new ArrayList<>();
        for (int i = 0; i < offsets.size(); i += 7) {
            AppendResult.EntryResult entry = entry(log, "key-" + i);
            if (entry.status() != AppendResult.Status.DUPLICATE || entry.offset() != offsets.get(i)) {
                found.add("key-" + i + " stored at " + offsets.get(i) + ": " + entry.status() + " at "
                        + entry.offset());
            }
        }
        return found;
    }

    private static AppendResult.EntryResult entry(KafkaStreamLog log, String key) {
        return KeyedOrders.entry(KeyedOrders.appendUntilServed(log, key));
    }

    private KafkaStreamLog open(String node) {
        return KeyedOrders.log(prefix, directory.resolve(node), node, true, RECENT_KEYS);
    }

    private static List<Path> remoteSegments(Path dataDirectory) throws Exception {
        try (Stream<Path> files = Files.walk(dataDirectory)) {
            return files.filter(file -> file.getFileName().toString().endsWith(SegmentFile.REMOTE_SUFFIX)).toList();
        }
    }
}
