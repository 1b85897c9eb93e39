package dev.interlace.log.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.runtime.log.PublishRecord;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Kafka node's copy of the publish records: what the tailer and the sequencers apply to it, what a page of it
 * answers, and that it lives on disk rather than in the heap.
 */
class PublishStoreTest {

    private static final PublishRecord.Filter ALL = new PublishRecord.Filter(null, null, null, null, 100);

    @TempDir
    Path directory;

    @Test
    void aRecordSeenTwiceIsKeptOnceAndALaterPositionReplacesAnEarlierOne() {
        try (PublishStore store = PublishStore.create(directory.resolve("publishes.sqlite"))) {
            store.apply("r1", record("r1", "orders", 10), 5);
            store.apply("r1", record("r1", "orders", 10), 5); // the sequencer's copy, then the tailer's
            store.apply("r2", record("r2", "clicks", 20), 6);
            store.apply("r1", record("r1-older", "orders", 10), 4); // a stale copy does not replace it

            PublishRecord.Page page = store.page(ALL);
            assertThat(page.total()).isEqualTo(2);
            assertThat(page.records()).extracting(PublishRecord::requestId).as("newest position first")
                    .containsExactly("r2", "r1");

            store.apply("r1", record("r1-again", "orders", 30), 7);
            assertThat(store.page(ALL).records()).extracting(PublishRecord::requestId)
                    .containsExactly("r1-again", "r2");
        }
    }

    @Test
    void theTailerSkipsExactlyTheRecordsThisNodeWroteAtTheirPositions() {
        try (PublishStore store = PublishStore.create(directory.resolve("publishes.sqlite"))) {
            store.apply("own-1", record("own-1", "orders", 10), Codec.json(record("own-1", "orders", 10)), 5, true);
            store.apply("own-2", record("own-2", "orders", 20), Codec.json(record("own-2", "orders", 20)), 7, true);
            store.apply("own-3", record("own-3", "orders", 30), Codec.json(record("own-3", "orders", 30)), 9, true);

            assertThat(store.readByTailer(4)).as("another node's record before them").isFalse();
            assertThat(store.readByTailer(5)).isTrue();
            assertThat(store.readByTailer(6)).as("another node's record between them").isFalse();
            assertThat(store.readByTailer(8)).as("position 7 was passed: forgotten, 8 is not this node's").isFalse();
            assertThat(store.readByTailer(9)).isTrue();
            assertThat(store.readByTailer(9)).as("skipped once only").isFalse();
            assertThat(store.page(ALL).records()).extracting(PublishRecord::requestId)
                    .as("kept from the writers' JSON").containsExactly("own-3", "own-2", "own-1");
        }
    }

    @Test
    void theRecordsForTheTailerToSkipAreBoundedWhateverItsLag() {
        try (PublishStore store = PublishStore.create(directory.resolve("publishes.sqlite"))) {
            int written = PublishStore.WRITTEN_POSITIONS + 10;
            for (int i = 1; i <= written; i++) {
                store.apply("r" + i, record("r" + i, "orders", i), Codec.json(record("r" + i, "orders", i)), i, true);
            }
            assertThat(store.readByTailer(1)).isTrue();
            assertThat(store.readByTailer(PublishStore.WRITTEN_POSITIONS)).isTrue();
            assertThat(store.readByTailer(written)).as("beyond the bound: applied again by the tailer").isFalse();
            assertThat(store.page(ALL).total()).isEqualTo(written);
        }
    }

    @Test
    void aTombstoneRemovesOnlyARecordOlderThanItself() {
        try (PublishStore store = PublishStore.create(directory.resolve("publishes.sqlite"))) {
            store.apply("r1", record("r1", "orders", 10), 5);
            store.apply("r2", record("r2", "orders", 20), 8);
            store.applyTombstone("r1", 9);
            store.applyTombstone("r2", 7); // a tombstone older than the record it names
            store.apply("r3", null, 10); // a tombstone read as a record without a value, for a record never seen

            assertThat(store.page(ALL).records()).extracting(PublishRecord::requestId).containsExactly("r2");
            store.remove("r2");
            assertThat(store.page(ALL).total()).isZero();
        }
    }

