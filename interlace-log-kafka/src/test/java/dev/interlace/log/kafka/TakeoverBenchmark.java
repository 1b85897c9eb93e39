package dev.interlace.log.kafka;

import dev.interlace.log.kafka.testing.KafkaCluster;
import dev.interlace.runtime.dedup.DedupIndex;
import dev.interlace.runtime.dedup.KeyHash;
import dev.interlace.runtime.log.AppendRequest;
import dev.interlace.runtime.log.AppendResult;
import dev.interlace.runtime.log.LogSettings;
import dev.interlace.runtime.log.Watermarks;
import dev.interlace.runtime.stream.StreamDescriptor;
import dev.interlace.runtime.testing.Eventually;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * What a window of many keys costs a Kafka node (not a test: {@code interlace-benchmarks/scripts/kafka-takeover.sh} runs it):
 * writes {@code KEYS} keyed events and their key blocks to a stream's topics in bulk, as the sequencer would have
 * (big transactions, not through HTTP), then measures
 * <ul>
 *   <li>what a node that only follows the stream holds;</li>
 *   <li>the first takeover, by a node that never held the stream (its index built from every key block, starting
 *       while it catches up with the events), from the log's opening to the first publish answered, and its
 *       sequencer's heap per key;</li>
 *   <li>the whole index built from the key blocks into an empty directory: such a takeover's worst case;</li>
 *   <li>a second node that may sequence the stream: how long its standby segments take, its heap, and its takeover
 *       once the holder leaves, to the first publish answered;</li>
 *   <li>publishes of new keys against retries of keys stored long ago on the new holder (p50 and p99), and the
 *       floor under a retry: a bare produce with the plain producer's settings to a topic of its own.</li>
 * </ul>
 * <p>With {@code --fresh-only}, only the first takeover and then the only candidate's takeover from the published index
 * and, in the same conditions, without it.
 *
 * usage: {@code TakeoverBenchmark WORK_DIR KEYS [--fresh-only]}
 */
public final class TakeoverBenchmark {

    private static final int EVENTS_PER_TRANSACTION = 20_000;
    /** How long after a takeover the steady state is measured: rounds run until then. */
    private static final Duration WARM_UP = Duration.ofSeconds(30);
    private static final String BARE_TOPIC = "bench-bare-produce";
    private static final String STREAM = "orders";
    private static final StreamDescriptor ORDERS = KeyedOrders.declaredBy(TakeoverBenchmark.class);
    private static final Watermarks EVERYTHING_FLUSHED = KeyedOrders.EVERYTHING_FLUSHED;

    private TakeoverBenchmark() {}

