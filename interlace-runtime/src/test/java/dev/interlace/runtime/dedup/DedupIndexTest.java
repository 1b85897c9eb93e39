package dev.interlace.runtime.dedup;

import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.runtime.testing.Eventually;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The index over a key source kept in memory the way the log keeps it (one block of new keys per group commit): what
 * it answers after seals, merges, trims, restarts and damaged files. The log's own runs are in the contract suites.
 */
class DedupIndexTest {

    @TempDir
    Path directory;

    private final ExecutorService background = DedupIndex.backgroundThreads();
    private final Groups groups = new Groups();
    private final List<DedupIndex> opened = new ArrayList<>();

    @AfterEach
    void close() {
        opened.forEach(DedupIndex::close);
        background.shutdownNow();
    }

    /** The committed groups of new keys, as the log's key blocks hold them. */
    private static final class Groups implements KeySource {
        // Per group: offset, hash, offset, hash, ... Copied on write: a seal scans them on the index's thread while
        // the test commits more (an ArrayList threw ConcurrentModificationException there and the seal failed).
        final List<long[]> pairs = new java.util.concurrent.CopyOnWriteArrayList<>();
        long head;

        /** Commits one group of new keys, returning their offsets. */
        long[] commit(String... keys) {
            long[] group = new long[keys.length * 2];
            long[] offsets = new long[keys.length];
            for (int i = 0; i < keys.length; i++) {
                offsets[i] = ++head;
                group[2 * i] = head;
                group[2 * i + 1] = KeyHash.of(keys[i]);
            }
            pairs.add(group);
            return offsets;
        }

        @Override
        public void scan(long afterOffset, long notBeforeMicros, GroupVisitor visitor) throws IOException {
            for (long[] group : pairs) {
                long last = group[group.length - 2];
                if (last <= afterOffset) {
                    continue;
                }
                ByteBuffer keys = ByteBuffer.allocate(group.length * Long.BYTES);
                for (long value : group) {
                    keys.putLong(value);
                }
                if (!visitor.group(last, 1, keys.flip())) {
                    return;
                }
            }
        }
    }

    private DedupIndex open(int recentKeys) throws IOException {
        return open(recentKeys, 0);
    }

    private DedupIndex open(int recentKeys, long trimmedThrough) throws IOException {
        return open(recentKeys, trimmedThrough, 2);
    }

    private DedupIndex open(int recentKeys, long trimmedThrough, int fanIn) throws IOException {
        DedupIndex index = DedupIndex.open(directory, groups, trimmedThrough, groups.head, () -> Long.MIN_VALUE,
                new DedupIndex.Settings(recentKeys, fanIn), background, SegmentListener.NONE);
        opened.add(index);
        return index;
    }

    /** Commits keys through the index as the log does: offsets assigned, then added once durable. */
    private void commit(DedupIndex index, String... keys) {
        long[] offsets = groups.commit(keys);
        for (int i = 0; i < keys.length; i++) {
            index.add(KeyHash.of(keys[i]), offsets[i]);
        }
        index.committed(groups.head);
    }

    /** The {@code count} keys {@code prefix + first}, {@code prefix + (first + 1)}, and so on. */
    private static String[] keys(String prefix, int first, int count) {
        String[] keys = new String[count];
        for (int i = 0; i < count; i++) {
            keys[i] = prefix + (first + i);
        }
        return keys;
    }

    private static List<Long> candidates(DedupIndex index, String key) {
        List<Long> offsets = new ArrayList<>();
        index.candidates(KeyHash.of(key), Long.MIN_VALUE, offsets::add);
        return offsets;
    }

    private static void settle(DedupIndex index) throws InterruptedException {
        Eventually.until("the index's seals and merges are done", Duration.ofSeconds(5), () -> !index.busy());
        assertThat(index.busy()).isFalse();
    }

    @Test
    void theRecentKeysOfEveryKeyedStreamTogetherTakeTheHeapShareGivenNotMoreWithMoreStreams() {
        long mebibyte = 1 << 20;
        assertThat(DedupIndex.Settings.forHeap(384 * mebibyte, 2).recentKeys()).as("a 6 GiB heap's share, 2 streams")
                .isEqualTo(DedupIndex.Settings.DEFAULTS.recentKeys());
        for (int streams : new int[] {1, 2, 10, 40}) {
            DedupIndex.Settings settings = DedupIndex.Settings.forHeap(16 * mebibyte, streams);
            assertThat((long) settings.recentKeys() * streams * DedupIndex.Settings.HEAP_BYTES_PER_RECENT_KEY)
                    .as("%d streams on a 256 MiB heap's share", streams).isLessThanOrEqualTo(16 * mebibyte);
            assertThat(settings.fanIn()).isEqualTo(DedupIndex.Settings.DEFAULTS.fanIn());
        }
        assertThat(DedupIndex.Settings.forHeap(mebibyte, 1_000).recentKeys()).as("never too small to seal well")
                .isEqualTo(DedupIndex.Settings.MIN_RECENT_KEYS);
    }

