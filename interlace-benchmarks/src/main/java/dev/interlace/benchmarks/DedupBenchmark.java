package dev.interlace.benchmarks;

import dev.interlace.runtime.dedup.DedupIndex;
import dev.interlace.runtime.dedup.KeyHash;
import dev.interlace.runtime.dedup.KeySource;
import dev.interlace.runtime.dedup.SegmentListener;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The deduplication index with a large window, built in bulk (not through HTTP): {@code DedupBenchmark DIR KEYS}
 * builds an index of {@code KEYS} keys in {@code DIR} (skipped when it is already there), then, in this JVM, opens it
 * as a start does and prints the start-up time, the heap it keeps after a full GC (per key), the resident memory, and
 * the lookups a second of new keys and of stored keys, each against an index of the same shape holding no keys at
 * all (the ratio is what the figures in docs/performance.md compare). Run it with the heap the target names, e.g.
 * {@code java -Xmx1g -cp examples/target/interlace-examples.jar:interlace-benchmarks/target/interlace-benchmarks.jar dev.interlace.benchmarks.DedupBenchmark DIR KEYS}.
 */
public final class DedupBenchmark {

    private static final int GROUP_KEYS = 1000;

    private DedupBenchmark() {}

    /** Keys {@code key-1} .. {@code key-N} at offsets 1 .. N, in groups of a thousand, as the log's key blocks. */
    private static KeySource syntheticKeys(long keys) {
        return (afterOffset, notBeforeMicros, visitor) -> {
            ByteBuffer group = ByteBuffer.allocate(GROUP_KEYS * 16);
            for (long first = afterOffset / GROUP_KEYS * GROUP_KEYS + 1; first <= keys; first += GROUP_KEYS) {
                group.clear();
                long last = Math.min(keys, first + GROUP_KEYS - 1);
                for (long offset = first; offset <= last; offset++) {
                    group.putLong(offset).putLong(KeyHash.of("key-" + offset));
                }
                if (last > afterOffset && !visitor.group(last, 1, group.flip())) {
                    return;
                }
            }
        };
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: DedupBenchmark DIR KEYS");
            System.exit(2);
        }
        Path directory = Path.of(args[0]);
        long keys = Long.parseLong(args[1]);
        CountingBackground background = new CountingBackground();
        DedupIndex.Settings settings = DedupIndex.Settings.DEFAULTS;
        Path marker = directory.resolve("built-" + keys);
        if (!Files.exists(marker)) {
            long started = System.nanoTime();
            Path index = directory.resolve("index");
            Files.createDirectories(index);
            try (DedupIndex building = DedupIndex.open(index, syntheticKeys(keys), 0, keys, () -> Long.MIN_VALUE,
                    settings, background, SegmentListener.NONE)) {
                while (true) { // merges run one at a time, each started by the next commit
                    long ended = background.ended();
                    building.committed(keys);
                    if (!building.busy()) {
                        building.committed(keys);
                        if (!building.busy()) {
                            break;
                        }
                    }
                    background.awaitEndAfter(ended);
                }
                System.out.printf("built %,d keys in %d segments, %,d bytes on disk, in %.1f s%n", building.keys(),
                        building.segmentCount(), building.fileBytes(), (System.nanoTime() - started) / 1e9);
            }
            Files.createFile(marker);
        }
        Path empty = Files.createTempDirectory(directory, "empty");

        long heapBefore = heapAfterGc();
        long started = System.nanoTime();
        DedupIndex index = DedupIndex.open(directory.resolve("index"), syntheticKeys(keys), 0, keys,
                () -> Long.MIN_VALUE, settings, background, SegmentListener.NONE);
        double startSeconds = (System.nanoTime() - started) / 1e9;
        long heapHeld = heapAfterGc() - heapBefore;
        DedupIndex none = DedupIndex.open(empty, syntheticKeys(0), 0, 0, () -> Long.MIN_VALUE, settings, background,
                SegmentListener.NONE);
        System.out.printf("opened %,d keys in %d segments in %.2f s%n", index.keys(), index.segmentCount(),
                startSeconds);
        System.out.printf("heap held after a full GC: %,d bytes, %.3f bytes a key (recent keys in memory: %,d bytes)%n",
                heapHeld, heapHeld / (double) keys, index.heapBytes());
        System.out.printf("mapped filters and fences: %,d bytes (%.2f bytes a key); segment files %,d bytes%n",
                index.mappedBytes(), index.mappedBytes() / (double) keys, index.fileBytes());