    public static void main(String[] args) throws Exception {
        Path work = Path.of(args[0]);
        long keys = Long.parseLong(args[1]);
        Files.createDirectories(work);
        try (KafkaCluster cluster = KafkaCluster.start(1, List.of("-Xms1g", "-Xmx1g", "-XX:+UseG1GC"))) {
            String prefix = "bench.";
            long started = System.nanoTime();
            try (KafkaStreamLog creator = open(cluster, prefix, work.resolve("creator"), false)) {
                creator.register(ORDERS); // creates the topics
            }
            bulkWrite(cluster.bootstrap(), prefix, keys);
            System.out.printf(Locale.ROOT, "wrote %,d keyed events in %.1f s%n", keys, seconds(started));

            boolean freshOnly = args.length > 2 && args[2].equals("--fresh-only");
            if (!freshOnly) {
                try (KafkaStreamLog follower = open(cluster, prefix, work.resolve("follower"), false)) {
                    long before = heapAfterGc();
                    long opening = System.nanoTime();
                    follower.register(ORDERS);
                    System.out.printf(Locale.ROOT, "a node that follows the stream without sequencing it: caught up"
                            + " in %.1f s, heap %+.1f MB for %,d events (%.3f bytes an event)%n", seconds(opening),
                            (heapAfterGc() - before) / 1e6, keys, (double) (heapAfterGc() - before) / keys);
                }
            }

            long heapBefore = heapAfterGc();
            KafkaStreamLog holder = open(cluster, prefix, work.resolve("a"), true);
            long opened = System.nanoTime();
            holder.register(ORDERS);
            AppendResult first = appendUntilServed(holder, "fresh-" + System.nanoTime());
            System.out.printf(Locale.ROOT, "a node that never held the stream (its index built from every key"
                    + " block): first publish answered %.2f s after opening (%s); its takeover line above%n",
                    seconds(opened), first.getClass().getSimpleName());
            if (freshOnly) {
                freshFromThePublishedIndex(cluster, prefix, work, keys, holder);
                return;
            }
            waitForSeals();
            heap("  its sequencer", holder, heapAfterGc() - heapBefore, keys);
            buildFromKeyBlocks(cluster, prefix, work.resolve("rebuild"), keys);

            long standbyBefore = heapAfterGc();
            try (KafkaStreamLog standby = open(cluster, prefix, work.resolve("b"), true)) {
                long following = System.nanoTime();
                standby.register(ORDERS);
                long due = keys + 1 - DedupIndex.Settings.DEFAULTS.recentKeys();
                Eventually.until("the standby sealed its segments through " + due + " and became a candidate",
                        Duration.ofMinutes(10), () -> standby.standbySealedThrough(STREAM) >= due
                                && standby.candidacyWaiting().isEmpty());
                System.out.printf(Locale.ROOT, "a second node that may sequence the stream: caught up, sealed its"
                        + " standby segments through offset %,d and became a candidate for the stream in %.1f s;"
                        + " heap %+.1f MB (%.3f bytes a key)%n",
                        standby.standbySealedThrough(STREAM), seconds(following),
                        (heapAfterGc() - standbyBefore) / 1e6, (double) (heapAfterGc() - standbyBefore) / keys);
                long closing = System.nanoTime();
                holder.close(); // leaves the sequencer group at once: no session timeout to wait out
                AppendResult taken = appendUntilServed(standby, "taken-" + System.nanoTime());
                System.out.printf(Locale.ROOT, "takeover by that node: first publish answered %.2f s after the"
                        + " holder began to close (%s)%n", seconds(closing), taken.getClass().getSimpleName());
                waitForSeals();
                heap("  its sequencer", standby, heapAfterGc() - standbyBefore, keys);
                latencies(standby, keys, cluster.bootstrap(), () -> awaitPublished(cluster, prefix, work, keys));
                freshFromThePublishedIndex(cluster, prefix, work, keys, standby);
            } finally {
                holder.close();
            }
        }
    }

    /**
     * The whole index built from the key blocks into an empty directory, as a node that never followed the stream
     * builds it when its takeover comes before its standby run has sealed anything (the worst case).
     */
    private static void buildFromKeyBlocks(KafkaCluster cluster, String prefix, Path directory, long keys)
            throws Exception {
        KafkaLogSettings settings = new KafkaLogSettings(cluster.bootstrap(), prefix, 1, 1, "http://rebuild",
                Duration.ofSeconds(6), Duration.ofSeconds(30), false, directory);
        var background = DedupIndex.backgroundThreads();
        try (org.apache.kafka.clients.admin.Admin admin = Topics.connect(settings, "rebuild-admin");
                Readers readers = new Readers(cluster.bootstrap(), "rebuild-reader")) {
            StreamView view = new StreamView(STREAM, 0);
            KeyBlockTopic blocks = new KeyBlockTopic(view, new Topics(admin, prefix, 1, 1), readers);
            long started = System.nanoTime();
            try (DedupIndex index = DedupIndex.open(directory, blocks, 0, keys, () -> Long.MIN_VALUE,
                    DedupIndex.Settings.DEFAULTS, background, dev.interlace.runtime.dedup.SegmentListener.NONE)) {
                System.out.printf(Locale.ROOT, "the whole index built from the key blocks into an empty directory"
                        + " (a takeover before any standby run): %.2f s, %,d keys in %d segments%n",
                        seconds(started), index.keys(), index.segmentCount());
            }
        } finally {
            background.shutdown();
        }
    }