    @Test
    void keysSealedToDiskAreStillFoundWithTheirOffsetAndNewKeysFindNothing() throws Exception {
        DedupIndex index = open(100);
        for (int group = 0; group < 50; group++) {
            commit(index, keys("key-", group * 40, 40));
            settle(index);
        }
        assertThat(index.segmentCount()).isPositive();
        assertThat(index.keys()).isEqualTo(2000);
        for (int i = 0; i < 2000; i++) {
            assertThat(candidates(index, "key-" + i)).as("key-" + i).contains((long) i + 1);
        }
        int withCandidates = 0;
        for (int i = 0; i < 10_000; i++) {
            withCandidates += candidates(index, "new-" + i).isEmpty() ? 0 : 1;
        }
        assertThat(withCandidates).isZero();
    }

    @Test
    void whetherAKeyMayBeHeldIsAnsweredFromMemoryAndFiltersAndIsNeverNoForAHeldKey() throws Exception {
        DedupIndex index = open(100);
        for (int group = 0; group < 50; group++) {
            commit(index, keys("key-", group * 40, 40));
            settle(index);
        }
        commit(index, "recent-1", "recent-2");
        assertThat(index.segmentCount()).isPositive();
        for (String key : keys("key-", 0, 2000)) {
            assertThat(index.mayHold(KeyHash.of(key), Long.MIN_VALUE)).as(key).isTrue();
        }
        assertThat(index.mayHold(KeyHash.of("recent-2"), Long.MIN_VALUE)).isTrue();
        int maybe = 0;
        for (int i = 0; i < 10_000; i++) {
            long hash = KeyHash.of("new-" + i);
            boolean mayHold = index.mayHold(hash, Long.MIN_VALUE);
            List<Long> found = new ArrayList<>();
            index.candidates(hash, Long.MIN_VALUE, found::add);
            assertThat(mayHold || found.isEmpty()).as("new-" + i + " has candidates: " + found).isTrue();
            maybe += mayHold ? 1 : 0;
        }
        assertThat(maybe).as("new keys the filters cannot rule out, of 10 000").isLessThan(200);
        assertThat(index.mayHold(KeyHash.of("key-7"), Long.MAX_VALUE)).as("a sealed key older than the window")
                .isFalse();
    }

    @Test
    void mergingKeepsFewSegmentsAndEveryKey() throws Exception {
        DedupIndex index = open(10);
        for (int i = 0; i < 1000; i++) {
            commit(index, "k" + (2 * i), "k" + (2 * i + 1));
            settle(index);
        }
        settle(index);
        // 200 seals of about 10 keys, merged in pairs: a handful of segments, not hundreds.
        assertThat(index.segmentCount()).isLessThanOrEqualTo(12);
        for (int i = 0; i < 2000; i++) {
            assertThat(candidates(index, "k" + i)).containsExactly((long) i + 1);
        }
        try (Stream<Path> files = Files.list(directory)) {
            assertThat(files.count()).isEqualTo(index.segmentCount());
        }
    }

    @Test
    void aRestartReadsOnlyTheKeysAfterTheLastSegment() throws Exception {
        DedupIndex first = open(100);
        for (int i = 0; i < 30; i++) {
            commit(first, "a" + (3 * i), "a" + (3 * i + 1), "a" + (3 * i + 2));
            settle(first);
        }
        first.close();
        DedupIndex second = open(100);
        assertThat(second.heapBytes()).isEqualTo(first.heapBytes());
        assertThat(second.keys()).isEqualTo(90);
        for (int i = 0; i < 90; i++) {
            assertThat(candidates(second, "a" + i)).containsExactly((long) i + 1);
        }
    }