        int lookups = 2_000_000;
        for (int round = 0; round < 3; round++) {
            double withKeys = newKeyLookups(index, lookups, round);
            double without = newKeyLookups(none, lookups, round);
            System.out.printf("round %d: new keys %,.0f lookups/s with %,d keys held, %,.0f with none: ratio %.2f%n",
                    round, withKeys, keys, without, withKeys / without);
        }
        storedKeyLatencies(index, keys, 200_000);
        System.out.println("resident memory (VmRSS): " + resident());
        index.close();
        none.close();
        background.shutdown();
    }

    /**
     * New keys a second. The recent keys in memory keep 30 bits of a hash, so about one new key in a thousand meets
     * a false candidate there (which the log rules out with one row read); segments keep whole hashes.
     */
    private static double newKeyLookups(DedupIndex index, int lookups, int round) {
        long[] found = {0};
        long started = System.nanoTime();
        for (int i = 0; i < lookups; i++) {
            index.candidates(KeyHash.of("new-" + round + "-" + i), Long.MIN_VALUE, offset -> found[0]++);
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        System.out.printf("  %,d of %,d new keys met a false candidate (%.3f %%)%n", found[0], lookups,
                100.0 * found[0] / lookups);
        return lookups / seconds;
    }

    /** Lookups of random stored keys (a retry of a key accepted long ago): each is one block read in its segment. */
    private static void storedKeyLatencies(DedupIndex index, long keys, int lookups) {
        SplittableRandom random = new SplittableRandom(42);
        long[] nanos = new long[lookups];
        for (int i = 0; i < lookups; i++) {
            long offset = 1 + random.nextLong(keys);
            long[] found = {0};
            long started = System.nanoTime();
            index.candidates(KeyHash.of("key-" + offset), Long.MIN_VALUE, candidate -> {
                if (candidate == offset) {
                    found[0]++;
                }
            });
            nanos[i] = System.nanoTime() - started;
            if (found[0] != 1) {
                throw new IllegalStateException("stored key key-" + offset + " not found at its offset");
            }
        }
        Arrays.sort(nanos);
        System.out.printf("stored keys (%,d random): p50 %.1f µs, p99 %.1f µs, max %.1f µs%n", lookups,
                nanos[lookups / 2] / 1e3, nanos[lookups * 99 / 100] / 1e3, nanos[lookups - 1] / 1e3);
    }

    private static long heapAfterGc() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(100);
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    private static String resident() throws java.io.IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) {
                return line.substring(6).strip();
            }
        }
        return "unknown";
    }

    /**
     * The index's background threads, counting the seals and merges that ended: the build waits for the next one to
     * end before it commits again (which puts it in use and starts the next).
     */
    private static final class CountingBackground extends AbstractExecutorService {
        private final ExecutorService threads = DedupIndex.backgroundThreads();
        private long ended;

        @Override
        public void execute(Runnable task) {
            threads.execute(() -> {
                try {
                    task.run();
                } finally {
                    taskEnded();
                }
            });
        }

        private synchronized void taskEnded() {
            ended++;
            notifyAll();
        }

        synchronized long ended() {
            return ended;
        }

        /** Waits until a task ends after {@code seen} had. */
        synchronized void awaitEndAfter(long seen) throws InterruptedException {
            while (ended == seen) {
                wait();
            }
        }

        @Override
        public void shutdown() {
            threads.shutdown();
        }

        @Override
        public List<Runnable> shutdownNow() {
            return threads.shutdownNow();
        }

        @Override
        public boolean isShutdown() {
            return threads.isShutdown();
        }

        @Override
        public boolean isTerminated() {
            return threads.isTerminated();
        }

        @Override
        public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
            return threads.awaitTermination(timeout, unit);
        }
    }
}