    /**
     * The only candidate left never followed the stream: once the holder's segments are published ({@link IndexTopic}),
     * the holder leaves and a node with an empty directory opens the log, catches up with the events (restoring the
     * published segments meanwhile) and takes the stream over; then retries of old keys, the first of which fetch
     * their run parts.
     */
    private static void freshFromThePublishedIndex(KafkaCluster cluster, String prefix, Path work, long keys,
            KafkaStreamLog holder) throws Exception {
        long waiting = System.nanoTime();
        IndexTopic.Seal seal = awaitPublished(cluster, prefix, work, keys);
        long fileBytes = seal.copies().values().stream().mapToLong(IndexTopic.Copy::fileBytes).sum();
        long headBytes = seal.copies().values().stream().mapToLong(IndexTopic.Copy::runOffset).sum();
        System.out.printf(Locale.ROOT, "the holder's published segments reach offset %,d (%.1f s after its"
                + " latencies): %d copies, %.1f MB, of which %.1f MB before the runs (%.2f bytes a key)%n",
                seal.sealedThrough(), seconds(waiting), seal.copies().size(), fileBytes / 1e6, headBytes / 1e6,
                (double) headBytes / seal.sealedThrough());
        holder.close(); // the only candidate left is the fresh node below
        long opening = System.nanoTime();
        try (KafkaStreamLog fresh = open(cluster, prefix, work.resolve("c"), true)) {
            fresh.register(ORDERS);
            double caughtUp = seconds(opening);
            AppendResult first = appendUntilServed(fresh, "fresh-from-index-" + System.nanoTime());
            System.out.printf(Locale.ROOT, "the only candidate, never followed the stream, from the published index:"
                    + " caught up with the events %.2f s, first publish answered %.2f s after opening (%s)%n",
                    caughtUp, seconds(opening), first.getClass().getSimpleName());
            SplittableRandom random = new SplittableRandom(11);
            long toFetch = fresh.dedupStats(STREAM).orElseThrow().runBytesToFetch();
            long[] retried = retries(fresh, keys, random);
            System.out.printf(Locale.ROOT, "  its first %d retries of old keys (each deduplicated to its offset;"
                    + " %.1f MB of runs to fetch when they began): %s; the first %.2f ms%n", retried.length,
                    toFetch / 1e6, percentiles(retried), retried[0] / 1e6);
            Eventually.until("the restored runs are copied to the disk", Duration.ofMinutes(10),
                    () -> fresh.dedupStats(STREAM).orElseThrow().runBytesToFetch() == 0);
            var stats = fresh.dedupStats(STREAM).orElseThrow();
            System.out.printf(Locale.ROOT, "  every restored run on its disk %.2f s after opening (%.1f MB of segment"
                    + " files, %.2f bytes a key)%n", seconds(opening), stats.fileBytes() / 1e6,
                    (double) stats.fileBytes() / keys);
            System.out.printf(Locale.ROOT, "  then %d retries of old keys: %s%n", retried.length,
                    percentiles(retries(fresh, keys, random)));
            long[] reads = fresh.tailerReads();
            System.out.printf(Locale.ROOT, "  its tailer read %,d records of the log's topics (the stream holds %,d);"
                    + " its position searches made %,d single-record fetches%n", reads[0], keys, reads[1]);
        }
        // The same takeover without a published index (a tombstone as its seal): built from every key block.
        try (KafkaProducer<byte[], byte[]> producer = bareProducer(cluster.bootstrap())) {
            producer.send(new ProducerRecord<>(prefix + STREAM + "__index", 0, Codec.text("seal"), null))
                    .get(30, TimeUnit.SECONDS);
        }
        long without = System.nanoTime();
        try (KafkaStreamLog fresh = open(cluster, prefix, work.resolve("d"), true)) {
            fresh.register(ORDERS);
            double caughtUp = seconds(without);
            AppendResult first = appendUntilServed(fresh, "fresh-without-index-" + System.nanoTime());
            System.out.printf(Locale.ROOT, "the same without the published index (its seal a tombstone): caught up with"
                    + " the events %.2f s, first publish answered %.2f s after opening (%s)%n", caughtUp,
                    seconds(without), first.getClass().getSimpleName());
        }
    }