    @Test
    void sealingAheadLeavesWholeTablesOnDiskAndTheIndexOpenedLaterStartsFromThem() throws Exception {
        for (int i = 0; i < 95; i++) {
            groups.commit("s" + (2 * i), "s" + (2 * i + 1));
        }
        long sealed = DedupIndex.sealAhead(directory, groups, 0, () -> Long.MIN_VALUE, new DedupIndex.Settings(20, 2),
                SegmentListener.NONE, () -> false, null);
        // 190 keys in tables of 20: nine whole tables sealed, the last ten keys left to the source.
        assertThat(sealed).isEqualTo(180);
        long[] scannedAfter = {-1};
        KeySource recorded = (afterOffset, notBefore, visitor) -> {
            scannedAfter[0] = afterOffset;
            groups.scan(afterOffset, notBefore, visitor);
        };
        DedupIndex index = DedupIndex.open(directory, recorded, 0, groups.head, () -> Long.MIN_VALUE,
                new DedupIndex.Settings(20, 2), background, SegmentListener.NONE);
        opened.add(index);
        assertThat(scannedAfter[0]).as("only the keys after the sealed ones are read").isEqualTo(180);
        assertThat(index.segmentCount()).as("merged in pairs").isLessThan(9);
        assertThat(index.keys()).isEqualTo(190);
        for (int i = 0; i < 190; i++) {
            assertThat(candidates(index, "s" + i)).containsExactly((long) i + 1);
        }
    }

    @Test
    void aCancelledSealAheadLeavesOnlyCompleteSegments() throws Exception {
        for (int i = 0; i < 100; i++) {
            groups.commit("c" + i);
        }
        int[] looks = {0};
        long sealed = DedupIndex.sealAhead(directory, groups, 0, () -> Long.MIN_VALUE, new DedupIndex.Settings(10, 2),
                SegmentListener.NONE, () -> ++looks[0] > 35, null);
        assertThat(sealed).isEqualTo(30);
        try (Stream<Path> files = Files.list(directory)) {
            assertThat(files.map(file -> file.getFileName().toString())).allMatch(name -> name.endsWith(".seg"));
        }
        DedupIndex index = open(10);
        assertThat(index.keys()).isEqualTo(100);
        for (int i = 0; i < 100; i++) {
            assertThat(candidates(index, "c" + i)).containsExactly((long) i + 1);
        }
    }

    @Test
    void aFilterThatSaysMaybeForEverythingStillAnswersExactly() throws Exception {
        DedupIndex first = open(50);
        for (int i = 0; i < 20; i++) {
            commit(first, keys("m", i * 25, 25));
            settle(first);
        }
        first.close();
        try (Stream<Path> files = Files.list(directory)) {
            for (Path file : files.toList()) {
                saturateFilter(file);
            }
        }
        DedupIndex second = open(50);
        assertThat(second.segmentCount()).isPositive();
        for (int i = 0; i < 500; i++) {
            assertThat(candidates(second, "m" + i)).containsExactly((long) i + 1);
        }
        for (int i = 0; i < 5000; i++) {
            assertThat(candidates(second, "absent-" + i)).isEmpty();
        }
    }

    @Test
    void aCorruptSegmentIsRebuiltFromTheLog() throws Exception {
        DedupIndex first = open(20);
        for (int i = 0; i < 10; i++) {
            commit(first, "c" + (2 * i), "c" + (2 * i + 1));
        }
        for (int i = 10; i < 40; i++) {
            commit(first, "c" + (2 * i), "c" + (2 * i + 1));
            settle(first);
        }
        first.close();
        Path damaged;
        try (Stream<Path> files = Files.list(directory)) {
            damaged = files.sorted().findFirst().orElseThrow();
        }
        try (FileChannel channel = FileChannel.open(damaged, StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.wrap(new byte[] {1, 2, 3, 4}), 200); // inside the filter
        }
        DedupIndex second = open(20);
        for (int i = 0; i < 80; i++) {
            assertThat(candidates(second, "c" + i)).containsExactly((long) i + 1);
        }
        try (Stream<Path> files = Files.list(directory)) {
            for (Path file : files.toList()) {
                SegmentFile.open(file).close(); // the damaged one deleted, its keys in new, whole segments
            }
        }
    }

    @Test
    void aDamagedRunBlockFoundDuringALookupIsRebuiltAndTheLookupAnswersExactly() throws Exception {
        DedupIndex first = open(300);
        String[] keys = keys("r", 0, 600);
        commit(first, keys);
        settle(first);
        first.close();
        Path segment;
        try (Stream<Path> files = Files.list(directory)) {
            segment = files.findFirst().orElseThrow();
        }
        try (FileChannel channel = FileChannel.open(segment, StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.wrap(new byte[] {9, 9, 9, 9}), channel.size() - 8); // the run's last block
        }
        DedupIndex second = open(300);
        for (int i = 0; i < keys.length; i++) {
            assertThat(candidates(second, keys[i])).containsExactly((long) i + 1);
        }
    }

