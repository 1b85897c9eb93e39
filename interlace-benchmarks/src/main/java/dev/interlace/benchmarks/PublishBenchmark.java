package dev.interlace.benchmarks;

import dev.interlace.benchmarks.BatchedBench.Batched;
import dev.interlace.benchmarks.DrainBench.Drain;
import dev.interlace.benchmarks.FeatureCostBench.FeatureCost;
import dev.interlace.benchmarks.LatencyBench.Latency;
import dev.interlace.benchmarks.ModelLatencyBench.ModelLatency;
import dev.interlace.runtime.Interlace;
import dev.interlace.runtime.flush.FlushListener;
import dev.interlace.runtime.log.LogSettings;
import dev.interlace.runtime.ops.Metrics;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The publish benchmark of the "200 OK means fsynced" issue: an in-process Interlace server on a fresh data
 * directory, driven over loopback by closed-loop, keep-alive {@link HttpClient} clients in the same JVM (so the load
 * generator shares the machine's cores with the server, as the targets require).
 *
 * <ul>
 *   <li>(a) single-event publishes at 1, 16 and 64 clients, {@code --seconds} each, each on a fresh data dir;</li>
 *   <li>(b) batches of 100 and 1 000 events with random UUIDv4 keys until the dedup window holds {@code --keys}
 *       keys: throughput against keys-in-window, heap and disk bytes per key, start-up time, WAL size;</li>
 *   <li>(c) (a) again with group commit off (one request per transaction) as the baseline;</li>
 *   <li>(d) publish to queryable latency: an open-loop publisher at {@code --rate} and a poller of
 *       {@code SELECT max(_offset)} over {@code POST /sql};</li>
 *   <li>(e) flush throughput for a backlog built while a {@link FlushListener} makes every flush roll back;</li>
 *   <li>(f) (b) with the flusher on and the default {@code --max-pending}, clients honouring 429 + Retry-After;</li>
 *   <li>(g) publish to dependent-model-updated latency: clicks at {@code --rate} and orders at
 *       {@code --orders-percent} of it, open loop, a poller of the example models over {@code POST /sql}, and the
 *       model runs (count, coalesced triggers, durations) from {@code GET /runs}.</li>
 *   <li>(h) what metrics cost on the publish path: (a)'s single-event load at {@code --metrics-clients} against a
 *       server with the real {@code Metrics} and against one whose {@link MeterRegistry} records nothing (bound
 *       through {@code Builder.override}, benchmark code only), {@code --metrics-rounds} interleaved pairs of
 *       {@code --seconds} each, then as many rounds with both servers running side by side (half the clients
 *       each); plus the cost of the meter operations of one publish, and of one scrape.</li>
 *   <li>(i) what operational records cost on the publish path: (h)'s design, the server as shipped against one
 *       without records (no publish record in the group commit, system records discarded: what
 *       {@code --record-retention 0} does, bound through {@code Builder.override}).</li>
 *   <li>(j) the HTTP transports: the shipped Netty one, {@link JettyTransport} and {@link JdkTransport} (the old
 *       256-thread JDK server), bound through {@code Builder.override}, in alternating order: publishes and
 *       {@code GET /health/live} at {@code --transport-clients}, then a normal client's latency under slowloris
 *       connections and parked long polls ({@link HostileClients}); then, as in (h), the first transport and each
 *       other one side by side, half the clients each. Needs Jetty on the class path, which
 *       {@code interlace-benchmarks.jar} brings (shaded in it, never in {@code interlace-examples.jar}).</li>
 * </ul>
 *
 * <p>Run: {@code java -cp examples/target/interlace-examples.jar:interlace-benchmarks/target/interlace-benchmarks.jar
 * dev.interlace.benchmarks.PublishBenchmark} ({@code --help} lists the options); the scenarios are in {@code *Bench}
 * classes beside this one, which share {@link Bench}. Never run by CI. The flusher runs in every scenario; (b) keeps the pre-flusher
 * {@code --max-pending 100000000}, everything else uses the default.
 */
public final class PublishBenchmark extends Bench {
    final Map<Integer, Fixed> groupCommit = new LinkedHashMap<>();
    final Map<Integer, Fixed> baseline = new LinkedHashMap<>();
    final Map<Integer, Batched> batched = new LinkedHashMap<>();
    final Map<Integer, Batched> flushed = new LinkedHashMap<>();
    Latency latency;
    ModelLatency modelLatency;
    final List<Drain> drains = new ArrayList<>();
    final List<FeatureCost> featureCosts = new ArrayList<>();

    PublishBenchmark(PublishOptions options, Path root) {
        super(options, root);
    }

    public static void main(String[] args) throws Exception {
        PublishOptions options;
        try {
            options = PublishOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.err.println(PublishOptions.USAGE);
            System.exit(2);
            return;
        }
        if (options.help) {
            System.out.println(PublishOptions.USAGE);
            return;
        }
        // The runtime logs at INFO on every start; keep the benchmark's output readable.
        java.util.logging.Logger.getLogger("").setLevel(java.util.logging.Level.WARNING);
        Path root = options.dataRoot != null ? Files.createDirectories(options.dataRoot)
                : Files.createTempDirectory("interlace-bench-");
        new PublishBenchmark(options, root).run();
    }

    void run() throws Exception {
        printMachine();
        warmUp();
        for (String scenario : options.scenarios.split(",")) {
            switch (scenario.strip()) {
                case "a" -> {
                    section("(a) single-event publishes, group commit on (default LogSettings)");
                    for (int clients : options.clients) {
                        groupCommit.put(clients, runFixed("a", true, clients));
                    }
                    printFixed(groupCommit);
                }
                case "c" -> {
                    section("(c) baseline: single-event publishes, group commit off (maxGroupRequests = 1)");
                    for (int clients : options.clients) {
                        baseline.put(clients, runFixed("c", false, clients));
                    }
                    printFixed(baseline);
                }
                case "b" -> {
                    for (int batch : options.batches) {
                        section("(b) batches of " + batch + " events, random UUIDv4 keys, until " + options.keys
                                + " keys are in the dedup window (" + options.batchClients + " clients, --max-pending "
                                + NO_BACKPRESSURE + ")");
                        batched.put(batch, new BatchedBench(options, root).runBatched(batch, NO_BACKPRESSURE));
                    }
                }
                case "f" -> {
                    for (int batch : options.batches) {
                        section("(f) = (b) with the flusher on and the default --max-pending " + DEFAULT_MAX_PENDING
                                + ": batches of " + batch + ", until " + options.keys + " keys ("
                                + options.batchClients + " clients, 429 + Retry-After honoured)");
                        flushed.put(batch, new BatchedBench(options, root).runBatched(batch, DEFAULT_MAX_PENDING));
                    }
                }
                case "d" -> {
                    section("(d) publish -> queryable latency: open loop, " + options.rate + " events/s in batches of "
                            + options.latencyBatch + " for " + options.latencySeconds + " s; poller every "
                            + options.pollMillis + " ms; --flush-delay-ms " + options.flushDelayMillis
                            + " --flush-batch-rows " + options.flushBatchRows);
                    latency = new LatencyBench(options, root).runLatency();
                }
                case "g" -> {
                    section("(g) publish -> dependent model updated: open loop, clicks " + options.rate
                            + " events/s and orders " + options.ordersPercent + " % of that, in batches of "
                            + options.latencyBatch + " for " + options.latencySeconds + " s; poller every "
                            + options.pollMillis + " ms; --flush-delay-ms " + options.flushDelayMillis
                            + " --flush-batch-rows " + options.flushBatchRows);
                    modelLatency = new ModelLatencyBench(options, root).runModelLatency();
                }
                case "e" -> {
                    section("(e) flush throughput for a backlog of " + options.backlog + " events");
                    drains.addAll(new DrainBench(options, root).runDrain());
                }
                case "h" -> {
                    for (int clients : options.metricsClients) {
                        section("(h) metrics on the publish path: single-event publishes, " + clients + " client(s), "
                                + options.metricsRounds + " interleaved pairs of " + options.seconds + " s runs, real"
                                + " Metrics vs a MeterRegistry that records nothing, each run on a fresh dir");
                        featureCosts.add(new FeatureCostBench(options, root).runFeatureCost(clients, FeatureCostBench.Feature.METRICS));
                    }
                }
                case "i" -> {
                    for (int clients : options.metricsClients) {
                        section("(i) records on the publish path: single-event publishes, " + clients + " client(s), "
                                + options.metricsRounds + " interleaved pairs of " + options.seconds + " s runs, with"
                                + " publish and system records vs without (as --record-retention 0), each run on a"
                                + " fresh dir");
                        featureCosts.add(new FeatureCostBench(options, root).runFeatureCost(clients, FeatureCostBench.Feature.RECORDS));
                    }
                }
                case "j" -> {
                    section("(j) HTTP transports (" + options.transports + "): single-event publishes and GET"
                            + " /health/live at " + options.transportClients + " clients, " + options.seconds
                            + " s each, then " + options.hostileSeconds + " s under " + options.slowloris
                            + " slowloris connections + " + options.longPolls + " parked long polls; "
                            + options.transportRounds + " rounds, order alternating, each on a fresh dir");
                    new TransportBench(options, root).runTransports();
                }
                default -> throw new IllegalArgumentException("unknown scenario " + scenario);
            }
        }
        printSummary();
        // Each scenario deletes its own directory; the root goes only when the benchmark created it.
        if (!options.keep && options.dataRoot == null) {
            deleteTree(root);
        }
    }

    // ------------------------------------------------------------------------------------------ machine and warm-up

    void printMachine() throws IOException {
        section("machine");
        String cpu = "unknown";
        Path cpuinfo = Path.of("/proc/cpuinfo");
        if (Files.isReadable(cpuinfo)) {
            try (Stream<String> lines = Files.lines(cpuinfo)) {
                cpu = lines.filter(line -> line.startsWith("model name")).map(line -> line.replaceFirst(".*:\\s*", ""))
                        .findFirst().orElse("unknown");
            }
        }
        String gcs = ManagementFactory.getGarbageCollectorMXBeans().stream().map(GarbageCollectorMXBean::getName)
                .collect(Collectors.joining(", "));
        System.out.printf("cores (availableProcessors)  %d%n", Runtime.getRuntime().availableProcessors());
        System.out.printf("cpu                          %s%n", cpu);
        System.out.printf("java                         %s (%s %s)%n", System.getProperty("java.version"),
                System.getProperty("java.vm.name"), System.getProperty("java.vm.version"));
        System.out.printf("os                           %s %s %s%n", System.getProperty("os.name"),
                System.getProperty("os.version"), System.getProperty("os.arch"));
        System.out.printf("max heap                     %d MiB; GC: %s%n",
                Runtime.getRuntime().maxMemory() >> 20, gcs);
        System.out.printf("data root                    %s%n", root);
        System.out.printf("load generator               %s, one keep-alive connection per client thread, closed loop,"
                + " in this JVM%n", options.rawClient ? "raw socket HTTP/1.1 client" : "java.net.http.HttpClient (HTTP/1.1)");
        System.out.printf("options                      %s%n", options);
        System.out.println(FsyncProbe.measure(root, 2_000));
    }

    /** JIT warm-up on a throwaway data dir, so each measured scenario starts on a fresh dir with compiled code. */
    void warmUp() throws Exception {
        if (options.warmupSeconds <= 0) {
            return;
        }
        section("warm-up (" + options.warmupSeconds + " s, not measured)");
        Path dir = fresh("warmup");
        try (Interlace server = start(dir, true, null)) {
            System.out.println("HTTP executor: " + server.httpExecutor());
            long half = options.warmupSeconds * 1_000_000_000L / 2;
            drive(server, 16, 1, System.nanoTime() + half, Long.MAX_VALUE, null, 1);
            drive(server, 4, 100, System.nanoTime() + half, Long.MAX_VALUE, null, 1);
        }
        deleteTree(dir);
    }

    // ------------------------------------------------------------------------------------------ (a) and (c)

    Fixed runFixed(String scenario, boolean group, int clients) throws Exception {
        Path dir = fresh(scenario + "-" + clients);
        CommitStats commits = new CommitStats();
        Fixed result;
        try (Interlace server = start(dir, group, commits)) {
            LogSettings settings = server.instance(LogSettings.class);
            System.out.printf("(%s) %d client(s), %d s, fresh dir; HTTP executor: %s; LogSettings.maxGroupRequests"
                    + " = %d%n", scenario, clients, options.seconds, server.httpExecutor(),
                    settings.maxGroupRequests());
            if (!group && settings.maxGroupRequests() != 1) {
                throw new IllegalStateException("the baseline override did not take effect: " + settings);
            }
            long deadline = System.nanoTime() + options.seconds * 1_000_000_000L;
            Run run = drive(server, clients, 1, deadline, Long.MAX_VALUE, null, 1);
            result = new Fixed(clients, run, commits.snapshot());
        }
        deleteTree(dir);
        System.out.printf("    -> %,.0f events/s, p50 %s ms, p99 %s ms, p99.9 %s ms, errors %d, 429s %d; commits %,d"
                + " (%.1f requests/commit, commit p50 %s ms)%n", result.run.eventsPerSecond(),
                ms(result.run.latency().percentile(50)), ms(result.run.latency().percentile(99)),
                ms(result.run.latency().percentile(99.9)), result.run.errors(), result.run.throttled(), result.commits.count(),
                result.commits.requestsPerCommit(), ms(result.commits.durations().percentile(50)));
        return result;
    }

    void printFixed(Map<Integer, Fixed> results) {
        System.out.println();
        System.out.println("| clients | requests | events/s | ack p50 ms | ack p99 ms | ack p99.9 ms | max ms | errors"
                + " | commits/s | requests/commit | commit p50 ms | commit p99 ms | bench CPU cores | other CPU cores |");
        System.out.println("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        for (Fixed fixed : results.values()) {
            Run run = fixed.run;
            System.out.printf("| %d | %,d | %,.0f | %s | %s | %s | %s | %d | %,.0f | %.1f | %s | %s | %.2f | %.2f |%n",
                    fixed.clients, run.requests(), run.eventsPerSecond(), ms(run.latency().percentile(50)),
                    ms(run.latency().percentile(99)), ms(run.latency().percentile(99.9)), ms(run.latency().max()),
                    run.errors(), fixed.commits.count() / run.seconds(), fixed.commits.requestsPerCommit(),
                    ms(fixed.commits.durations().percentile(50)), ms(fixed.commits.durations().percentile(99)),
                    run.benchCores(), run.otherCores());
        }
        System.out.println();
    }

    // ------------------------------------------------------------------------------------------ summary

    void printSummary() {
        section("summary");
        if (!groupCommit.isEmpty() && !baseline.isEmpty()) {
            System.out.println("| clients | group commit events/s | baseline events/s | ratio | group p99 ms |"
                    + " baseline p99 ms |");
            System.out.println("|---:|---:|---:|---:|---:|---:|");
            for (int clients : options.clients) {
                Fixed on = groupCommit.get(clients);
                Fixed off = baseline.get(clients);
                if (on == null || off == null) {
                    continue;
                }
                System.out.printf("| %d | %,.0f | %,.0f | %.2fx | %s | %s |%n", clients, on.run.eventsPerSecond(),
                        off.run.eventsPerSecond(), on.run.eventsPerSecond() / off.run.eventsPerSecond(),
                        ms(on.run.latency().percentile(99)), ms(off.run.latency().percentile(99)));
            }
            System.out.println();
        }
        System.out.println("| target | measured | met |");
        System.out.println("|---|---|---|");
        Fixed on64 = groupCommit.get(64);
        Fixed off64 = baseline.get(64);
        if (on64 != null && off64 != null) {
            double ratio = on64.run.eventsPerSecond() / off64.run.eventsPerSecond();
            target("(a) 64 clients >= 5x baseline (c) 64 clients", String.format("%.2fx (%,.0f vs %,.0f events/s)",
                    ratio, on64.run.eventsPerSecond(), off64.run.eventsPerSecond()), ratio >= 5);
        }
        if (on64 != null) {
            double p99 = on64.run.latency().percentile(99) / 1e6;
            target("(a) 64 clients ack p99 <= 25 ms", String.format("%.2f ms", p99), p99 <= 25);
        }
        Fixed on1 = groupCommit.get(1);
        if (on1 != null) {
            double p99 = on1.run.latency().percentile(99) / 1e6;
            target("(a) 1 client ack p99 <= 3 ms", String.format("%.2f ms", p99), p99 <= 3);
        }
        if (latency != null) {
            double p95 = latency.queryable.percentile(95) / 1e6;
            double rate = latency.events / latency.publishSeconds;
            target("(d) publish -> queryable p95 <= 250 ms at 5 000 events/s sustained",
                    String.format("p95 %.2f ms (p50 %.2f, p99 %.2f) at %,.0f events/s", p95,
                            latency.queryable.percentile(50) / 1e6, latency.queryable.percentile(99) / 1e6, rate),
                    p95 <= 250 && rate >= 4950 && latency.neverSeen == 0);
            target("(d) seed design goal: publish -> queryable p95 < 1 s", String.format("%.2f ms", p95), p95 < 1000);
        }
        if (modelLatency != null) {
            ModelLatency g = modelLatency;
            double p95 = g.clickModel.fromSend.percentile(95) / 1e6;
            double rate = g.clicks.events() / g.publishSeconds;
            target("(g) publish -> dependent model updated p95 <= 1 s at 5 000 events/s (clicks -> clicks_enriched)",
                    String.format("p95 %.2f ms (p50 %.2f, p99 %.2f) at %,.0f clicks/s + %,.0f orders/s", p95,
                            g.clickModel.fromSend.percentile(50) / 1e6, g.clickModel.fromSend.percentile(99) / 1e6,
                            rate, g.orders.events() / g.publishSeconds),
                    p95 <= 1000 && rate >= 4950 && g.clickModel.neverSeen == 0);
            if (g.orderModel.fromSend.size() > 0) {
                double orderP95 = g.orderModel.fromSend.percentile(95) / 1e6;
                target("(g) same for orders -> revenue_summary (view over the table model revenue_per_day)",
                        String.format("p95 %.2f ms (p50 %.2f, p99 %.2f)", orderP95,
                                g.orderModel.fromSend.percentile(50) / 1e6, g.orderModel.fromSend.percentile(99) / 1e6),
                        orderP95 <= 1000 && g.orderModel.neverSeen == 0);
            }
        }
        for (FeatureCost m : featureCosts) {
            String label = "(" + m.feature.scenario + ") " + m.clients + " clients";
            target(label + ", interleaved runs: publish throughput with " + m.feature.with + " / without",
                    String.format("%.3fx (%,.0f vs %,.0f events/s); p99 %s vs %s ms; CPU %.1f vs %.1f us/request",
                            m.throughputRatio(), m.on.eventsPerSecond(), m.off.eventsPerSecond(),
                            ms(m.on.latency().percentile(99)), ms(m.off.latency().percentile(99)),
                            m.on.cpuMicrosPerRequest(), m.off.cpuMicrosPerRequest()), null);
            double side = m.sideBySideRatio();
            target(label + ", side by side: publish throughput with " + m.feature.with + " within 5 % of without",
                    String.format("%.3fx", side), side >= 0.95);
        }
        for (Drain d : drains) {
            target("(e) flush >= 250 000 rows/s (backlog " + d.rows() + ", --flush-batch-rows " + d.batchRows() + ")",
                    String.format("%,.0f rows/s from start(); %,.0f between first and last commit", d.rowsPerSecond(),
                            d.flushes().steadyRate()), d.rowsPerSecond() >= 250_000);
        }
        for (Batched b : flushed.values()) {
            target("(f) batch " + b.batch + ", default --max-pending: throughput",
                    String.format("%,.0f events/s overall, last interval %,.0f; %,d responses 429",
                            b.run.eventsPerSecond(), b.lastRate(), b.run.throttled()), null);
        }
        for (Batched b : flushed.values()) {
            batchTargets("(f)", b);
        }
        for (Batched b : batched.values()) {
            batchTargets("(b)", b);
        }
        System.out.println();
    }

    static void batchTargets(String scenario, Batched b) {
        {
            double upTo1m = b.minRateUpTo(1_000_000);
            target(scenario + " batch " + b.batch + ": >= 100 000 events/s up to 1 M keys",
                    String.format("min interval %,.0f events/s", upTo1m), upTo1m >= 100_000);
            if (b.keys >= 5_000_000) {
                target(scenario + " batch " + b.batch + ": >= 50 000 events/s at 5 M keys",
                        String.format("%,.0f events/s (last interval)", b.lastRate()), b.lastRate() >= 50_000);
            } else {
                target(scenario + " batch " + b.batch + ": >= 50 000 events/s at 5 M keys",
                        String.format("not reached (run stopped at %,d keys): %,.0f events/s", b.keys, b.lastRate()),
                        null);
            }
        }
    }

    static void target(String name, String measured, Boolean met) {
        System.out.printf("| %s | %s | %s |%n", name, measured, met == null ? "n/a" : met ? "yes" : "**no**");
    }

    record Fixed(int clients, Run run, CommitStats.Snapshot commits) {}
}