    /**
     * The seal of the segments the stream's holder published ({@link IndexTopic}) once they reach the window of
     * {@code keys} keys but its newest keys (which stay in memory), waiting for it.
     */
    private static IndexTopic.Seal awaitPublished(KafkaCluster cluster, String prefix, Path work, long keys)
            throws Exception {
        KafkaLogSettings settings = new KafkaLogSettings(cluster.bootstrap(), prefix, 1, 1, "http://seal-reader",
                Duration.ofSeconds(6), Duration.ofSeconds(30), false, work.resolve("seal-reader"));
        long due = keys - 2L * DedupIndex.Settings.DEFAULTS.recentKeys();
        try (org.apache.kafka.clients.admin.Admin admin = Topics.connect(settings, "seal-reader-admin");
                Readers readers = new Readers(cluster.bootstrap(), "seal-reader");
                IndexTopics published = new IndexTopics(cluster.bootstrap(), "seal-reader", new Topics(admin, prefix,
                        1, 1), readers)) {
            IndexTopic index = published.of(STREAM);
            Eventually.until("the holder published its segments through offset " + due, Duration.ofMinutes(20),
                    () -> {
                        IndexTopic.Seal seal = index.latestSeal();
                        return seal != null && seal.sealedThrough() >= due;
                    });
            return index.latestSeal();
        }
    }

    /** 400 retries of random old keys one at a time, each checked deduplicated to its offset: their latencies. */
    private static long[] retries(KafkaStreamLog log, long keys, SplittableRandom random) throws Exception {
        long[] retried = new long[400];
        for (int i = 0; i < retried.length; i++) {
            long key = 1 + random.nextLong(keys);
            long t = System.nanoTime();
            AppendResult result = log.append(request(key(key))).get(30, TimeUnit.SECONDS);
            retried[i] = System.nanoTime() - t;
            check(result, AppendResult.Status.DUPLICATE);
            if (((AppendResult.Committed) result).entries().get(0).offset() != key) {
                throw new IllegalStateException("key " + key + " deduplicated to another offset");
            }
        }
        return retried;
    }

    private static String percentiles(long[] latencies) {
        long[] sorted = latencies.clone();
        Arrays.sort(sorted);
        return String.format(Locale.ROOT, "p50 %.2f ms, p99 %.2f ms, max %.2f ms", sorted[sorted.length / 2] / 1e6,
                sorted[sorted.length * 99 / 100] / 1e6, sorted[sorted.length - 1] / 1e6);
    }

    private static void heap(String label, KafkaStreamLog log, long heap, long keys) {
        var stats = log.dedupStats(STREAM).orElseThrow();
        System.out.printf(Locale.ROOT, "%s: heap %+.1f MB for %,d keys (%.3f bytes a key); index: %,d keys, %d"
                + " segments, %.1f MB heap, %.1f MB mapped%n", label, heap / 1e6, keys, (double) heap / keys,
                stats.keys(), stats.segments(), stats.heapBytes() / 1e6, stats.mappedBytes() / 1e6);
    }