    @Test
    void aTrimDeletesTheSegmentsItEmptiesAndForgetsTheirKeys() throws Exception {
        DedupIndex index = open(10, 0, 1000); // no merges: a segment per ten keys, (0, 10], (10, 20], ...
        for (int i = 0; i < 20; i++) {
            commit(index, "t" + (5 * i), "t" + (5 * i + 1), "t" + (5 * i + 2), "t" + (5 * i + 3), "t" + (5 * i + 4));
            settle(index);
        }
        long filesBefore;
        try (Stream<Path> files = Files.list(directory)) {
            filesBefore = files.count();
        }
        index.removeThrough(60);
        assertThat(candidates(index, "t10")).isEmpty(); // offset 11: its segment (10, 20] is gone
        assertThat(candidates(index, "t80")).containsExactly(81L);
        try (Stream<Path> files = Files.list(directory)) {
            List<Path> left = files.toList();
            assertThat(left).hasSize((int) filesBefore - 6);
            for (Path file : left) {
                assertThat(SegmentFile.range(file)[1]).as("%s reaches past the trim", file).isGreaterThan(60);
            }
        }
        index.close();
        DedupIndex reopened = open(10, 60, 1000);
        assertThat(candidates(reopened, "t80")).containsExactly(81L);
        assertThat(candidates(reopened, "t99")).containsExactly(100L);
    }

    @Test
    void anUnfinishedSegmentWriteIsIgnored() throws Exception {
        DedupIndex first = open(1000);
        commit(first, "u1", "u2");
        first.close();
        Files.write(directory.resolve(SegmentFile.name(0, 2).replace(SegmentFile.SUFFIX,
                SegmentFile.TEMPORARY_SUFFIX)), new byte[] {1, 2, 3});
        DedupIndex second = open(1000);
        assertThat(candidates(second, "u2")).containsExactly(2L);
        try (Stream<Path> files = Files.list(directory)) {
            assertThat(files.toList()).isEmpty();
        }
    }

    /**
     * Restores the segments a first holder sealed into another directory as a node taking over from their published
     * copy does: each file's parts before its run, the run a hole. Returns the parts that can be fetched, by name.
     */
    private static java.util.Map<String, Path> restoreHeads(Path from, Path to, int partBytes) throws IOException {
        java.util.Map<String, Path> published = new java.util.HashMap<>();
        Files.createDirectories(to);
        try (Stream<Path> files = Files.list(from)) {
            for (Path file : files.toList()) {
                String name = file.getFileName().toString();
                byte[] bytes = Files.readAllBytes(file);
                long runOffset = ByteBuffer.wrap(bytes).getLong(88);
                int head = (int) Math.min(bytes.length, RemoteRuns.headParts(runOffset, partBytes) * partBytes);
                Path remote = to.resolve(name.replace(SegmentFile.SUFFIX, SegmentFile.REMOTE_SUFFIX));
                Files.write(remote, java.util.Arrays.copyOf(bytes, head));
                try (java.io.RandomAccessFile sized = new java.io.RandomAccessFile(remote.toFile(), "rw")) {
                    sized.setLength(bytes.length);
                }
                published.put(name, file);
            }
        }
        return published;
    }

    /** Parts of the published files, counting fetches; {@code spoiled} parts come back with a byte flipped. */
    private static class PublishedRuns implements RemoteRuns {
        final java.util.Map<String, Path> published;
        final int partBytes;
        final boolean spoiled;
        final java.util.concurrent.atomic.AtomicInteger fetched = new java.util.concurrent.atomic.AtomicInteger();

        PublishedRuns(java.util.Map<String, Path> published, int partBytes, boolean spoiled) {
            this.published = published;
            this.partBytes = partBytes;
            this.spoiled = spoiled;
        }

        @Override
        public boolean has(String name) {
            return published.containsKey(name);
        }

        @Override
        public int partBytes() {
            return partBytes;
        }

        @Override
        public byte[] part(String name, int index) throws IOException {
            byte[] bytes = Files.readAllBytes(published.get(name));
            byte[] part = java.util.Arrays.copyOfRange(bytes, index * partBytes,
                    Math.min(bytes.length, (index + 1) * partBytes));
            fetched.incrementAndGet();
            if (spoiled) {
                part[part.length / 2] ^= 1;
            }
            return part;
        }
    }

