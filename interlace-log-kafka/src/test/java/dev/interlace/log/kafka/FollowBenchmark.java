package dev.interlace.log.kafka;

import dev.interlace.log.kafka.testing.KafkaCluster;
import dev.interlace.runtime.dedup.DedupIndex;
import dev.interlace.runtime.log.AppendRequest;
import dev.interlace.runtime.log.AppendResult;
import dev.interlace.runtime.log.LogSettings;
import dev.interlace.runtime.stream.Column;
import dev.interlace.runtime.stream.ColumnType;
import dev.interlace.runtime.stream.StreamDescriptor;
import dev.interlace.runtime.testing.Eventually;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What reading the partitions a node does not sequence costs two ingest nodes (not a test): {@code orders} with two
 * partitions on two nodes of one JVM (a broker of its own in a child JVM), single-event appends through each
 * partition's holder, {@code IN_FLIGHT} at a time per partition; per configuration, alternating in each round,
 * the nodes' tailers reading every partition's events (as before, and as a node with a warehouse still does) against
 * reading only the partition each node sequences. Prints per configuration: appends/s, the JVM's CPU per append
 * (both nodes and the load), the tailers' and head questions' CPU per append, and the records they read per append.
 * The counts are exact; the times are CPU time, less sensitive to other load on the machine than rates. The baseline,
 * in the same round: the stream with one partition on one node, as many appends at a time as both partitions had.
 *
 * usage: {@code FollowBenchmark WORK_DIR [EVENTS_PER_PARTITION] [ROUNDS]}
 */
public final class FollowBenchmark {

    private static final int IN_FLIGHT = 32;
    private static final StreamDescriptor ORDERS = orders(2);
    private static final StreamDescriptor ONE_PARTITION = orders(1);

    private FollowBenchmark() {}

    private static StreamDescriptor orders(int partitions) {
        return StreamDescriptor.builder("orders")
                .column(Column.of("id", ColumnType.STRING, true)).idempotencyKey("id").schemaVersion("v1")
                .partitions(partitions).declaredBy(FollowBenchmark.class.getName())
                .decoder(parser -> {
                    throw new UnsupportedOperationException("a log never decodes");
                }).build();
    }

    public static void main(String[] args) throws Exception {
        Path work = Path.of(args[0]);
        int events = args.length > 1 ? Integer.parseInt(args[1]) : 5_000;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 2;
        System.out.printf("%-6s %-12s %9s %10s %12s %14s%n", "round", "tailers", "appends/s", "JVM µs/ev",
                "tailer µs/ev", "records/event");
        for (int round = 1; round <= rounds; round++) {
            boolean[] order = round % 2 == 1 ? new boolean[] {true, false} : new boolean[] {false, true};
            if (round % 2 == 1) {
                one(work.resolve("r" + round + "-one"), round, events);
            }
            for (boolean every : order) {
                run(work.resolve("r" + round + (every ? "-every" : "-own")), round, every, events);
            }
            if (round % 2 == 0) {
                one(work.resolve("r" + round + "-one"), round, events);
            }
        }
        KafkaCluster.shared().close();
    }

    private static void run(Path directory, int round, boolean every, int events) throws Exception {
        String prefix = "followbench-" + UUID.randomUUID().toString().substring(0, 8) + ".";
        KafkaStreamLog first = open(directory, prefix, "first", every);
        KafkaStreamLog second = open(directory, prefix, "second", every);
        try {
            ORDERS.logStreams().forEach(first::register);
            ORDERS.logStreams().forEach(second::register);
            List<String> partitions = ORDERS.logStreams().stream().map(StreamDescriptor::name).toList();
            Eventually.until("each node sequences one partition", Duration.ofSeconds(120), () ->
                    partitions.stream().filter(p -> own(first, p)).count() == 1
                            && partitions.stream().filter(p -> own(second, p)).count() == 1);
            String a = partitions.stream().filter(p -> own(first, p)).findFirst().orElseThrow();
            String b = partitions.stream().filter(p -> own(second, p)).findFirst().orElseThrow();
            load(first, a, second, b, events / 5, "warm-");
            long records = first.tailerReads()[0] + second.tailerReads()[0] + first.tailerReads()[2]
                    + second.tailerReads()[2];
            long tailerCpu = threadCpu();
            long jvmCpu = processCpu();
            long started = System.nanoTime();
            load(first, a, second, b, events, "");
            long elapsed = System.nanoTime() - started;
            long appended = 2L * events;
            long readNow = first.tailerReads()[0] + second.tailerReads()[0] + first.tailerReads()[2]
                    + second.tailerReads()[2];
            System.out.printf(Locale.ROOT, "%-6d %-12s %9.0f %10.1f %12.1f %14.2f%n", round,
                    every ? "every" : "own only", appended / (elapsed / 1e9), (processCpu() - jvmCpu) / 1e3 / appended,
                    (threadCpu() - tailerCpu) / 1e3 / appended, (double) (readNow - records) / appended);
        } finally {
            first.close();
            second.close();
        }
    }