    /**
     * New keys one at a time, then retries of random old keys one at a time, alternating rounds: a first round right
     * after the takeover (the new holder's code for them not compiled yet, its segments being published), reported
     * apart; then, once {@code settled} returns (the takeover's publication done) and rounds have run for
     * {@link #WARM_UP} (the JIT compiling the new holder's paths took most of a core until then), the steady state.
     */
    private static void latencies(KafkaStreamLog log, long keys, String bootstrap,
            java.util.concurrent.Callable<?> settled) throws Exception {
        SplittableRandom random = new SplittableRandom(7);
        int rounds = 4;
        int each = 500;
        long[] warmFresh = new long[each];
        long[] warmRetried = new long[each];
        long started = System.nanoTime();
        long compiling = ManagementFactory.getCompilationMXBean().getTotalCompilationTime();
        roundOf(log, keys, random, 0, each, warmFresh, warmRetried);
        System.out.printf(Locale.ROOT, "  the first round after the takeover (%.1f s, the JIT compiling for %d ms):"
                + " %d new keys %s; %d retries of old keys %s%n", seconds(started),
                ManagementFactory.getCompilationMXBean().getTotalCompilationTime() - compiling, each,
                percentiles(warmFresh), each, percentiles(warmRetried));
        settled.call();
        System.out.printf(Locale.ROOT, "  its segments published %.1f s after the takeover%n", seconds(started));
        while (System.nanoTime() - started < WARM_UP.toNanos()) {
            roundOf(log, keys, random, 0, each, warmFresh, warmRetried);
        }
        long compiledBefore = ManagementFactory.getCompilationMXBean().getTotalCompilationTime();
        long[] fresh = new long[rounds * each];
        long[] retried = new long[rounds * each];
        long[] bare = new long[rounds * each];
        try (KafkaProducer<byte[], byte[]> producer = bareProducer(bootstrap)) {
            for (int round = 0; round < rounds; round++) {
                for (int i = 0; i < each; i++) {
                    long t = System.nanoTime();
                    producer.send(new ProducerRecord<>(BARE_TOPIC, 0, Codec.text("bare-" + i), new byte[200])).get();
                    bare[round * each + i] = System.nanoTime() - t;
                }
                roundOf(log, keys, random, round, each, fresh, retried);
            }
        }
        Arrays.sort(bare);
        System.out.printf(Locale.ROOT, "  a bare produce (acks=all, idempotent, linger 0, one at a time): p50 %.2f ms,"
                + " p99 %.2f ms%n", bare[bare.length / 2] / 1e6, bare[bare.length * 99 / 100] / 1e6);
        report(fresh, retried);
        System.out.printf(Locale.ROOT, "  (after %.0f s of such rounds; the JIT compiled for %d ms during the steady"
                + " ones)%n", (double) WARM_UP.toSeconds(),
                ManagementFactory.getCompilationMXBean().getTotalCompilationTime() - compiledBefore);
    }