    @Test
    void segmentsRestoredWithoutTheirRunsAnswerEveryOldKeyAndFetchEachPartOnce() throws Exception {
        for (int i = 0; i < 410; i++) {
            groups.commit(keys("r", 10 * i, 10));
        }
        Path holder = directory.resolve("holder");
        DedupIndex.Settings settings = new DedupIndex.Settings(1000, 4);
        long sealed = DedupIndex.sealAhead(holder, groups, 0, () -> Long.MIN_VALUE, settings, SegmentListener.NONE,
                () -> false, null);
        assertThat(sealed).isEqualTo(4000);
        Path restored = directory.resolve("restored");
        PublishedRuns runs = new PublishedRuns(restoreHeads(holder, restored, 4096), 4096, false);
        long[] scannedAfter = {-1};
        KeySource recorded = (afterOffset, notBefore, visitor) -> {
            scannedAfter[0] = afterOffset;
            groups.scan(afterOffset, notBefore, visitor);
        };
        DedupIndex index = DedupIndex.open(restored, recorded, 0, groups.head, () -> Long.MIN_VALUE, settings,
                background, SegmentListener.NONE, runs);
        opened.add(index);
        assertThat(scannedAfter[0]).as("only the keys after the restored segments are read").isEqualTo(4000);
        for (int i = 0; i < 4100; i += 97) {
            assertThat(candidates(index, "r" + i)).as("key r%d", i).containsExactly((long) i + 1);
        }
        for (int i = 0; i < 200; i++) {
            assertThat(candidates(index, "new-" + i)).isEmpty();
        }
        // 4000 keys: a 64 KiB run in 16 parts, fetched by lookups or copied in the background, each once.
        Eventually.until("the runs are copied", Duration.ofSeconds(30), () -> !index.writingInBackground());
        assertThat(runs.fetched.get()).isEqualTo(16);
        for (int i = 0; i < 4100; i += 89) {
            assertThat(candidates(index, "r" + i)).as("key r%d", i).containsExactly((long) i + 1);
        }
        assertThat(runs.fetched.get()).as("then read from the disk").isEqualTo(16);
    }

    /**
     * Parts of the published files held back until {@link #release}: each fetch of a part says it started, then waits;
     * counts the fetches of each part.
     */
    private static final class HeldRuns extends PublishedRuns {
        final java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(1);
        final java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        final java.util.Map<String, Integer> fetches = new java.util.concurrent.ConcurrentHashMap<>();

        HeldRuns(java.util.Map<String, Path> published, int partBytes) {
            super(published, partBytes, false);
        }