    @Test
    void aPageFiltersByStreamRequestAndArrivalAndCountsEveryMatch() {
        try (PublishStore store = PublishStore.create(directory.resolve("publishes.sqlite"))) {
            for (int i = 1; i <= 30; i++) {
                store.apply("r" + i, record("r" + i, i % 3 == 0 ? "clicks" : "orders", i * 1_000L), i);
            }
            PublishRecord.Page orders = store.page(new PublishRecord.Filter("orders", null, null, null, 5));
            assertThat(orders.total()).isEqualTo(20);
            assertThat(orders.records()).extracting(PublishRecord::requestId)
                    .containsExactly("r29", "r28", "r26", "r25", "r23");
            assertThat(store.page(new PublishRecord.Filter(null, "r7", null, null, 5)).records())
                    .extracting(PublishRecord::requestId).containsExactly("r7");
            PublishRecord.Page window = store.page(new PublishRecord.Filter("clicks", null, 6_000L, 15_000L, 10));
            assertThat(window.records()).extracting(PublishRecord::requestId).as("[since, until) on arrival")
                    .containsExactly("r12", "r9", "r6");
            assertThat(store.keysReceivedBefore(10_000L, 4)).as("oldest first, at most the limit")
                    .containsExactly("r1", "r2", "r3", "r4");
            assertThat(store.keysReceivedBefore(3_000L, 100)).containsExactly("r1", "r2");
        }
    }

    @Test
    void theStoreIsMadeAnewAtEachStartAndItsFilesGoWhenItCloses() throws Exception {
        Path file = directory.resolve("kafka").resolve("publishes.sqlite");
        Files.createDirectories(file.getParent());
        Files.writeString(file, "what a killed run left behind");
        PublishStore store = PublishStore.create(file);
        store.apply("r1", record("r1", "orders", 10), 1);
        assertThat(store.page(ALL).total()).isEqualTo(1);
        store.close();
        try (Stream<Path> left = Files.list(file.getParent())) {
            assertThat(left).isEmpty();
        }
    }

    @Test
    void halfAMillionRecordsFitA32MegabyteHeap() throws Exception {
        String classPath = Stream.of(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(entry -> !entry.contains("surefire")).collect(Collectors.joining(File.pathSeparator));
        Path output = directory.resolve("child.out");
        Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx32m", "-XX:+ExitOnOutOfMemoryError", "-cp", classPath, ManyRecords.class.getName(),
                directory.resolve("many.sqlite").toString(), "500000")
                .redirectErrorStream(true).redirectOutput(output.toFile()).start();
        assertThat(child.waitFor(5, TimeUnit.MINUTES)).as("the child finished").isTrue();
        String printed = Files.readString(output, StandardCharsets.UTF_8);
        assertThat(child.exitValue()).as(printed).isZero();
        assertThat(printed).contains("total 500000 newest r500000");
    }

    /** The child of {@link #halfAMillionRecordsFitA32MegabyteHeap}: applies records, then reads a page. */
    public static final class ManyRecords {
        public static void main(String[] arguments) {
            int count = Integer.parseInt(arguments[1]);
            try (PublishStore store = PublishStore.create(Path.of(arguments[0]))) {
                for (int i = 1; i <= count; i++) {
                    String id = "r" + i;
                    store.apply(id, record(id, i % 2 == 0 ? "orders" : "clicks", i), i);
                }
                PublishRecord.Page page = store.page(new PublishRecord.Filter(null, null, null, null, 10));
                System.out.println("total " + page.total() + " newest " + page.records().get(0).requestId());
            }
        }
    }

    private static PublishRecord record(String requestId, String stream, long receivedAtMicros) {
        return new PublishRecord(requestId, stream, 3, 1, 0, 1, 3, List.of(1L), 0, 0, receivedAtMicros,
                receivedAtMicros + 1, "key-id-of-a-publisher", "a publisher's key name, as long as names go");
    }
}