    /**
     * A producer with the settings of the log's plain producer, and the topic it writes to, for the floor under a
     * retry's answer: one produce round trip.
     */
    private static KafkaProducer<byte[], byte[]> bareProducer(String bootstrap) throws Exception {
        try (org.apache.kafka.clients.admin.Admin admin = org.apache.kafka.clients.admin.Admin.create(
                java.util.Map.of("bootstrap.servers", bootstrap))) {
            admin.createTopics(List.of(new org.apache.kafka.clients.admin.NewTopic(BARE_TOPIC, 1, (short) 1)))
                    .all().get(30, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            if (!(e.getCause() instanceof org.apache.kafka.common.errors.TopicExistsException)) {
                throw e; // made by an earlier measurement of this run otherwise
            }
        }
        Properties properties = new Properties();
        properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        properties.put(ProducerConfig.ACKS_CONFIG, "all");
        properties.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        properties.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        return new KafkaProducer<>(properties, new ByteArraySerializer(), new ByteArraySerializer());
    }

    private static void roundOf(KafkaStreamLog log, long keys, SplittableRandom random, int round, int each,
            long[] fresh, long[] retried) throws Exception {
        for (int i = 0; i < each; i++) {
            long t = System.nanoTime();
            AppendResult result = log.append(request("new-" + round + "-" + i + "-" + System.nanoTime()))
                    .get(30, TimeUnit.SECONDS);
            fresh[round * each + i] = System.nanoTime() - t;
            check(result, AppendResult.Status.ACCEPTED);
        }
        for (int i = 0; i < each; i++) {
            long key = 1 + random.nextLong(keys);
            long t = System.nanoTime();
            AppendResult result = log.append(request(key(key))).get(30, TimeUnit.SECONDS);
            retried[round * each + i] = System.nanoTime() - t;
            check(result, AppendResult.Status.DUPLICATE);
            long offset = ((AppendResult.Committed) result).entries().get(0).offset();
            if (offset != key) {
                throw new IllegalStateException("key " + key + " deduplicated to offset " + offset);
            }
        }
    }

    private static void report(long[] fresh, long[] retried) {
        Arrays.sort(fresh);
        Arrays.sort(retried);
        System.out.printf(Locale.ROOT, "  then, steady: publish of a new key: p50 %.2f ms, p99 %.2f ms; retry of a key"
                + " stored long ago (deduplicated to its original offset): p50 %.2f ms, p99 %.2f ms; p99 ratio %.2f%n",
                fresh[fresh.length / 2] / 1e6, fresh[fresh.length * 99 / 100] / 1e6, retried[retried.length / 2] / 1e6,
                retried[retried.length * 99 / 100] / 1e6,
                (double) retried[retried.length * 99 / 100] / fresh[fresh.length * 99 / 100]);
    }

    private static void check(AppendResult result, AppendResult.Status expected) {
        if (!(result instanceof AppendResult.Committed committed)
                || committed.entries().get(0).status() != expected) {
            throw new IllegalStateException("expected " + expected + ", got " + result);
        }
    }

    private static AppendResult appendUntilServed(KafkaStreamLog log, String key) throws Exception {
        return Eventually.retrying("an append of " + key + " is served", Duration.ofMinutes(10),
                ExecutionException.class, () -> log.append(request(key)).get(60, TimeUnit.SECONDS));
    }

    private static void waitForSeals() throws InterruptedException {
        // The seals and merges the takeover started run on background threads; the heap is measured after them.
        Thread.sleep(2_000);
    }

    private static KafkaStreamLog open(KafkaCluster cluster, String prefix, Path directory, boolean sequences) {
        return new KafkaStreamLog(new KafkaLogSettings(cluster.bootstrap(), prefix, 1, 1, "http://" + directory
                .getFileName(), Duration.ofSeconds(6), Duration.ofSeconds(30), sequences, directory),
                LogSettings.defaults(Long.MAX_VALUE / 8), EVERYTHING_FLUSHED, Clock.systemUTC());
    }

    private static AppendRequest request(String key) {
        return new AppendRequest(STREAM, "req-" + key, now(), "v1", List.of(new AppendRequest.Event(
                ("{\"id\":\"" + key + "\"}").getBytes(StandardCharsets.UTF_8), key)));
    }

    private static String key(long offset) {
        return "order-" + offset;
    }

    /**
     * Writes events 1..keys (key {@code order-<offset>}) and their key blocks with the stream's transactional id, as
     * the sequencer does, {@value #EVENTS_PER_TRANSACTION} events a transaction, in the batches its producer makes
     * (Kafka's default batch size, uncompressed): a point read of an old event fetches the batch that holds it, so
     * larger or compressed batches than the sequencer writes would make a retry's read dearer than it is.
     */
    private static void bulkWrite(String bootstrap, String prefix, long keys) {
        Topics names = new Topics(null, prefix, 1, 1);
        Properties properties = new Properties();
        properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        properties.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, names.transactionalId(STREAM));
        properties.put(ProducerConfig.ACKS_CONFIG, "all");
        properties.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        long at = now() - TimeUnit.DAYS.toMicros(6);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(properties, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            producer.initTransactions();
            KeyBlockTopic blocks = new KeyBlockTopic(new StreamView(STREAM, 0), names, null);
            long[] pairs = new long[2 * EVENTS_PER_TRANSACTION];
            for (long first = 1; first <= keys; first += EVENTS_PER_TRANSACTION) {
                long last = Math.min(keys, first + EVENTS_PER_TRANSACTION - 1);
                producer.beginTransaction();
                int n = 0;
                for (long offset = first; offset <= last; offset++) {
                    String key = key(offset);
                    producer.send(new ProducerRecord<>(names.events(STREAM).topic(), 0, null, Codec.text(key),
                            ("{\"id\":\"" + key + "\"}").getBytes(StandardCharsets.UTF_8),
                            Codec.eventHeaders(offset, offset, "bulk-" + offset, at, "v1")));
                    pairs[2 * n] = offset;
                    pairs[2 * n + 1] = KeyHash.of(key);
                    n++;
                }
                producer.send(blocks.record(pairs, n, at, first - 1));
                producer.commitTransaction();
            }
        }
    }

    private static long heapAfterGc() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(100);
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    private static long now() {
        return System.currentTimeMillis() * 1_000;
    }

    private static double seconds(long startedNanos) {
        return (System.nanoTime() - startedNanos) / 1e9;
    }
}