    /**
     * The baseline: the stream with one partition on one node, {@code 2 * IN_FLIGHT} appends at a time (the same
     * clients as the two partitions have together), {@code 2 * events} of them.
     */
    private static void one(Path directory, int round, int events) throws Exception {
        String prefix = "followbench-" + UUID.randomUUID().toString().substring(0, 8) + ".";
        KafkaStreamLog node = open(directory, prefix, "one", false);
        try {
            StreamDescriptor only = ONE_PARTITION.logStreams().get(0);
            node.register(only);
            Eventually.until("the node sequences the stream", Duration.ofSeconds(120), () -> own(node, only.name()));
            appendAll(node, only.name(), events / 5, "warm-", 2 * IN_FLIGHT);
            long records = node.tailerReads()[0] + node.tailerReads()[2];
            long tailerCpu = threadCpu();
            long jvmCpu = processCpu();
            long started = System.nanoTime();
            appendAll(node, only.name(), 2 * events, "", 2 * IN_FLIGHT);
            long elapsed = System.nanoTime() - started;
            long appended = 2L * events;
            System.out.printf(Locale.ROOT, "%-6d %-12s %9.0f %10.1f %12.1f %14.2f%n", round, "1p 1 node",
                    appended / (elapsed / 1e9), (processCpu() - jvmCpu) / 1e3 / appended,
                    (threadCpu() - tailerCpu) / 1e3 / appended,
                    (double) (node.tailerReads()[0] + node.tailerReads()[2] - records) / appended);
        } finally {
            node.close();
        }
    }

    /** {@code events} single-event appends to each of the two partitions through its holder, at once. */
    private static void load(KafkaStreamLog first, String a, KafkaStreamLog second, String b, int events,
            String keyPrefix) throws Exception {
        CompletableFuture<Void> one = CompletableFuture.runAsync(() -> appendAll(first, a, events, keyPrefix,
                IN_FLIGHT));
        CompletableFuture<Void> two = CompletableFuture.runAsync(() -> appendAll(second, b, events, keyPrefix,
                IN_FLIGHT));
        one.get(30, TimeUnit.MINUTES);
        two.get(30, TimeUnit.MINUTES);
    }

    private static void appendAll(KafkaStreamLog node, String logStream, int events, String keyPrefix,
            int inFlight) {
        Semaphore window = new Semaphore(inFlight);
        AtomicLong failed = new AtomicLong();
        for (int i = 0; i < events; i++) {
            window.acquireUninterruptibly();
            String key = keyPrefix + logStream + "-" + i;
            List<AppendRequest.Entry> entries = new ArrayList<>(1);
            entries.add(new AppendRequest.Event(("{\"id\":\"" + key + "\"}").getBytes(StandardCharsets.UTF_8),
                    key));
            node.append(new AppendRequest(logStream, "req-" + UUID.randomUUID(), System.currentTimeMillis() * 1_000,
                    "v1", entries)).whenComplete((AppendResult result, Throwable failure) -> {
                        if (failure != null) {
                            failed.incrementAndGet();
                        }
                        window.release();
                    });
        }
        window.acquireUninterruptibly(inFlight);
        if (failed.get() > 0) {
            System.out.println("  " + failed.get() + " appends failed on " + logStream);
        }
    }

    /** CPU nanoseconds of the tailers' and head questions' threads alive now (both nodes'). */
    private static long threadCpu() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long sum = 0;
        for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (info != null && (info.getThreadName().equals("interlace-kafka-tailer")
                    || info.getThreadName().equals("interlace-kafka-heads"))) {
                sum += Math.max(0, threads.getThreadCpuTime(info.getThreadId()));
            }
        }
        return sum;
    }

    private static long processCpu() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    private static boolean own(KafkaStreamLog node, String logStream) {
        return node.holder(logStream).filter(node.nodeUrl()::equals).isPresent();
    }

    private static KafkaStreamLog open(Path directory, String prefix, String node, boolean every) {
        KafkaLogSettings settings = new KafkaLogSettings(KafkaCluster.shared().bootstrap(), prefix, 1, 1,
                "http://" + node + ".bench", Duration.ofSeconds(6), Duration.ofSeconds(20), true, every,
                directory.resolve(node));
        return new KafkaStreamLog(settings, LogSettings.defaults(100_000_000).withDedup(
                new DedupIndex.Settings(1_000_000, 4)), KeyedOrders.EVERYTHING_FLUSHED, Clock.systemUTC(),
                Duration.ofSeconds(5));
    }
}