        @Override
        public byte[] part(String name, int index) throws IOException {
            fetches.merge(name + "#" + index, 1, Integer::sum);
            started.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new java.io.InterruptedIOException();
            }
            return super.part(name, index);
        }
    }

    /**
     * A lookup as an owner that lets several threads look up under one lock does it: the run parts it needs fetched
     * outside the lock first ({@link DedupIndex#missingRuns}), then the lookup under the lock, which reads the disk.
     */
    private static List<Long> lookUpOutsideTheLock(DedupIndex index, java.util.concurrent.locks.Lock lock, String key)
            throws IOException {
        while (true) {
            RunFetch missing;
            lock.lock();
            try {
                missing = index.missingRuns(KeyHash.of(key), Long.MIN_VALUE);
                if (missing == null) {
                    return candidates(index, key);
                }
            } finally {
                lock.unlock();
            }
            missing.fetch();
        }
    }

    @Test
    void manyLookupsWaitingForOneHeldPartLeaveTheIndexFreeAndAreEachAnsweredExactlyWithEachPartFetchedOnce()
            throws Exception {
        for (int i = 0; i < 400; i++) {
            groups.commit(keys("h", 10 * i, 10));
        }
        Path holder = directory.resolve("holder");
        DedupIndex.Settings settings = new DedupIndex.Settings(1000, 4);
        DedupIndex.sealAhead(holder, groups, 0, () -> Long.MIN_VALUE, settings, SegmentListener.NONE, () -> false,
                null);
        Path restored = directory.resolve("restored");
        // Parts of 32 KiB: the 64 KB run of the 4000 keys in three parts, so that many lookups want the same part.
        HeldRuns held = new HeldRuns(restoreHeads(holder, restored, 32768), 32768);
        DedupIndex index = DedupIndex.open(restored, groups, 0, groups.head, () -> Long.MIN_VALUE, settings,
                background, SegmentListener.NONE, held);
        opened.add(index);
        java.util.concurrent.locks.ReentrantLock lock = new java.util.concurrent.locks.ReentrantLock();
        ExecutorService lookups = java.util.concurrent.Executors.newFixedThreadPool(24);
        try {
            List<java.util.concurrent.Future<List<Long>>> answers = new ArrayList<>();
            for (int i = 0; i < 96; i++) {
                String key = "h" + (i * 41);
                answers.add(lookups.submit(() -> lookUpOutsideTheLock(index, lock, key)));
            }
            held.started.await();
            // A part is being fetched (held until released below) and lookups wait for it: the index is free for the
            // owner's additions and for lookups that need no part. Other lookups hold the lock a moment to look up
            // what they miss; one that held it across the fetch would keep it past this wait.
            assertThat(lock.tryLock(30, java.util.concurrent.TimeUnit.SECONDS))
                    .as("no lookup holds the index's lock while a part is fetched").isTrue();
            try {
                commit(index, "n1", "n2");
                assertThat(candidates(index, "n2")).containsExactly(4002L);
                assertThat(candidates(index, "never-stored")).isEmpty();
            } finally {
                lock.unlock();
            }
            held.release.countDown();
            for (int i = 0; i < answers.size(); i++) {
                assertThat(answers.get(i).get(30, java.util.concurrent.TimeUnit.SECONDS)).as("key h%d", i * 41)
                        .containsExactly((long) i * 41 + 1);
            }
        } finally {
            held.release.countDown();
            lookups.shutdownNow();
        }
        Eventually.until("the runs are copied", Duration.ofSeconds(30), () -> !index.writingInBackground());
        assertThat(held.fetches).as("each part fetched once, by a lookup or the background copy").isNotEmpty()
                .allSatisfy((part, fetches) -> assertThat(fetches).as(part).isEqualTo(1));
        assertThat(index.stats().runBytesToFetch()).as("the whole run is on disk").isZero();
    }

    @Test
    void aRestoredSegmentWhosePartsFailTheirChecksumsIsRebuiltFromTheLog() throws Exception {
        for (int i = 0; i < 300; i++) {
            groups.commit("b" + (2 * i), "b" + (2 * i + 1));
        }
        Path holder = directory.resolve("holder");
        DedupIndex.Settings settings = new DedupIndex.Settings(200, 4);
        DedupIndex.sealAhead(holder, groups, 0, () -> Long.MIN_VALUE, settings, SegmentListener.NONE, () -> false,
                null);
        Path restored = directory.resolve("restored");
        PublishedRuns spoiled = new PublishedRuns(restoreHeads(holder, restored, 4096), 4096, true);
        DedupIndex index = DedupIndex.open(restored, groups, 0, groups.head, () -> Long.MIN_VALUE, settings,
                background, SegmentListener.NONE, spoiled);
        opened.add(index);
        for (int i = 0; i < 600; i += 7) {
            assertThat(candidates(index, "b" + i)).as("key b%d", i).containsExactly((long) i + 1);
        }
        assertThat(spoiled.fetched.get()).isPositive();
        try (Stream<Path> files = Files.list(restored)) {
            assertThat(files.map(file -> file.getFileName().toString()))
                    .as("rebuilt from the log, the restored copies gone").isNotEmpty()
                    .allMatch(name -> name.endsWith(SegmentFile.SUFFIX));
        }
    }

    /** Sets every bit of a segment's filter and fixes its checksum, so that the filter says "maybe" for every hash. */
    private static void saturateFilter(Path file) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer header = ByteBuffer.allocate(128);
            channel.read(header, 0);
            long filterBytes = header.getLong(56);
            long runOffset = header.getLong(88);
            byte[] ones = new byte[(int) filterBytes];
            java.util.Arrays.fill(ones, (byte) 0xFF);
            channel.write(ByteBuffer.wrap(ones), 128);
            ByteBuffer checked = ByteBuffer.allocate((int) (runOffset - 128));
            channel.read(checked, 128);
            CRC32C crc = new CRC32C();
            crc.update(header.array(), 0, 104);
            crc.update(checked.flip());
            channel.write(ByteBuffer.allocate(4).putInt(0, (int) crc.getValue()), 104);
        }
    }
}
