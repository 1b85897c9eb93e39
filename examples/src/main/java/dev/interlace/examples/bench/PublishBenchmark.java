package dev.interlace.examples.bench;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import com.google.inject.multibindings.Multibinder;
import dev.interlace.runtime.Interlace;
import dev.interlace.runtime.config.ConfigLoader;
import dev.interlace.runtime.config.InterlaceConfig;
import dev.interlace.runtime.flush.FlushListener;
import dev.interlace.runtime.http.HttpTransport;
import dev.interlace.runtime.log.CommitListener;
import dev.interlace.runtime.log.LogSettings;
import dev.interlace.runtime.log.StreamLog;
import dev.interlace.runtime.ops.Metrics;
import dev.interlace.runtime.records.SystemRecords;
import dev.interlace.runtime.warehouse.Warehouse;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
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
 *       {@code interlace-examples.jar} does not have: run it from the bench jar ({@code mvn -Pbench package}).</li>
 * </ul>
 *
 * <p>Run: {@code java -cp examples/target/interlace-examples.jar dev.interlace.examples.bench.PublishBenchmark}
 * ({@code --help} lists the options). Never run by CI. The flusher runs in every scenario; (b) keeps the pre-flusher
 * {@code --max-pending 100000000}, everything else uses the default.
 */
public final class PublishBenchmark {

    private static final String STREAM = "orders";
    /**
     * The pre-flusher runs' {@code --max-pending}: (b) keeps it so its figures stay comparable, and (e) uses it while
     * it builds a backlog the flusher is not allowed to materialise.
     */
    private static final long NO_BACKPRESSURE = 100_000_000L;
    /** The server's default {@code --max-pending} (100 000). */
    private static final long DEFAULT_MAX_PENDING = InterlaceConfig.defaults().maxPending();

    private final Options options;
    private final Path root;
    private final Map<Integer, Fixed> groupCommit = new LinkedHashMap<>();
    private final Map<Integer, Fixed> baseline = new LinkedHashMap<>();
    private final Map<Integer, Batched> batched = new LinkedHashMap<>();
    private final Map<Integer, Batched> flushed = new LinkedHashMap<>();
    private Latency latency;
    private ModelLatency modelLatency;
    private final List<Drain> drains = new ArrayList<>();
    private final List<FeatureCost> featureCosts = new ArrayList<>();

    private PublishBenchmark(Options options, Path root) {
        this.options = options;
        this.root = root;
    }

    public static void main(String[] args) throws Exception {
        Options options;
        try {
            options = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.err.println(Options.USAGE);
            System.exit(2);
            return;
        }
        if (options.help) {
            System.out.println(Options.USAGE);
            return;
        }
        // The runtime logs at INFO on every start; keep the benchmark's output readable.
        java.util.logging.Logger.getLogger("").setLevel(java.util.logging.Level.WARNING);
        Path root = options.dataRoot != null ? Files.createDirectories(options.dataRoot)
                : Files.createTempDirectory("interlace-bench-");
        new PublishBenchmark(options, root).run();
    }

    private void run() throws Exception {
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
                        batched.put(batch, runBatched(batch, NO_BACKPRESSURE));
                    }
                }
                case "f" -> {
                    for (int batch : options.batches) {
                        section("(f) = (b) with the flusher on and the default --max-pending " + DEFAULT_MAX_PENDING
                                + ": batches of " + batch + ", until " + options.keys + " keys ("
                                + options.batchClients + " clients, 429 + Retry-After honoured)");
                        flushed.put(batch, runBatched(batch, DEFAULT_MAX_PENDING));
                    }
                }
                case "d" -> {
                    section("(d) publish -> queryable latency: open loop, " + options.rate + " events/s in batches of "
                            + options.latencyBatch + " for " + options.latencySeconds + " s; poller every "
                            + options.pollMillis + " ms; --flush-delay-ms " + options.flushDelayMillis
                            + " --flush-batch-rows " + options.flushBatchRows);
                    latency = runLatency();
                }
                case "g" -> {
                    section("(g) publish -> dependent model updated: open loop, clicks " + options.rate
                            + " events/s and orders " + options.ordersPercent + " % of that, in batches of "
                            + options.latencyBatch + " for " + options.latencySeconds + " s; poller every "
                            + options.pollMillis + " ms; --flush-delay-ms " + options.flushDelayMillis
                            + " --flush-batch-rows " + options.flushBatchRows);
                    modelLatency = runModelLatency();
                }
                case "e" -> {
                    section("(e) flush throughput for a backlog of " + options.backlog + " events");
                    drains.addAll(runDrain());
                }
                case "h" -> {
                    for (int clients : options.metricsClients) {
                        section("(h) metrics on the publish path: single-event publishes, " + clients + " client(s), "
                                + options.metricsRounds + " interleaved pairs of " + options.seconds + " s runs, real"
                                + " Metrics vs a MeterRegistry that records nothing, each run on a fresh dir");
                        featureCosts.add(runFeatureCost(clients, Feature.METRICS));
                    }
                }
                case "i" -> {
                    for (int clients : options.metricsClients) {
                        section("(i) records on the publish path: single-event publishes, " + clients + " client(s), "
                                + options.metricsRounds + " interleaved pairs of " + options.seconds + " s runs, with"
                                + " publish and system records vs without (as --record-retention 0), each run on a"
                                + " fresh dir");
                        featureCosts.add(runFeatureCost(clients, Feature.RECORDS));
                    }
                }
                case "j" -> {
                    section("(j) HTTP transports (" + options.transports + "): single-event publishes and GET"
                            + " /health/live at " + options.transportClients + " clients, " + options.seconds
                            + " s each, then " + options.hostileSeconds + " s under " + options.slowloris
                            + " slowloris connections + " + options.longPolls + " parked long polls; "
                            + options.transportRounds + " rounds, order alternating, each on a fresh dir");
                    runTransports();
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

    private void printMachine() throws IOException {
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
    private void warmUp() throws Exception {
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

    private Fixed runFixed(String scenario, boolean group, int clients) throws Exception {
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
                ms(result.run.latency.percentile(50)), ms(result.run.latency.percentile(99)),
                ms(result.run.latency.percentile(99.9)), result.run.errors, result.run.throttled, result.commits.count,
                result.commits.requestsPerCommit(), ms(result.commits.durations.percentile(50)));
        return result;
    }

    private void printFixed(Map<Integer, Fixed> results) {
        System.out.println();
        System.out.println("| clients | requests | events/s | ack p50 ms | ack p99 ms | ack p99.9 ms | max ms | errors"
                + " | commits/s | requests/commit | commit p50 ms | commit p99 ms | bench CPU cores | other CPU cores |");
        System.out.println("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        for (Fixed fixed : results.values()) {
            Run run = fixed.run;
            System.out.printf("| %d | %,d | %,.0f | %s | %s | %s | %s | %d | %,.0f | %.1f | %s | %s | %.2f | %.2f |%n",
                    fixed.clients, run.requests, run.eventsPerSecond(), ms(run.latency.percentile(50)),
                    ms(run.latency.percentile(99)), ms(run.latency.percentile(99.9)), ms(run.latency.max()),
                    run.errors, fixed.commits.count / run.seconds(), fixed.commits.requestsPerCommit(),
                    ms(fixed.commits.durations.percentile(50)), ms(fixed.commits.durations.percentile(99)),
                    run.benchCores, run.otherCores);
        }
        System.out.println();
    }

    // ------------------------------------------------------------------------------------------ (h)

    /**
     * (h) and (i): the same closed-loop single-event load against the server as shipped and against one without the
     * feature (metrics that record nothing; no records), alternating which goes first in each pair so that drift on
     * the shared machine hits both alike. Pooled over the rounds: throughput, latency percentiles and this JVM's CPU
     * per request.
     */
    private FeatureCost runFeatureCost(int clients, Feature feature) throws Exception {
        FeatureCost result = new FeatureCost(clients, feature);
        for (int round = 0; round < options.metricsRounds; round++) {
            for (int i = 0; i < 2; i++) {
                boolean metrics = (i == 0) == (round % 2 == 0);
                Path dir = fresh(feature.scenario + "-" + clients + "-" + round + (metrics ? "-on" : "-off"));
                Run run;
                try (Interlace server = start(dir, true, null, DEFAULT_MAX_PENDING, options.flushBatchRows, null,
                        metrics ? null : feature.without())) {
                    feature.check(server, metrics);
                    MeterRegistry registry = server.instance(MeterRegistry.class);
                    run = drive(server, clients, 1, System.nanoTime() + options.seconds * 1_000_000_000L,
                            Long.MAX_VALUE, null, 1);
                    if (feature == Feature.METRICS && metrics && round == options.metricsRounds - 1) {
                        result.scrape(server.instance(Metrics.class));
                        result.recordingCost(registry);
                    }
                }
                deleteTree(dir);
                (metrics ? result.onRuns : result.offRuns).add(run);
                result.perRun.add(String.format(Locale.ROOT, "| %d | %s | %,d | %,.0f | %s | %s | %.1f | %d | %.2f |"
                        + " %.2f |", round + 1, metrics ? feature.with : feature.without, run.requests,
                        run.eventsPerSecond(), ms(run.latency.percentile(50)), ms(run.latency.percentile(99)),
                        cpuMicrosPerRequest(run), run.errors, run.benchCores, run.otherCores));
                System.out.println(result.perRun.get(result.perRun.size() - 1));
            }
        }
        result.on = Pooled.of(result.onRuns);
        result.off = Pooled.of(result.offRuns);
        sideBySide(result);
        printFeatureCost(result);
        return result;
    }

    /**
     * (h), second design: both servers run at the same time, each driven by half the clients, so whatever else
     * happens on the machine happens to both. With the cores saturated, the server that needs more CPU per request
     * gets fewer requests through.
     */
    private void sideBySide(FeatureCost result) throws Exception {
        int perServer = Math.max(1, result.clients / 2);
        for (int round = 0; round < options.metricsRounds; round++) {
            Feature feature = result.feature;
            Path onDir = fresh(feature.scenario + "-side-" + round + "-on");
            Path offDir = fresh(feature.scenario + "-side-" + round + "-off");
            // Which server starts (and is driven) first alternates, in case order matters.
            boolean onFirst = round % 2 == 0;
            Interlace first = start(onFirst ? onDir : offDir, true, null, DEFAULT_MAX_PENDING, options.flushBatchRows,
                    null, onFirst ? null : feature.without());
            Interlace second = start(onFirst ? offDir : onDir, true, null, DEFAULT_MAX_PENDING,
                    options.flushBatchRows, null, onFirst ? feature.without() : null);
            try (first; second) {
                long deadline = System.nanoTime() + options.seconds * 1_000_000_000L;
                java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(2);
                try {
                    java.util.concurrent.Future<Run> firstRun = pool.submit(
                            () -> drive(first, perServer, 1, deadline, Long.MAX_VALUE, null, 1));
                    java.util.concurrent.Future<Run> secondRun = pool.submit(
                            () -> drive(second, perServer, 1, deadline, Long.MAX_VALUE, null, 1));
                    java.util.concurrent.Future<Run> onRun = onFirst ? firstRun : secondRun;
                    java.util.concurrent.Future<Run> offRun = onFirst ? secondRun : firstRun;
                    Run a = onRun.get();
                    Run b = offRun.get();
                    result.sideBySide.add(new Run[] {a, b});
                    System.out.printf("side by side %d: " + feature.with + " %,.0f events/s (p50 %s, p99 %s ms), "
                            + feature.without + " %,.0f events/s (p50 %s, p99 %s ms), ratio %.3f; other CPU %.2f"
                            + " cores%n", round + 1,
                            a.eventsPerSecond(), ms(a.latency.percentile(50)), ms(a.latency.percentile(99)),
                            b.eventsPerSecond(), ms(b.latency.percentile(50)), ms(b.latency.percentile(99)),
                            a.eventsPerSecond() / b.eventsPerSecond(), a.otherCores);
                } finally {
                    pool.shutdown();
                }
            }
            deleteTree(onDir);
            deleteTree(offDir);
        }
    }

    private void printFeatureCost(FeatureCost r) {
        System.out.println();
        System.out.println("| round | server | requests | events/s | ack p50 ms | ack p99 ms | CPU us/request | errors |"
                + " bench CPU cores | other CPU cores |");
        System.out.println("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|");
        r.perRun.forEach(System.out::println);
        System.out.println();
        System.out.println("| pooled over " + options.metricsRounds + " runs each | requests | events/s | ack p50 ms |"
                + " ack p99 ms | ack p99.9 ms | CPU us/request |");
        System.out.println("|---|---:|---:|---:|---:|---:|---:|");
        for (Pooled p : List.of(r.on, r.off)) {
            System.out.printf("| %s | %,d | %,.0f | %s | %s | %s | %.1f |%n",
                    p == r.on ? r.feature.with : r.feature.without,
                    p.requests, p.eventsPerSecond(), ms(p.latency.percentile(50)), ms(p.latency.percentile(99)),
                    ms(p.latency.percentile(99.9)), p.cpuMicrosPerRequest());
        }
        System.out.printf("%n" + r.feature.with + " / " + r.feature.without + ": throughput %.3fx, p50 %.3fx, p99"
                + " %.3fx, CPU per request %+.1f us (%.3fx)%n", r.throughputRatio(), r.on.latency.percentile(50) / r.off.latency.percentile(50),
                r.on.latency.percentile(99) / r.off.latency.percentile(99),
                r.on.cpuMicrosPerRequest() - r.off.cpuMicrosPerRequest(),
                r.on.cpuMicrosPerRequest() / r.off.cpuMicrosPerRequest());
        StringBuilder pairs = new StringBuilder();
        List<Double> all = new ArrayList<>();
        List<Double> quiet = new ArrayList<>();
        for (int i = 0; i < r.onRuns.size(); i++) {
            Run on = r.onRuns.get(i);
            Run off = r.offRuns.get(i);
            double ratio = on.eventsPerSecond() / off.eventsPerSecond();
            boolean undisturbed = on.otherCores < QUIET_CORES && off.otherCores < QUIET_CORES;
            pairs.append(i == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%.3f", ratio))
                    .append(undisturbed ? "" : "*");
            all.add(ratio);
            if (undisturbed) {
                quiet.add(ratio);
            }
        }
        System.out.printf("throughput ratio per pair (" + r.feature.with + " / " + r.feature.without + "; the pairs"
                + " alternate which runs first; *"
                + " = other processes used >= %.2f cores during a run of the pair): %s%n", QUIET_CORES, pairs);
        System.out.printf("  all %d pairs: geometric mean %.3fx, median %.3fx; the %d undisturbed pairs: geometric mean"
                + " %.3fx, median %.3fx%n", all.size(), geometricMean(all), median(all), quiet.size(),
                geometricMean(quiet), median(quiet));
        List<Double> sideRatios = new ArrayList<>();
        for (Run[] pair : r.sideBySide) {
            sideRatios.add(pair[0].eventsPerSecond() / pair[1].eventsPerSecond());
        }
        System.out.printf("side by side (%d rounds, %d clients per server): events " + r.feature.with + " / "
                + r.feature.without + " %.3fx overall;"
                + " per round geometric mean %.3fx, median %.3fx, min %.3f, max %.3f%n", r.sideBySide.size(),
                Math.max(1, r.clients / 2), r.sideBySideRatio(), geometricMean(sideRatios),
                median(sideRatios), sideRatios.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN),
                sideRatios.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN));
        if (r.feature == Feature.METRICS) {
            System.out.printf("meter operations of one publish on the real registry (one latency record + one counter"
                    + " increment, one thread): %.0f ns%n", r.recordNanos);
            System.out.printf("one scrape (GET /metrics body, written in-process): %.2f ms, %,d bytes%n",
                    r.scrapeNanos / 1e6, r.scrapeBytes);
        }
    }

    /** (h): a run during which other processes used less CPU than this counts as undisturbed. */
    private static final double QUIET_CORES = 0.1;

    private static double geometricMean(List<Double> values) {
        return values.isEmpty() ? Double.NaN
                : Math.exp(values.stream().mapToDouble(Math::log).sum() / values.size());
    }

    private static double median(List<Double> values) {
        if (values.isEmpty()) {
            return Double.NaN;
        }
        double[] sorted = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        int middle = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }

    private static double cpuMicrosPerRequest(Run run) {
        return run.requests == 0 ? Double.NaN : run.benchCores * run.seconds() * 1e6 / run.requests;
    }

    /** What (h) and (i) compare: the server as shipped against one without a feature (benchmark code only). */
    private enum Feature {
        METRICS("h", "metrics", "no metrics"),
        RECORDS("i", "records", "no records");

        final String scenario;
        final String with;
        final String without;

        Feature(String scenario, String with, String without) {
            this.scenario = scenario;
            this.with = with;
            this.without = without;
        }

        /** The override that takes the feature away. */
        com.google.inject.Module without() {
            return this == METRICS ? new RecordNothing() : new NoRecords();
        }

        /** Fails when the override did (or did not) take effect as intended. */
        void check(Interlace server, boolean with) {
            boolean on = this == METRICS ? server.instance(MeterRegistry.class) instanceof PrometheusMeterRegistry
                    : server.instance(LogSettings.class).publishRecords()
                            && server.instance(SystemRecords.class) != SystemRecords.DISCARD;
            if (on != with) {
                throw new IllegalStateException("the " + this + " override did not take effect");
            }
        }
    }

    /**
     * (i): no publish records in the log's group commit and no system records, exactly what
     * {@code --record-retention 0} configures (benchmark code only).
     */
    static final class NoRecords extends AbstractModule {
        @Provides
        @Singleton
        LogSettings settings(InterlaceConfig config) {
            LogSettings defaults = LogSettings.defaults(config.maxPending());
            return new LogSettings(defaults.maxPending(), defaults.walCapBytes(), defaults.maxGroupRequests(), false);
        }

        @Provides
        @Singleton
        SystemRecords records() {
            return SystemRecords.DISCARD;
        }
    }

    /** (h): a meter registry that records nothing, bound in place of the Prometheus one (benchmark code only). */
    static final class RecordNothing extends AbstractModule {
        @Provides
        @Singleton
        MeterRegistry registry() {
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            // Every meter becomes a no-op: nothing is counted, timed or kept, JVM binders included.
            registry.config().meterFilter(MeterFilter.deny());
            return registry;
        }
    }

    /** (h): the runs of one variant taken together. */
    private record Pooled(long requests, long events, long nanos, LatencyLog latency, double cpuNanos) {
        static Pooled of(List<Run> runs) {
            long requests = 0;
            long events = 0;
            long nanos = 0;
            double cpuNanos = 0;
            LatencyLog latency = new LatencyLog();
            for (Run run : runs) {
                requests += run.requests;
                events += run.events;
                nanos += run.nanos;
                cpuNanos += run.benchCores * run.nanos;
                for (int i = 0; i < run.latency.size(); i++) {
                    latency.add(run.latency.values[i], 0);
                }
            }
            return new Pooled(requests, events, nanos, latency, cpuNanos);
        }

        double eventsPerSecond() {
            return events / (nanos / 1e9);
        }

        double cpuMicrosPerRequest() {
            return requests == 0 ? Double.NaN : cpuNanos / 1e3 / requests;
        }
    }

    /** (h): one client count's comparison. */
    private static final class FeatureCost {
        final int clients;
        final Feature feature;
        final List<String> perRun = new ArrayList<>();
        final List<Run> onRuns = new ArrayList<>();
        final List<Run> offRuns = new ArrayList<>();
        final List<Run[]> sideBySide = new ArrayList<>();
        Pooled on;
        Pooled off;
        double recordNanos = Double.NaN;
        long scrapeNanos;
        long scrapeBytes;

        FeatureCost(int clients, Feature feature) {
            this.clients = clients;
            this.feature = feature;
        }

        double throughputRatio() {
            return on.eventsPerSecond() / off.eventsPerSecond();
        }

        double sideBySideRatio() {
            long onEvents = 0;
            long offEvents = 0;
            for (Run[] pair : sideBySide) {
                onEvents += pair[0].events;
                offEvents += pair[1].events;
            }
            return (double) onEvents / offEvents;
        }

        /** Times the meter operations a publish does (latency record, accepted increment) on the server's meters. */
        void recordingCost(MeterRegistry registry) {
            Timer latency = registry.get("interlace.publish.duration").tag("stream", STREAM).timer();
            Counter accepted = registry.get("interlace.events").tags("stream", STREAM, "outcome", "accepted")
                    .counter();
            int warmUp = 2_000_000;
            int measured = 5_000_000;
            for (int i = 0; i < warmUp; i++) {
                latency.record(1_000_000L + (i & 1023) * 10_000L, TimeUnit.NANOSECONDS);
                accepted.increment(1);
            }
            long start = System.nanoTime();
            for (int i = 0; i < measured; i++) {
                latency.record(1_000_000L + (i & 1023) * 10_000L, TimeUnit.NANOSECONDS);
                accepted.increment(1);
            }
            recordNanos = (System.nanoTime() - start) / (double) measured;
        }

        /** Times scrapes of the server's registry (the median of 21). */
        void scrape(Metrics metrics) throws IOException {
            long[] times = new long[21];
            for (int i = 0; i < times.length; i++) {
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                long start = System.nanoTime();
                metrics.writePrometheusText(out);
                times[i] = System.nanoTime() - start;
                scrapeBytes = out.size();
            }
            Arrays.sort(times);
            scrapeNanos = times[times.length / 2];
        }
    }

    // ------------------------------------------------------------------------------------------ (j)

    /** (j): the HTTP transports compared, each serving the same real server (benchmark code only). */
    private enum Transport {
        NETTY("netty", null),
        JETTY("jetty", JettyTransport.class),
        JDK("jdk", JdkTransport.class),
        JDK_VIRTUAL("jdk-virtual", JdkTransport.Virtual.class);

        final String name;
        final Class<? extends HttpTransport> type;

        Transport(String name, Class<? extends HttpTransport> type) {
            this.name = name;
            this.type = type;
        }

        /** The override that binds this transport; null for the shipped one (Netty). */
        com.google.inject.Module binding() {
            return type == null ? null : new AbstractModule() {
                @Override
                protected void configure() {
                    bind(HttpTransport.class).to(type);
                }
            };
        }

        static Transport named(String name) {
            for (Transport transport : values()) {
                if (transport.name.equals(name.strip())) {
                    return transport;
                }
            }
            throw new IllegalArgumentException("unknown transport " + name + "; expected netty, jetty, jdk or"
                    + " jdk-virtual");
        }
    }

    /** (j): one transport's round: closed-loop publishes and liveness checks, then a normal client under attack. */
    private record TransportRun(Transport transport, int round, String description, Run publishes, Run health,
            LatencyLog hostileHealth, LatencyLog hostilePublish, long hostileFailures, String hostileState,
            int slowlorisClosed, int pollsOpenBeforeWake, int pollsAnsweredByWake) {

        boolean stayedAnswering() {
            return hostileFailures == 0 && hostileHealth.size() > 0 && hostilePublish.size() > 0;
        }
    }

    /**
     * (j): every transport in {@code --transports} serves the same real server (example streams, SQLite log,
     * DuckDB warehouse, flusher on, a fresh dir each time) in {@code --transport-rounds} rounds whose order alternates.
     * Each: {@code --seconds} of single-event publishes at {@code --transport-clients} closed-loop clients, as many
     * seconds of {@code GET /health/live} at the same count (raw keep-alive clients), then {@code --hostile-seconds}
     * with {@code --slowloris} slowloris connections and {@code --long-polls} parked long polls on {@code orders}
     * while one normal client alternates {@code GET /health/live} and a single-event publish to {@code clicks}
     * (another stream, so the polls stay parked), each with a 5 s timeout.
     */
    private List<TransportRun> runTransports() throws Exception {
        List<Transport> transports = Arrays.stream(options.transports.split(",")).map(Transport::named).toList();
        if (transports.stream().anyMatch(t -> t == Transport.JETTY)) {
            try {
                Class.forName("org.eclipse.jetty.server.Server");
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException("Jetty is not on the class path: run (j) from the bench jar"
                        + " (mvn -Pbench package: examples/target/interlace-examples-bench.jar), not"
                        + " interlace-examples.jar");
            }
        }
        // The common warm-up ran on Netty only: each transport's own code gets its share before anything counts.
        for (Transport transport : transports) {
            if (options.warmupSeconds <= 0) {
                break;
            }
            Path dir = fresh("j-warmup-" + transport.name);
            try (Interlace server = start(dir, true, null, DEFAULT_MAX_PENDING, options.flushBatchRows, null,
                    transport.binding())) {
                long half = options.warmupSeconds * 1_000_000_000L / 2;
                drive(server, options.transportClients, 1, System.nanoTime() + half, Long.MAX_VALUE, null, 1);
                liveness(server, options.transportClients, System.nanoTime() + half);
            }
            deleteTree(dir);
        }
        List<TransportRun> runs = new ArrayList<>();
        for (int round = 0; round < options.transportRounds; round++) {
            List<Transport> order = new ArrayList<>(transports);
            if (round % 2 == 1) {
                java.util.Collections.reverse(order);
            }
            for (Transport transport : order) {
                TransportRun run = runTransport(transport, round);
                runs.add(run);
                System.out.printf("round %d %s: %,.0f publishes/s (p50 %s, p99 %s ms), %,.0f /health/live per s;"
                        + " under attack: health p99 %s max %s ms, publish p99 %s max %s ms, %d failures; %s%n",
                        round + 1, transport.name, run.publishes.eventsPerSecond(),
                        ms(run.publishes.latency.percentile(50)), ms(run.publishes.latency.percentile(99)),
                        run.health.requests / run.health.seconds(), ms(run.hostileHealth.percentile(99)),
                        ms(run.hostileHealth.max()), ms(run.hostilePublish.percentile(99)),
                        ms(run.hostilePublish.max()), run.hostileFailures, run.hostileState);
            }
        }
        printTransports(transports, runs);
        for (Transport other : transports.subList(1, transports.size())) {
            transportsSideBySide(transports.get(0), other);
        }
        return runs;
    }

    /**
     * (j), second design as in (h): the reference transport and another serve two servers at the same time, each
     * driven by half of {@code --transport-clients} publishing single events, so whatever else runs on the machine
     * slows both alike; the ratio of their publishes is what is reported.
     */
    private void transportsSideBySide(Transport reference, Transport other) throws Exception {
        int perServer = Math.max(1, options.transportClients / 2);
        List<Double> ratios = new ArrayList<>();
        long referenceEvents = 0;
        long otherEvents = 0;
        for (int round = 0; round < options.transportRounds; round++) {
            boolean referenceFirst = round % 2 == 0;
            Transport first = referenceFirst ? reference : other;
            Transport second = referenceFirst ? other : reference;
            Path firstDir = fresh("j-side-" + round + "-" + first.name);
            Path secondDir = fresh("j-side-" + round + "-" + second.name);
            Interlace firstServer = start(firstDir, true, null, DEFAULT_MAX_PENDING, options.flushBatchRows, null,
                    first.binding());
            Interlace secondServer = start(secondDir, true, null, DEFAULT_MAX_PENDING, options.flushBatchRows, null,
                    second.binding());
            try (firstServer; secondServer) {
                long deadline = System.nanoTime() + options.seconds * 1_000_000_000L;
                java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(2);
                try {
                    java.util.concurrent.Future<Run> firstRun = pool.submit(
                            () -> drive(firstServer, perServer, 1, deadline, Long.MAX_VALUE, null, 1));
                    java.util.concurrent.Future<Run> secondRun = pool.submit(
                            () -> drive(secondServer, perServer, 1, deadline, Long.MAX_VALUE, null, 1));
                    Run referenceRun = (referenceFirst ? firstRun : secondRun).get();
                    Run otherRun = (referenceFirst ? secondRun : firstRun).get();
                    referenceEvents += referenceRun.events;
                    otherEvents += otherRun.events;
                    ratios.add(otherRun.eventsPerSecond() / referenceRun.eventsPerSecond());
                    System.out.printf("side by side %d: %s %,.0f publishes/s (p50 %s, p99 %s ms), %s %,.0f publishes/s"
                            + " (p50 %s, p99 %s ms), ratio %.3f; other CPU %.2f cores%n", round + 1, other.name,
                            otherRun.eventsPerSecond(), ms(otherRun.latency.percentile(50)),
                            ms(otherRun.latency.percentile(99)), reference.name, referenceRun.eventsPerSecond(),
                            ms(referenceRun.latency.percentile(50)), ms(referenceRun.latency.percentile(99)),
                            ratios.get(ratios.size() - 1), otherRun.otherCores);
                } finally {
                    pool.shutdown();
                }
            }
            deleteTree(firstDir);
            deleteTree(secondDir);
        }
        System.out.printf("side by side (%d rounds, %d clients per server): publishes %s / %s %.3fx overall; per round"
                + " %s (geometric mean %.3f)%n", options.transportRounds, perServer, other.name, reference.name,
                (double) otherEvents / referenceEvents, ratios(ratios), geometricMean(ratios));
    }

    private TransportRun runTransport(Transport transport, int round) throws Exception {
        Path dir = fresh("j-" + transport.name + "-" + round);
        TransportRun result;
        try (Interlace server = start(dir, true, null, DEFAULT_MAX_PENDING, options.flushBatchRows, null,
                transport.binding())) {
            String description = server.httpExecutor();
            boolean bound = transport == Transport.JDK_VIRTUAL
                    ? description.startsWith("jdk") && description.contains("a virtual thread per request")
                    : description.startsWith(transport.name) && !description.contains("a virtual thread per request");
            if (!bound) {
                throw new IllegalStateException("the " + transport.name + " override did not take effect: "
                        + description);
            }
            int clients = options.transportClients;
            Run publishes = drive(server, clients, 1, System.nanoTime() + options.seconds * 1_000_000_000L,
                    Long.MAX_VALUE, null, 1);
            Run health = liveness(server, clients, System.nanoTime() + options.seconds * 1_000_000_000L);
            long head = server.instance(StreamLog.class).heads().get(STREAM).head();
            InetSocketAddress address = new InetSocketAddress(server.uri().getHost(), server.port());
            LatencyLog hostileHealth = new LatencyLog();
            LatencyLog hostilePublish = new LatencyLog();
            long failures = 0;
            String state;
            int slowlorisClosed;
            int pollsOpen;
            int answeredByWake;
            HostileClients hostile = new HostileClients(address, options.slowloris, options.longPolls, STREAM,
                    head, options.dribbleMillis);
            try {
                hostile.start();
                Thread.sleep(1_000);
                RawHttpClient live = new RawHttpClient(server.uri().resolve("/health/live")).timeout(5_000);
                RawHttpClient clicks = new RawHttpClient(server.uri().resolve("/streams/" + CLICKS)).timeout(5_000);
                long deadline = System.nanoTime() + options.hostileSeconds * 1_000_000_000L;
                while (System.nanoTime() < deadline) {
                    failures += timed(() -> live.get(), hostileHealth);
                    failures += timed(() -> clicks.post(clickBody()), hostilePublish);
                    Thread.sleep(20);
                }
                live.close();
                clicks.close();
                state = hostile.state();
                slowlorisClosed = hostile.slowlorisClosed();
                pollsOpen = hostile.pollsOpen();
                // One event on the polled stream: every parked poll the server holds should be answered now.
                int answeredBefore = hostile.pollsAnswered();
                try (RawHttpClient wake = new RawHttpClient(publishUri(server)).timeout(5_000)) {
                    wake.post(body(new String[1]).getBytes(StandardCharsets.UTF_8));
                } catch (IOException e) {
                    System.out.println("the publish that wakes the long polls failed: " + e);
                }
                long wakeDeadline = System.nanoTime() + 3_000_000_000L;
                while (hostile.pollsAnswered() - answeredBefore < pollsOpen && System.nanoTime() < wakeDeadline) {
                    Thread.sleep(20);
                }
                answeredByWake = hostile.pollsAnswered() - answeredBefore;
            } finally {
                hostile.close();
            }
            result = new TransportRun(transport, round, description, publishes, health, hostileHealth,
                    hostilePublish, failures, state, slowlorisClosed, pollsOpen, answeredByWake);
        }
        deleteTree(dir);
        return result;
    }

    /** A request of the normal client under attack: its latency when answered 200, else one failure. */
    private static long timed(RawExchange exchange, LatencyLog log) {
        long start = System.nanoTime();
        try {
            RawHttpClient.Response response = exchange.send();
            if (response.status() == 200) {
                log.add(System.nanoTime() - start, 0);
                return 0;
            }
            return 1;
        } catch (IOException e) {
            return 1;
        }
    }

    @FunctionalInterface
    private interface RawExchange {
        RawHttpClient.Response send() throws IOException;
    }

    private static byte[] clickBody() {
        return ("{\"click_id\":\"" + UUID.randomUUID() + "\",\"url\":\"/bench\",\"at\":\"" + java.time.Instant.now()
                + "\"}").getBytes(StandardCharsets.UTF_8);
    }

    /** {@code clients} closed-loop raw keep-alive clients sending {@code GET /health/live} until the deadline. */
    private static Run liveness(Interlace server, int clients, long deadline) throws InterruptedException {
        URI uri = server.uri().resolve("/health/live");
        LatencyLog[] logs = new LatencyLog[clients];
        AtomicLong errors = new AtomicLong();
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            LatencyLog log = logs[c] = new LatencyLog();
            Thread thread = new Thread(() -> {
                try (RawHttpClient client = new RawHttpClient(uri).timeout(10_000)) {
                    go.await();
                    while (System.nanoTime() < deadline) {
                        long start = System.nanoTime();
                        try {
                            if (client.get().status() == 200) {
                                log.add(System.nanoTime() - start, 0);
                            } else {
                                errors.incrementAndGet();
                            }
                        } catch (IOException e) {
                            errors.incrementAndGet();
                        }
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "bench-live-" + c);
            thread.setDaemon(true);
            threads.add(thread);
            thread.start();
        }
        long start = System.nanoTime();
        Cpu cpuStart = Cpu.now();
        go.countDown();
        for (Thread thread : threads) {
            thread.join();
        }
        long nanos = System.nanoTime() - start;
        double[] cores = Cpu.now().since(cpuStart);
        LatencyLog all = LatencyLog.merge(logs, 1);
        return new Run(all.size(), all.size(), errors.get(), nanos, all, null, cores[0], cores[1], 0, 0);
    }

    private void printTransports(List<Transport> transports, List<TransportRun> runs) {
        System.out.println();
        System.out.println("| round | transport | publishes/s | ack p50 ms | ack p99 ms | CPU us/publish | /health/live per s"
                + " | health p99 ms | publishes / health | attacked: health p99 / max ms | attacked: publish p99 / max ms"
                + " | failures | slowloris closed | polls open → answered by one publish | other CPU cores |");
        System.out.println("|---:|---|---:|---:|---:|---:|---:|---:|---:|---|---|---:|---:|---|---:|");
        for (TransportRun r : runs) {
            double healthPerSecond = r.health.requests / r.health.seconds();
            System.out.printf("| %d | %s | %,.0f | %s | %s | %.1f | %,.0f | %s | %.3f | %s / %s | %s / %s | %d | %d |"
                    + " %d → %d | %.2f / %.2f |%n", r.round + 1, r.transport.name, r.publishes.eventsPerSecond(),
                    ms(r.publishes.latency.percentile(50)), ms(r.publishes.latency.percentile(99)),
                    cpuMicrosPerRequest(r.publishes), healthPerSecond, ms(r.health.latency.percentile(99)),
                    r.publishes.eventsPerSecond() / healthPerSecond, ms(r.hostileHealth.percentile(99)),
                    ms(r.hostileHealth.max()), ms(r.hostilePublish.percentile(99)), ms(r.hostilePublish.max()),
                    r.hostileFailures, r.slowlorisClosed, r.pollsOpenBeforeWake, r.pollsAnsweredByWake,
                    r.publishes.otherCores, r.health.otherCores);
        }
        System.out.println();
        for (TransportRun r : runs) {
            if (r.round == 0) {
                System.out.println(r.transport.name + ": " + r.description);
            }
        }
        Transport reference = transports.get(0);
        for (Transport other : transports) {
            if (other == reference) {
                continue;
            }
            List<Double> publishRatios = new ArrayList<>();
            List<Double> healthRatios = new ArrayList<>();
            for (int round = 0; round < options.transportRounds; round++) {
                TransportRun mine = find(runs, other, round);
                TransportRun theirs = find(runs, reference, round);
                publishRatios.add(mine.publishes.eventsPerSecond() / theirs.publishes.eventsPerSecond());
                healthRatios.add((mine.health.requests / mine.health.seconds())
                        / (theirs.health.requests / theirs.health.seconds()));
            }
            System.out.printf("%s / %s per round: publishes %s (geometric mean %.3f), /health/live %s (geometric"
                    + " mean %.3f)%n", other.name, reference.name, ratios(publishRatios), geometricMean(publishRatios),
                    ratios(healthRatios), geometricMean(healthRatios));
        }
        for (Transport transport : transports) {
            long answering = runs.stream().filter(r -> r.transport == transport && r.stayedAnswering()).count();
            System.out.printf("%s stayed answering under attack in %d of %d rounds%n", transport.name, answering,
                    options.transportRounds);
        }
    }

    private static TransportRun find(List<TransportRun> runs, Transport transport, int round) {
        return runs.stream().filter(r -> r.transport == transport && r.round == round).findFirst().orElseThrow();
    }

    private static String ratios(List<Double> values) {
        return values.stream().map(v -> String.format(Locale.ROOT, "%.3f", v)).collect(Collectors.joining(", "));
    }

    // ------------------------------------------------------------------------------------------ (b)

    private Batched runBatched(int batch, long maxPending) throws Exception {
        Path dir = fresh("b-" + batch);
        CommitStats commits = new CommitStats();
        FlushStats flushes = new FlushStats();
        Batched result = new Batched(batch);
        long step = Math.max(batch, options.keys / options.steps);
        try (Interlace server = start(dir, true, commits, maxPending, options.flushBatchRows, flushes)) {
            System.out.printf("HTTP executor: %s; reporting every %,d keys%n", server.httpExecutor(), step);
            result.heapBefore = usedHeapAfterGc();
            WalWatch wal = new WalWatch(dir.resolve("log.sqlite-wal"));
            wal.start();
            Checkpoints checkpoints = new Checkpoints(options.keys, step);
            result.run = drive(server, options.batchClients, batch, Long.MAX_VALUE, options.keys, checkpoints,
                    checkpoints.buckets());
            wal.interrupt();
            wal.join();
            result.walPeak = wal.peak;
            result.checkpoints = checkpoints;
            result.keys = result.run.events;
            result.heapAfter = usedHeapAfterGc();
            result.dbBytes = size(dir.resolve("log.sqlite"));
            result.walBytes = size(dir.resolve("log.sqlite-wal"));
            result.commits = commits.snapshot();
            // How far the flusher was behind when publishing stopped, and how long it took to catch up.
            long stopped = System.nanoTime();
            result.pendingAtEnd = pending(server);
            result.catchUpNanos = waitForPending(server, 0, 600) - stopped;
            result.warehouseBytes = size(dir.resolve("warehouse.duckdb")) + size(dir.resolve("warehouse.duckdb.wal"));
            result.flushes = flushes.snapshot();
        }
        long closedDb = size(dir.resolve("log.sqlite"));
        long closedWal = size(dir.resolve("log.sqlite-wal"));
        long startNanos = System.nanoTime();
        try (Interlace server = start(dir, true, null)) {
            result.startupNanos = System.nanoTime() - startNanos;
            result.heapRestarted = usedHeapAfterGc();
            // Proves the rebuilt index is the one in use: replaying one accepted key must be a duplicate.
            result.replayIsDuplicate = replayIsDuplicate(server, result.run.lastKey);
        }
        result.closedDbBytes = closedDb;
        result.closedWalBytes = closedWal;
        deleteTree(dir);
        printBatched(result, step);
        return result;
    }

    private static boolean replayIsDuplicate(Interlace server, String key) throws Exception {
        if (key == null) {
            return false;
        }
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        HttpResponse<String> response = client.send(HttpRequest.newBuilder(publishUri(server))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"order_id\":\"" + key + "\",\"total\":1.5}")).build(),
                HttpResponse.BodyHandlers.ofString());
        return response.statusCode() == 200 && response.body().contains("\"deduplicated\":1");
    }

    private void printBatched(Batched result, long step) {
        Checkpoints checkpoints = result.checkpoints;
        System.out.println();
        System.out.println("| keys in window | interval events/s | cumulative events/s | req p50 ms | req p99 ms |"
                + " req p99.9 ms |");
        System.out.println("|---:|---:|---:|---:|---:|---:|");
        for (int i = 0; i < checkpoints.buckets(); i++) {
            long at = checkpoints.nanosAt(i);
            if (at == 0) {
                break;
            }
            LatencyLog bucket = result.run.latency.bucket(i);
            System.out.printf("| %,d | %,.0f | %,.0f | %s | %s | %s |%n", checkpoints.keysAt(i),
                    checkpoints.intervalRate(i), checkpoints.cumulativeRate(i), ms(bucket.percentile(50)),
                    ms(bucket.percentile(99)), ms(bucket.percentile(99.9)));
        }
        System.out.println();
        System.out.printf("keys in window               %,d (every event accepted, %d errors)%n", result.keys,
                result.run.errors);
        System.out.printf("throughput                   %,.0f events/s overall; up to 1 M keys: min interval %,.0f,"
                + " mean %,.0f; last interval (at %,d keys): %,.0f%n", result.run.eventsPerSecond(),
                result.minRateUpTo(1_000_000), checkpoints.rateThrough(1_000_000), result.keys,
                result.lastRate());
        System.out.printf("cpu                          %.2f cores used by this JVM, %.2f by other processes%n",
                result.run.benchCores, result.run.otherCores);
        System.out.printf("backpressure                 %,d responses 429 (each: slept Retry-After, resent the same batch);"
                + " %.1f s slept in total over %d clients (%.0f%% of client time)%n", result.run.throttled,
                result.run.throttledNanos / 1e9, options.batchClients,
                100.0 * result.run.throttledNanos / (result.run.nanos * (double) options.batchClients));
        System.out.printf("flusher                      pending when publishing stopped %,d; caught up %.2f s later;"
                + " %s%n", result.pendingAtEnd, result.catchUpNanos / 1e9, result.flushes.describe());
        System.out.printf("warehouse                    warehouse.duckdb (+ .wal) %,d B%n", result.warehouseBytes);
        System.out.printf("commits                      %,d (%.1f requests, %,.0f events per commit; commit p50 %s ms,"
                + " p99 %s ms; %.0f%% of wall time in commit)%n", result.commits.count,
                result.commits.requestsPerCommit(), result.commits.entriesPerCommit(),
                ms(result.commits.durations.percentile(50)), ms(result.commits.durations.percentile(99)),
                100.0 * result.commits.totalNanos / result.run.nanos);
        System.out.printf("heap (used after GC)         %,d B before, %,d B after -> %.1f B/key; after restart %.1f"
                + " B/key%n", result.heapBefore, result.heapAfter, result.heapPerKey(),
                (double) (result.heapRestarted - result.heapBefore) / result.keys);
        System.out.printf("disk while running           log.sqlite %,d B + WAL %,d B = %.1f B/key; WAL peak %,d B%n",
                result.dbBytes, result.walBytes, result.diskPerKey(), result.walPeak);
        System.out.printf("disk after close             log.sqlite %,d B + WAL %,d B (close checkpoints and truncates"
                + " the WAL)%n", result.closedDbBytes, result.closedWalBytes);
        System.out.printf("start-up with %,d keys     %.2f s (Interlace.builder()...start() on the same dir);"
                + " replayed key deduplicated after restart: %s%n", result.keys, result.startupNanos / 1e9,
                result.replayIsDuplicate);
        System.out.println();
    }

    // ------------------------------------------------------------------------------------------ (d) latency

    /**
     * Open-loop publisher: request {@code i} is due at {@code start + i * period} and is sent then (or as soon as a
     * sender is free); a poller asks {@code SELECT max(_offset)} over {@code POST /sql} every {@code --poll-ms}. A
     * publish is queryable at the first poll response that shows {@code max(_offset) >= last_offset}.
     */
    private Latency runLatency() throws Exception {
        Path dir = fresh("d");
        CommitStats commits = new CommitStats();
        FlushStats flushes = new FlushStats();
        int batch = options.latencyBatch;
        long period = Math.round(batch * 1e9 / options.rate);
        int slots = (int) (options.latencySeconds * 1_000_000_000L / period);
        long[] due = new long[slots];
        long[] sent = new long[slots];
        long[] acked = new long[slots];
        long[] lastOffset = new long[slots];
        Latency result = new Latency();
        try (Interlace server = start(dir, true, commits, DEFAULT_MAX_PENDING, options.flushBatchRows, flushes)) {
            URI publish = publishUri(server);
            URI sql = server.uri().resolve("/sql");
            byte[] query = "SELECT max(_offset) FROM streams.orders".getBytes(StandardCharsets.UTF_8);
            // Poller: keeps only the first time each new max(_offset) was seen (times are response arrivals).
            long[][] seen = {new long[1 << 16], new long[1 << 16]};
            int[] seenCount = {0};
            LatencyLog pollRoundTrips = new LatencyLog();
            AtomicLong polls = new AtomicLong();
            AtomicLong pollErrors = new AtomicLong();
            java.util.concurrent.atomic.AtomicBoolean stopPolling = new java.util.concurrent.atomic.AtomicBoolean();
            Thread poller = new Thread(() -> {
                try (RawHttpClient client = new RawHttpClient(sql, "text/plain")) {
                    long last = -1;
                    while (!stopPolling.get()) {
                        long before = System.nanoTime();
                        RawHttpClient.Response response;
                        try {
                            response = client.post(query);
                        } catch (IOException e) {
                            pollErrors.incrementAndGet();
                            continue;
                        }
                        long after = System.nanoTime();
                        polls.incrementAndGet();
                        pollRoundTrips.add(after - before, 0);
                        long max = response.status() == 200 ? firstCell(response.body()) : -2;
                        if (max == -2) {
                            if (pollErrors.incrementAndGet() <= 3) {
                                System.out.println("poll failed: " + response.status() + " " + response.body());
                            }
                        } else if (max > last) {
                            last = max;
                            int n = seenCount[0];
                            if (n == seen[0].length) {
                                seen[0] = Arrays.copyOf(seen[0], n * 2);
                                seen[1] = Arrays.copyOf(seen[1], n * 2);
                            }
                            seen[0][n] = after;
                            seen[1][n] = max;
                            seenCount[0] = n + 1;
                        }
                        java.util.concurrent.locks.LockSupport.parkNanos(options.pollMillis * 1_000_000L);
                    }
                }
            }, "bench-sql-poller");
            poller.setDaemon(true);
            poller.start();
            Thread.sleep(200);

            AtomicLong next = new AtomicLong();
            AtomicLong errors = new AtomicLong();
            AtomicLong throttled = new AtomicLong();
            List<Thread> senders = new ArrayList<>();
            Cpu cpuStart = Cpu.now();
            long start = System.nanoTime() + 20_000_000L;
            for (int t = 0; t < options.latencySenders; t++) {
                Thread sender = new Thread(() -> {
                    HttpClient jdk = options.rawClient ? null : HttpClient.newBuilder()
                            .version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10)).build();
                    try (RawHttpClient raw = options.rawClient ? new RawHttpClient(publish) : null) {
                        for (int slot = (int) next.getAndIncrement(); slot < slots;
                                slot = (int) next.getAndIncrement()) {
                            String body = body(new String[batch]);
                            long at = start + slot * period;
                            due[slot] = at;
                            long wait;
                            while ((wait = at - System.nanoTime()) > 0) {
                                java.util.concurrent.locks.LockSupport.parkNanos(wait);
                            }
                            long before = System.nanoTime();
                            int status;
                            String text;
                            try {
                                if (raw != null) {
                                    RawHttpClient.Response response = raw.post(body.getBytes(StandardCharsets.UTF_8));
                                    status = response.status();
                                    text = response.body();
                                } else {
                                    HttpResponse<String> response = jdk.send(HttpRequest.newBuilder(publish)
                                            .timeout(Duration.ofSeconds(60)).header("Content-Type", "application/json")
                                            .POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                                            HttpResponse.BodyHandlers.ofString());
                                    status = response.statusCode();
                                    text = response.body();
                                }
                            } catch (IOException | InterruptedException e) {
                                errors.incrementAndGet();
                                continue;
                            }
                            long after = System.nanoTime();
                            if (status == 429) {
                                throttled.incrementAndGet();
                                continue;
                            }
                            if (status != 200 || acceptedCount(text) != batch) {
                                if (errors.incrementAndGet() <= 5) {
                                    System.out.println("unexpected response " + status + ": " + text);
                                }
                                continue;
                            }
                            sent[slot] = before;
                            acked[slot] = after;
                            lastOffset[slot] = longField(text, "last_offset");
                        }
                    }
                }, "bench-open-loop-" + t);
                sender.setDaemon(true);
                senders.add(sender);
                sender.start();
            }
            for (Thread sender : senders) {
                sender.join();
            }
            long publishEnd = System.nanoTime();
            double[] cores = Cpu.now().since(cpuStart);
            long highest = Arrays.stream(lastOffset).max().orElse(0);
            long giveUp = System.nanoTime() + 30_000_000_000L;
            while (System.nanoTime() < giveUp) {
                int n = seenCount[0];
                if (n > 0 && seen[1][n - 1] >= highest) {
                    break;
                }
                Thread.sleep(5);
            }
            stopPolling.set(true);
            poller.join();

            result.commits = commits.snapshot();
            result.flushes = flushes.snapshot();
            result.benchCores = cores[0];
            result.otherCores = cores[1];
            result.errors = errors.get();
            result.throttled = throttled.get();
            result.polls = polls.get();
            result.pollErrors = pollErrors.get();
            result.pollRoundTrips = pollRoundTrips;
            result.publishSeconds = (publishEnd - start) / 1e9;
            int n = seenCount[0];
            long[] seenAt = Arrays.copyOf(seen[0], n);
            long[] seenMax = Arrays.copyOf(seen[1], n);
            for (int slot = 0; slot < slots; slot++) {
                if (sent[slot] == 0) {
                    continue;
                }
                result.published++;
                result.events += batch;
                result.ack.add(acked[slot] - sent[slot], 0);
                result.sendLag.add(Math.max(0, sent[slot] - due[slot]), 0);
                int found = firstAtLeast(seenMax, lastOffset[slot]);
                if (found < 0) {
                    result.neverSeen++;
                    continue;
                }
                long visible = Math.max(seenAt[found], acked[slot]);
                result.queryable.add(visible - sent[slot], 0);
                result.afterAck.add(visible - acked[slot], 0);
            }
        }
        deleteTree(dir);
        printLatency(result);
        return result;
    }

    /** Index of the first value {@code >= target} in a non-decreasing array, or -1. */
    private static int firstAtLeast(long[] values, long target) {
        int low = 0;
        int high = values.length;
        while (low < high) {
            int mid = (low + high) >>> 1;
            if (values[mid] < target) {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        return low < values.length ? low : -1;
    }

    private void printLatency(Latency r) {
        System.out.println();
        System.out.printf("published                    %,d requests = %,d events in %.1f s = %,.0f events/s (target"
                + " %,d); errors %d; 429s %d%n", r.published, r.events, r.publishSeconds, r.events / r.publishSeconds,
                options.rate, r.errors, r.throttled);
        System.out.printf("sender lag (sent - due)      p50 %s ms, p99 %s ms, max %s ms%n", ms(r.sendLag.percentile(50)),
                ms(r.sendLag.percentile(99)), ms(r.sendLag.max()));
        System.out.printf("polls                        %,d (%,.0f/s), errors %d; round trip p50 %s ms, p99 %s ms%n",
                r.polls, r.polls / r.publishSeconds, r.pollErrors, ms(r.pollRoundTrips.percentile(50)),
                ms(r.pollRoundTrips.percentile(99)));
        System.out.printf("cpu                          %.2f cores this JVM, %.2f other processes%n", r.benchCores,
                r.otherCores);
        System.out.printf("log commits                  %,d (%.1f requests/commit, commit p50 %s ms)%n", r.commits.count,
                r.commits.requestsPerCommit(), ms(r.commits.durations.percentile(50)));
        System.out.printf("flusher                      %s%n", r.flushes.describe());
        System.out.printf("never seen by the poller     %d%n", r.neverSeen);
        System.out.println();
        System.out.println("| measure | n | p50 ms | p95 ms | p99 ms | p99.9 ms | max ms |");
        System.out.println("|---|---:|---:|---:|---:|---:|---:|");
        latencyRow("publish ack (send -> 200)", r.ack);
        latencyRow("publish -> queryable (send -> first poll showing it)", r.queryable);
        latencyRow("ack -> queryable", r.afterAck);
        System.out.println();
    }

    private static void latencyRow(String name, LatencyLog log) {
        System.out.printf("| %s | %,d | %s | %s | %s | %s | %s |%n", name, log.size(), ms(log.percentile(50)),
                ms(log.percentile(95)), ms(log.percentile(99)), ms(log.percentile(99.9)), ms(log.max()));
    }

    // ------------------------------------------------------------------------------------------ (g) models

    /**
     * Publish to dependent-model-updated latency: clicks at {@code --rate} and orders at {@code --orders-percent} of
     * it, both open loop; one poller reads, in a single {@code POST /sql}, {@code max(click_offset)} of the
     * incremental model {@code clicks_enriched}, the order count of the view {@code revenue_summary} (over the table
     * model {@code revenue_per_day}), and {@code max(_offset)} of both streams. A click publish is "model-updated" at
     * the first poll response with {@code max(click_offset) >= last_offset}; an order publish when
     * {@code revenue_summary.orders >= last_offset} (order offsets are dense from 1, every order counted once).
     * Afterwards {@code GET /runs} (paged, 1 000 per page) gives the runs, their coalesced triggers and durations.
     */
    private ModelLatency runModelLatency() throws Exception {
        Path dir = fresh("g");
        CommitStats commits = new CommitStats();
        Map<String, FlushStats> flushStats = new LinkedHashMap<>();
        flushStats.put(CLICKS, new FlushStats());
        flushStats.put(STREAM, new FlushStats());
        FlushListener perStream = new FlushListener() {
            @Override
            public void afterWatermarkUpdate(Warehouse.Target target, long newWatermark) {
                FlushStats stats = flushStats.get(target.stream());
                if (stats != null) {
                    stats.afterWatermarkUpdate(target, newWatermark);
                }
            }

            @Override
            public void beforeCommit(Warehouse.Target target, long newWatermark, int rows) {
                FlushStats stats = flushStats.get(target.stream());
                if (stats != null) {
                    stats.beforeCommit(target, newWatermark, rows);
                }
            }

            @Override
            public void afterCommit(Warehouse.Target target, long newWatermark) {
                FlushStats stats = flushStats.get(target.stream());
                if (stats != null) {
                    stats.afterCommit(target, newWatermark);
                }
            }
        };
        int batch = options.latencyBatch;
        long clickPeriod = Math.round(batch * 1e9 / options.rate);
        int clickSlots = (int) (options.latencySeconds * 1_000_000_000L / clickPeriod);
        double orderRate = options.rate * options.ordersPercent / 100.0;
        long orderPeriod = orderRate > 0 ? Math.round(batch * 1e9 / orderRate) : Long.MAX_VALUE;
        int orderSlots = orderRate > 0 ? (int) (options.latencySeconds * 1_000_000_000L / orderPeriod) : 0;
        ModelLatency result = new ModelLatency();
        try (Interlace server = start(dir, true, commits, DEFAULT_MAX_PENDING, options.flushBatchRows, perStream)) {
            URI sql = server.uri().resolve("/sql");
            // One query, so the four values of a poll are from one snapshot. Any error (a model table not created
            // yet) counts as "not yet" for all four.
            byte[] query = ("SELECT (SELECT max(click_offset) FROM clicks_enriched),"
                    + " (SELECT CAST(sum(orders) AS BIGINT) FROM revenue_summary),"
                    + " (SELECT max(_offset) FROM streams.clicks), (SELECT max(_offset) FROM streams.orders)")
                    .getBytes(StandardCharsets.UTF_8);
            Seen[] seen = {new Seen(), new Seen(), new Seen(), new Seen()};
            LatencyLog pollRoundTrips = new LatencyLog();
            AtomicLong polls = new AtomicLong();
            AtomicLong pollErrors = new AtomicLong();
            java.util.concurrent.atomic.AtomicBoolean stopPolling = new java.util.concurrent.atomic.AtomicBoolean();
            Thread poller = new Thread(() -> {
                try (RawHttpClient client = new RawHttpClient(sql, "text/plain")) {
                    while (!stopPolling.get()) {
                        long before = System.nanoTime();
                        RawHttpClient.Response response;
                        try {
                            response = client.post(query);
                        } catch (IOException e) {
                            pollErrors.incrementAndGet();
                            continue;
                        }
                        long after = System.nanoTime();
                        polls.incrementAndGet();
                        pollRoundTrips.add(after - before, 0);
                        long[] cells = response.status() == 200 ? firstRow(response.body(), 4) : null;
                        if (cells == null) {
                            if (pollErrors.incrementAndGet() <= 3) {
                                System.out.println("poll not answered yet: " + response.status() + " "
                                        + response.body());
                            }
                        } else {
                            for (int i = 0; i < 4; i++) {
                                seen[i].offer(cells[i], after);
                            }
                        }
                        java.util.concurrent.locks.LockSupport.parkNanos(options.pollMillis * 1_000_000L);
                    }
                }
            }, "bench-sql-poller");
            poller.setDaemon(true);
            poller.start();
            Thread.sleep(200);

            ThreadCpu threadsBefore = ThreadCpu.now();
            Cpu cpuStart = Cpu.now();
            long start = System.nanoTime() + 20_000_000L;
            long startWallMicros = System.currentTimeMillis() * 1000 + 20_000;
            OpenLoop clicks = new OpenLoop(server.uri().resolve("/streams/" + CLICKS), batch, clickPeriod, clickSlots,
                    PublishBenchmark::clicksBody);
            OpenLoop orders = new OpenLoop(publishUri(server), batch, orderPeriod, orderSlots,
                    n -> body(new String[n]));
            clicks.start(start, options.latencySenders, "bench-clicks-");
            if (orderSlots > 0) {
                orders.start(start, Math.max(1, options.latencySenders / 2), "bench-orders-");
            }
            clicks.join();
            orders.join();
            long publishEnd = System.nanoTime();
            long publishEndWallMicros = System.currentTimeMillis() * 1000;
            double[] cores = Cpu.now().since(cpuStart);
            result.threadCores = ThreadCpu.now().since(threadsBefore);
            long clicksHighest = clicks.highestOffset();
            long ordersHighest = orders.highestOffset();
            long giveUp = System.nanoTime() + 60_000_000_000L;
            while (System.nanoTime() < giveUp && !(seen[0].reached(clicksHighest) && seen[1].reached(ordersHighest))) {
                Thread.sleep(5);
            }
            result.drainSeconds = (System.nanoTime() - publishEnd) / 1e9;
            stopPolling.set(true);
            poller.join();
            ModelRunnerIdle.await(server);

            result.commits = commits.snapshot();
            result.clickFlushes = flushStats.get(CLICKS).snapshot();
            result.orderFlushes = flushStats.get(STREAM).snapshot();
            result.benchCores = cores[0];
            result.otherCores = cores[1];
            result.polls = polls.get();
            result.pollErrors = pollErrors.get();
            result.pollRoundTrips = pollRoundTrips;
            result.publishSeconds = (publishEnd - start) / 1e9;
            result.clicks = clicks;
            result.orders = orders;
            clicks.measure(seen[0], result.clickModel);
            clicks.measure(seen[2], result.clickQueryable);
            orders.measure(seen[1], result.orderModel);
            orders.measure(seen[3], result.orderQueryable);
            result.runs = fetchRuns(server);
            result.windowRuns = result.runs.stream().filter(run -> !run.trigger.equals("startup")
                    && run.queuedMicros >= startWallMicros && run.queuedMicros <= publishEndWallMicros).toList();
            result.deliveryRuns = result.runs.stream().filter(run -> !run.trigger.equals("startup")).toList();
            result.perModel = sql(server, "SELECT m.model, count(*), quantile_disc(m.duration_ms, 0.5),"
                    + " quantile_disc(m.duration_ms, 0.95), max(m.duration_ms), sum(m.duration_ms),"
                    + " CAST(avg(m.\"rows\") AS BIGINT) FROM interlace.run_models m JOIN interlace.runs r"
                    + " ON r.id = m.run_id WHERE r.\"trigger\" <> 'startup' GROUP BY m.model ORDER BY m.model");
            // Does a model run get slower as the model grows? clicks_enriched per 5 s of the window.
            result.growth = sql(server, "SELECT CAST(floor((epoch_ms(r.queued_at) - (SELECT min(epoch_ms(queued_at))"
                    + " FROM interlace.runs WHERE \"trigger\" <> 'startup')) / 5000) * 5 AS INTEGER), count(*),"
                    + " quantile_disc(m.duration_ms, 0.5), quantile_disc(m.duration_ms, 0.95),"
                    + " CAST(avg(m.\"rows\") AS BIGINT) FROM interlace.run_models m JOIN interlace.runs r ON r.id ="
                    + " m.run_id WHERE m.model = 'clicks_enriched' AND r.\"trigger\" <> 'startup' GROUP BY 1"
                    + " ORDER BY 1");
            result.check = sql(server, "SELECT (SELECT count(*) FROM clicks_enriched),"
                    + " (SELECT count(DISTINCT click_id) FROM clicks_enriched),"
                    + " (SELECT max(click_offset) FROM clicks_enriched), (SELECT orders FROM revenue_summary),"
                    + " (SELECT count(*) FROM streams.clicks), (SELECT count(*) FROM streams.orders),"
                    + " (SELECT watermark FROM interlace.model_watermarks WHERE model = 'clicks_enriched')");
            // Exactly once: offsets of streams.clicks that never reached clicks_enriched, as ranges.
            result.missing = sql(server, "SELECT min(_offset), max(_offset), count(*) FROM (SELECT _offset,"
                    + " _offset - row_number() OVER (ORDER BY _offset) AS g FROM streams.clicks WHERE _offset NOT IN"
                    + " (SELECT click_offset FROM clicks_enriched)) GROUP BY g ORDER BY 1 LIMIT 20");
        }
        deleteTree(dir);
        printModelLatency(result);
        return result;
    }

    private static final String CLICKS = "clicks";

    private static String clicksBody(int count) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        StringBuilder body = new StringBuilder(count * 80 + 2).append('[');
        for (int i = 0; i < count; i++) {
            long msb = (random.nextLong() & ~0xF000L) | 0x4000L;
            long lsb = (random.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
            body.append(i > 0 ? "," : "").append("{\"click_id\":\"").append(new UUID(msb, lsb))
                    .append("\",\"url\":\"/x\",\"at\":\"2026-11-29T08:00:00Z\"}");
        }
        return body.append(']').toString();
    }

    /** The cells of the first row of a {@code POST /sql} JSON result (SQL NULL as -1), or null when unreadable. */
    private static long[] firstRow(String body, int columns) {
        int at = body.indexOf("\"rows\":[[");
        if (at < 0) {
            return null;
        }
        int end = body.indexOf(']', at + 9);
        String[] cells = body.substring(at + 9, end < 0 ? body.length() : end).split(",");
        if (cells.length < columns) {
            return null;
        }
        long[] values = new long[columns];
        try {
            for (int i = 0; i < columns; i++) {
                String cell = cells[i].strip().replace("\"", "");
                values[i] = cell.equals("null") ? -1 : Long.parseLong(cell);
            }
        } catch (NumberFormatException e) {
            return null;
        }
        return values;
    }

    /** All runs from {@code GET /runs}, paged backwards with {@code until} (limit 1 000 per page). */
    private static List<RunInfo> fetchRuns(Interlace server) throws IOException {
        com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
        Map<String, RunInfo> runs = new LinkedHashMap<>();
        String until = null;
        for (int page = 0; page < 100; page++) {
            URI uri = server.uri().resolve("/runs?limit=1000" + (until == null ? "" : "&until=" + until));
            com.fasterxml.jackson.databind.JsonNode body;
            try (RawHttpClient client = new RawHttpClient(uri)) {
                RawHttpClient.Response response = client.get();
                if (response.status() != 200) {
                    throw new IOException("GET /runs: " + response.status() + " " + response.body());
                }
                body = json.readTree(response.body());
            }
            int added = 0;
            long oldest = Long.MAX_VALUE;
            for (com.fasterxml.jackson.databind.JsonNode node : body.get("runs")) {
                RunInfo run = new RunInfo(node);
                oldest = Math.min(oldest, run.queuedMicros);
                if (runs.putIfAbsent(run.id, run) == null) {
                    added++;
                }
            }
            if (added == 0 || body.get("runs").size() < 1000) {
                break;
            }
            until = Long.toString(oldest + 1); // queued_at < until; ties are deduplicated by id
        }
        List<RunInfo> list = new ArrayList<>(runs.values());
        list.sort(Comparator.comparingLong(run -> run.queuedMicros));
        return list;
    }

    private void printModelLatency(ModelLatency r) {
        System.out.println();
        System.out.printf("published clicks             %,d requests = %,d events in %.1f s = %,.0f events/s (target"
                + " %,d); errors %d; 429s %d%n", r.clicks.published(), r.clicks.events(), r.publishSeconds,
                r.clicks.events() / r.publishSeconds, options.rate, r.clicks.errors.get(), r.clicks.throttled.get());
        System.out.printf("published orders             %,d requests = %,d events = %,.0f events/s; errors %d;"
                + " 429s %d%n", r.orders.published(), r.orders.events(), r.orders.events() / r.publishSeconds,
                r.orders.errors.get(), r.orders.throttled.get());
        System.out.printf("sender lag (sent - due)      clicks p50 %s ms, p99 %s ms, max %s ms; orders p99 %s ms%n",
                ms(r.clicks.lag().percentile(50)), ms(r.clicks.lag().percentile(99)), ms(r.clicks.lag().max()),
                ms(r.orders.lag().percentile(99)));
        System.out.printf("polls                        %,d (%,.0f/s), errors %d; round trip p50 %s ms, p99 %s ms%n",
                r.polls, r.polls / r.publishSeconds, r.pollErrors, ms(r.pollRoundTrips.percentile(50)),
                ms(r.pollRoundTrips.percentile(99)));
        System.out.printf("drain                        last click and order seen in the models %.2f s after"
                + " publishing stopped%n", r.drainSeconds);
        System.out.printf("cpu                          %.2f cores this JVM, %.2f other processes%n", r.benchCores,
                r.otherCores);
        System.out.printf("threads (cores, publishing)  %s%n", r.threadCores);
        System.out.printf("log commits                  %,d (%.1f requests/commit, commit p50 %s ms)%n",
                r.commits.count, r.commits.requestsPerCommit(), ms(r.commits.durations.percentile(50)));
        System.out.printf("flusher clicks               %s%n", r.clickFlushes.describe());
        System.out.printf("flusher orders               %s%n", r.orderFlushes.describe());
        System.out.printf("never seen                   clicks in clicks_enriched %d, orders in revenue_summary %d%n",
                r.clickModel.neverSeen, r.orderModel.neverSeen);
        System.out.printf("check                        clicks_enriched count, distinct click_id, max(click_offset),"
                + " revenue_summary.orders, streams.clicks count, streams.orders count, clicks_enriched watermark"
                + " = %s (published %,d clicks, %,d orders)%n",
                r.check.replaceAll(".*\"rows\":\\[\\[([^]]*)]].*", "$1"), r.clicks.events(), r.orders.events());
        System.out.printf("clicks never in the model    ranges [first offset, last offset, count] (max 20): %s%n",
                r.missing.replaceAll(".*\"rows\":(\\[.*]).*", "$1"));
        System.out.println();
        System.out.println("| measure | n | p50 ms | p95 ms | p99 ms | p99.9 ms | max ms |");
        System.out.println("|---|---:|---:|---:|---:|---:|---:|");
        latencyRow("clicks: publish ack (send -> 200)", r.clicks.ack());
        latencyRow("clicks: publish -> queryable in streams.clicks", r.clickQueryable.fromSend);
        latencyRow("clicks: **publish -> clicks_enriched updated**", r.clickModel.fromSend);
        latencyRow("clicks: ack -> clicks_enriched updated", r.clickModel.fromAck);
        latencyRow("clicks: queryable -> clicks_enriched updated", difference(r.clickModel, r.clickQueryable));
        latencyRow("orders: publish -> queryable in streams.orders", r.orderQueryable.fromSend);
        latencyRow("orders: **publish -> revenue_summary updated**", r.orderModel.fromSend);
        System.out.println();
        printRuns("runs queued while publishing", r.windowRuns, r.publishSeconds);
        printRuns("runs until the last publish was in the models", r.deliveryRuns, Double.NaN);
        System.out.println("per model (non-startup runs): model, runs, duration_ms p50, p95, max, total, mean rows = "
                + r.perModel.replaceAll(".*\"rows\":(\\[\\[.*]]).*", "$1"));
        System.out.println("clicks_enriched by 5 s of queue time: [from s, runs, duration_ms p50, p95, mean rows] = "
                + r.growth.replaceAll(".*\"rows\":(\\[\\[.*]]).*", "$1"));
        System.out.println();
    }

    private static void printRuns(String title, List<RunInfo> runs, double seconds) {
        LatencyLog durations = new LatencyLog();
        LatencyLog waits = new LatencyLog();
        long triggers = 0;
        long clickTriggers = 0;
        long orderTriggers = 0;
        long failed = 0;
        for (RunInfo run : runs) {
            triggers += run.triggers.size();
            clickTriggers += run.triggers.stream().filter(t -> t.startsWith("stream:clicks:")).count();
            orderTriggers += run.triggers.stream().filter(t -> t.startsWith("stream:orders:")).count();
            failed += run.status.equals("succeeded") ? 0 : 1;
            if (run.durationMillis >= 0) {
                durations.add(run.durationMillis * 1_000_000L, 0);
                waits.add((run.startedMicros - run.queuedMicros) * 1_000L, 0);
            }
        }
        System.out.printf("%-28s %,d%s (not succeeded %d); triggers %,d (clicks %,d, orders %,d) = %.2f per run;"
                + " run duration_ms p50 %s, p95 %s, max %s; queued -> started p50 %s ms, p95 %s ms%n", title,
                runs.size(), Double.isNaN(seconds) ? "" : String.format(" (%.1f/s)", runs.size() / seconds), failed,
                triggers, clickTriggers, orderTriggers, runs.isEmpty() ? 0.0 : (double) triggers / runs.size(),
                ms(durations.percentile(50)), ms(durations.percentile(95)), ms(durations.max()),
                ms(waits.percentile(50)), ms(waits.percentile(95)));
    }

    /** Per publish: time from visible in the stream to visible in the model. */
    private static LatencyLog difference(Visibility later, Visibility earlier) {
        LatencyLog log = new LatencyLog();
        for (int i = 0; i < later.visibleAt.length; i++) {
            if (later.visibleAt[i] > 0 && earlier.visibleAt[i] > 0) {
                log.add(Math.max(0, later.visibleAt[i] - earlier.visibleAt[i]), 0);
            }
        }
        return log;
    }

    /** First response-arrival time at which each new maximum of one polled value was seen. */
    private static final class Seen {
        private long[] at = new long[1 << 12];
        private long[] max = new long[1 << 12];
        private int count;
        private long last = -1;

        synchronized void offer(long value, long arrival) {
            if (value <= last) {
                return;
            }
            last = value;
            if (count == at.length) {
                at = Arrays.copyOf(at, count * 2);
                max = Arrays.copyOf(max, count * 2);
            }
            at[count] = arrival;
            max[count] = value;
            count++;
        }

        synchronized boolean reached(long value) {
            return last >= value;
        }

        /** Arrival of the first poll showing at least {@code value}, or -1. */
        synchronized long firstAtLeast(long value) {
            int found = PublishBenchmark.firstAtLeast(Arrays.copyOf(max, count), value);
            return found < 0 ? -1 : at[found];
        }
    }

    /** Latencies of one open loop's publishes against one polled value. */
    private static final class Visibility {
        final LatencyLog fromSend = new LatencyLog();
        final LatencyLog fromAck = new LatencyLog();
        long[] visibleAt = new long[0];
        long neverSeen;
    }

    /**
     * An open-loop publisher: request {@code i} is due at {@code start + i * period}; sender threads take the slots in
     * order and send each when due (late only when all senders are busy). A 429 is counted and the slot dropped.
     */
    private final class OpenLoop {
        final URI uri;
        final int batch;
        final long period;
        final int slots;
        final java.util.function.IntFunction<String> bodies;
        final long[] due;
        final long[] sent;
        final long[] acked;
        final long[] lastOffset;
        final AtomicLong next = new AtomicLong();
        final AtomicLong errors = new AtomicLong();
        final AtomicLong throttled = new AtomicLong();
        final List<Thread> threads = new ArrayList<>();

        OpenLoop(URI uri, int batch, long period, int slots, java.util.function.IntFunction<String> bodies) {
            this.uri = uri;
            this.batch = batch;
            this.period = period;
            this.slots = slots;
            this.bodies = bodies;
            this.due = new long[slots];
            this.sent = new long[slots];
            this.acked = new long[slots];
            this.lastOffset = new long[slots];
        }

        void start(long start, int senders, String name) {
            for (int t = 0; t < senders; t++) {
                Thread sender = new Thread(() -> send(start), name + t);
                sender.setDaemon(true);
                threads.add(sender);
                sender.start();
            }
        }

        private void send(long start) {
            HttpClient jdk = options.rawClient ? null : HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                    .connectTimeout(Duration.ofSeconds(10)).build();
            try (RawHttpClient raw = options.rawClient ? new RawHttpClient(uri) : null) {
                for (int slot = (int) next.getAndIncrement(); slot < slots; slot = (int) next.getAndIncrement()) {
                    String body = bodies.apply(batch);
                    long at = start + slot * period;
                    due[slot] = at;
                    long wait;
                    while ((wait = at - System.nanoTime()) > 0) {
                        java.util.concurrent.locks.LockSupport.parkNanos(wait);
                    }
                    long before = System.nanoTime();
                    int status;
                    String text;
                    try {
                        if (raw != null) {
                            RawHttpClient.Response response = raw.post(body.getBytes(StandardCharsets.UTF_8));
                            status = response.status();
                            text = response.body();
                        } else {
                            HttpResponse<String> response = jdk.send(HttpRequest.newBuilder(uri)
                                    .timeout(Duration.ofSeconds(60)).header("Content-Type", "application/json")
                                    .POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                                    HttpResponse.BodyHandlers.ofString());
                            status = response.statusCode();
                            text = response.body();
                        }
                    } catch (IOException | InterruptedException e) {
                        errors.incrementAndGet();
                        continue;
                    }
                    long after = System.nanoTime();
                    if (status == 429) {
                        throttled.incrementAndGet();
                        continue;
                    }
                    if (status != 200 || acceptedCount(text) != batch) {
                        if (errors.incrementAndGet() <= 5) {
                            System.out.println("unexpected response " + status + " from " + uri + ": " + text);
                        }
                        continue;
                    }
                    sent[slot] = before;
                    acked[slot] = after;
                    lastOffset[slot] = longField(text, "last_offset");
                }
            }
        }

        void join() throws InterruptedException {
            for (Thread thread : threads) {
                thread.join();
            }
        }

        long highestOffset() {
            return Arrays.stream(lastOffset).max().orElse(0);
        }

        long published() {
            return Arrays.stream(sent).filter(s -> s != 0).count();
        }

        long events() {
            return published() * batch;
        }

        LatencyLog ack() {
            LatencyLog log = new LatencyLog();
            for (int i = 0; i < slots; i++) {
                if (sent[i] != 0) {
                    log.add(acked[i] - sent[i], 0);
                }
            }
            return log;
        }

        LatencyLog lag() {
            LatencyLog log = new LatencyLog();
            for (int i = 0; i < slots; i++) {
                if (sent[i] != 0) {
                    log.add(Math.max(0, sent[i] - due[i]), 0);
                }
            }
            return log;
        }

        void measure(Seen seen, Visibility into) {
            into.visibleAt = new long[slots];
            for (int i = 0; i < slots; i++) {
                if (sent[i] == 0) {
                    continue;
                }
                long at = seen.firstAtLeast(lastOffset[i]);
                if (at < 0) {
                    into.neverSeen++;
                    continue;
                }
                long visible = Math.max(at, acked[i]);
                into.visibleAt[i] = visible;
                into.fromSend.add(visible - sent[i], 0);
                into.fromAck.add(visible - acked[i], 0);
            }
        }
    }

    /** Waits (up to 30 s) until {@code GET /runs} shows no run queued or running, so all runs are recorded. */
    private static final class ModelRunnerIdle {
        static void await(Interlace server) throws Exception {
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (System.nanoTime() < deadline) {
                long busy = 0;
                for (String status : List.of("queued", "running")) {
                    try (RawHttpClient client = new RawHttpClient(
                            server.uri().resolve("/runs?limit=1&status=" + status))) {
                        busy += longField(client.get().body(), "total");
                    }
                }
                if (busy == 0) {
                    return;
                }
                Thread.sleep(20);
            }
            System.out.println("model runner still shows runs queued or running after 30 s: " + sql(server,
                    "SELECT id, status, \"trigger\", queued_at, started_at FROM interlace.runs WHERE status IN"
                    + " ('queued', 'running')"));
        }
    }

    /** One run of {@code GET /runs}. */
    private static final class RunInfo {
        final String id;
        final String trigger;
        final List<String> triggers = new ArrayList<>();
        final String status;
        final long queuedMicros;
        final long startedMicros;
        final long durationMillis;

        RunInfo(com.fasterxml.jackson.databind.JsonNode node) {
            id = node.get("id").asText();
            trigger = node.get("trigger").asText();
            node.get("triggers").forEach(t -> triggers.add(t.asText()));
            status = node.get("status").asText();
            queuedMicros = micros(node.get("queued_at"));
            startedMicros = micros(node.get("started_at"));
            durationMillis = node.get("duration_ms").isNull() ? -1 : node.get("duration_ms").asLong();
        }

        private static long micros(com.fasterxml.jackson.databind.JsonNode time) {
            if (time == null || time.isNull()) {
                return 0;
            }
            java.time.Instant instant = java.time.Instant.parse(time.asText());
            return instant.getEpochSecond() * 1_000_000L + instant.getNano() / 1_000;
        }
    }

    /** (g): one publish -> model-updated run. */
    private static final class ModelLatency {
        final Visibility clickModel = new Visibility();
        final Visibility clickQueryable = new Visibility();
        final Visibility orderModel = new Visibility();
        final Visibility orderQueryable = new Visibility();
        OpenLoop clicks;
        OpenLoop orders;
        LatencyLog pollRoundTrips;
        CommitStats.Snapshot commits;
        FlushStats.Snapshot clickFlushes;
        FlushStats.Snapshot orderFlushes;
        List<RunInfo> runs;
        List<RunInfo> windowRuns;
        List<RunInfo> deliveryRuns;
        String perModel;
        String check;
        String missing;
        String growth;
        String threadCores;
        long polls;
        long pollErrors;
        double publishSeconds;
        double drainSeconds;
        double benchCores;
        double otherCores;
    }

    /** CPU time per thread name (summed over threads of the same name pattern) from {@code /proc/self/task}. */
    private static final class ThreadCpu {
        final Map<String, Long> ticks;
        final long wallNanos;

        private ThreadCpu(Map<String, Long> ticks, long wallNanos) {
            this.ticks = ticks;
            this.wallNanos = wallNanos;
        }

        static ThreadCpu now() {
            Map<String, Long> ticks = new java.util.HashMap<>();
            try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
                for (Path task : tasks.toList()) {
                    try {
                        String stat = Files.readString(task.resolve("stat"));
                        int close = stat.lastIndexOf(')');
                        String name = stat.substring(stat.indexOf('(') + 1, close).replaceAll("[-#]?\\d+$", "")
                                .replaceAll("\\d+$", "");
                        String[] fields = stat.substring(close + 2).split(" ");
                        long used = Long.parseLong(fields[11]) + Long.parseLong(fields[12]); // utime + stime
                        ticks.merge(task.getFileName() + "\u0000" + name, used, Long::sum);
                    } catch (IOException | RuntimeException e) {
                        // thread ended meanwhile
                    }
                }
            } catch (IOException e) {
                return new ThreadCpu(Map.of(), System.nanoTime());
            }
            return new ThreadCpu(ticks, System.nanoTime());
        }

        /** "name cores, ..." for the busiest thread groups between {@code start} and this. */
        String since(ThreadCpu start) {
            ThreadCpu end = now();
            double seconds = (end.wallNanos - start.wallNanos) / 1e9;
            Map<String, Double> byName = new java.util.HashMap<>();
            for (Map.Entry<String, Long> entry : end.ticks.entrySet()) {
                long before = start.ticks.getOrDefault(entry.getKey(), 0L);
                String name = entry.getKey().substring(entry.getKey().indexOf('\u0000') + 1);
                byName.merge(name, (entry.getValue() - before) / 100.0 / seconds, Double::sum);
            }
            return byName.entrySet().stream().sorted(Map.Entry.<String, Double>comparingByValue().reversed())
                    .filter(e -> e.getValue() >= 0.01).limit(12)
                    .map(e -> String.format(Locale.ROOT, "%s %.2f", e.getKey(), e.getValue()))
                    .collect(Collectors.joining(", "));
        }
    }

    // ------------------------------------------------------------------------------------------ (e) drain

    /**
     * Builds a backlog the flusher may not materialise (a {@link FlushListener} that throws in
     * {@code beforeCommit}, so every flush rolls back), closes the server, and then for each
     * {@code --drain-batch-rows} starts a normal server on a copy of that directory and times the drain.
     */
    private List<Drain> runDrain() throws Exception {
        Path base = fresh("e-backlog");
        java.util.logging.Logger flusherLog = java.util.logging.Logger.getLogger(
                "dev.interlace.runtime.flush.Flusher");
        java.util.logging.Level level = flusherLog.getLevel();
        flusherLog.setLevel(java.util.logging.Level.OFF);
        long backlog;
        try (Interlace server = start(base, true, null, NO_BACKPRESSURE, options.flushBatchRows,
                new FlushListener() {
                    @Override
                    public void beforeCommit(Warehouse.Target target, long newWatermark,
                            int rows) {
                        throw new IllegalStateException("benchmark: the backlog stays unflushed");
                    }
                })) {
            long started = System.nanoTime();
            Run run = drive(server, options.batchClients, 1000, Long.MAX_VALUE, options.backlog, null, 1);
            backlog = pending(server);
            System.out.printf("backlog built: %,d events published in %.1f s (%,.0f events/s, errors %d); pending %,d;"
                    + " flush_state %s%n", run.events, (System.nanoTime() - started) / 1e9, run.eventsPerSecond(),
                    run.errors, backlog, streamField(server, "flush_state"));
        } finally {
            flusherLog.setLevel(level);
        }
        List<Drain> results = new ArrayList<>();
        for (int rows : options.drainBatchRows) {
            Path dir = fresh("e-" + rows);
            copyTree(base, dir);
            FlushStats flushes = new FlushStats();
            Drain drain = new Drain(rows, backlog);
            Cpu cpuStart = Cpu.now();
            long t0 = System.nanoTime();
            try (Interlace server = start(dir, true, null, DEFAULT_MAX_PENDING, rows, flushes)) {
                drain.startNanos = System.nanoTime() - t0;
                long done = waitForPending(server, 0, 1800);
                drain.wallNanos = done - t0;
                double[] cores = Cpu.now().since(cpuStart);
                drain.benchCores = cores[0];
                drain.otherCores = cores[1];
                drain.flushes = flushes.snapshot();
                String check = sql(server, "SELECT count(*), max(_offset), count(DISTINCT _offset) FROM streams.orders");
                drain.check = check.replaceAll(".*\"rows\":\\[\\[([^]]*)]].*", "$1");
                drain.warehouseBytes = size(dir.resolve("warehouse.duckdb"));
            }
            deleteTree(dir);
            System.out.printf("--flush-batch-rows %d: %,d rows; start() %.2f s; pending 0 after %.2f s from start()"
                    + " -> %,.0f rows/s; between first and last flush commit %,.0f rows/s; cpu %.2f this JVM, %.2f"
                    + " other; count, max(_offset), distinct offsets = %s; warehouse %,d B%n  %s%n", rows, backlog,
                    drain.startNanos / 1e9, drain.wallNanos / 1e9, drain.rowsPerSecond(), drain.flushes.steadyRate(),
                    drain.benchCores, drain.otherCores, drain.check, drain.warehouseBytes, drain.flushes.describe());
            results.add(drain);
        }
        deleteTree(base);
        return results;
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> paths = Files.walk(from)) {
            for (Path path : paths.toList()) {
                Path target = to.resolve(from.relativize(path).toString());
                if (Files.isDirectory(path)) {
                    Files.createDirectories(target);
                } else if (!path.getFileName().toString().equals("lock")) {
                    Files.copy(path, target, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
    }

    // ------------------------------------------------------------------------------------------ small HTTP helpers

    private static String streamField(Interlace server, String field) throws IOException {
        try (RawHttpClient client = new RawHttpClient(server.uri().resolve("/streams/" + STREAM))) {
            String body = client.get().body();
            int at = body.indexOf("\"" + field + "\":");
            if (at < 0) {
                return null;
            }
            String rest = body.substring(at + field.length() + 3);
            int end = 0;
            while (end < rest.length() && rest.charAt(end) != ',' && rest.charAt(end) != '}') {
                end++;
            }
            return rest.substring(0, end).replace("\"", "");
        }
    }

    private static long pending(Interlace server) throws IOException {
        return Long.parseLong(streamField(server, "pending"));
    }

    /** Polls {@code GET /streams/orders} every 10 ms until {@code pending <= target}; returns that moment. */
    private static long waitForPending(Interlace server, long target, int timeoutSeconds) throws Exception {
        long deadline = System.nanoTime() + timeoutSeconds * 1_000_000_000L;
        try (RawHttpClient client = new RawHttpClient(server.uri().resolve("/streams/" + STREAM))) {
            while (System.nanoTime() < deadline) {
                long value = longField(client.get().body(), "pending");
                long now = System.nanoTime();
                if (value <= target) {
                    return now;
                }
                Thread.sleep(10);
            }
        }
        throw new IllegalStateException("pending did not reach " + target + " in " + timeoutSeconds + " s");
    }

    private static String sql(Interlace server, String query) throws IOException {
        try (RawHttpClient client = new RawHttpClient(server.uri().resolve("/sql"), "text/plain")) {
            return client.post(query.getBytes(StandardCharsets.UTF_8)).body();
        }
    }

    /** A top-level numeric field of a JSON response, e.g. {@code "last_offset":123}. */
    private static long longField(String body, String field) {
        int at = body.indexOf("\"" + field + "\":");
        if (at < 0) {
            return -1;
        }
        int from = at + field.length() + 3;
        int to = from;
        while (to < body.length() && (Character.isDigit(body.charAt(to)) || body.charAt(to) == '-')) {
            to++;
        }
        return to == from ? -1 : Long.parseLong(body.substring(from, to));
    }

    /** The first cell of a {@code POST /sql} JSON result, {@code -1} for SQL NULL, {@code -2} when unreadable. */
    private static long firstCell(String body) {
        int at = body.indexOf("\"rows\":[[");
        if (at < 0) {
            return -2;
        }
        int from = at + 9;
        if (body.startsWith("null", from)) {
            return -1;
        }
        int to = from;
        while (to < body.length() && Character.isDigit(body.charAt(to))) {
            to++;
        }
        return to == from ? -2 : Long.parseLong(body.substring(from, to));
    }

    // ------------------------------------------------------------------------------------------ summary

    private void printSummary() {
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
                        ms(on.run.latency.percentile(99)), ms(off.run.latency.percentile(99)));
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
            double p99 = on64.run.latency.percentile(99) / 1e6;
            target("(a) 64 clients ack p99 <= 25 ms", String.format("%.2f ms", p99), p99 <= 25);
        }
        Fixed on1 = groupCommit.get(1);
        if (on1 != null) {
            double p99 = on1.run.latency.percentile(99) / 1e6;
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
                            ms(m.on.latency.percentile(99)), ms(m.off.latency.percentile(99)),
                            m.on.cpuMicrosPerRequest(), m.off.cpuMicrosPerRequest()), null);
            double side = m.sideBySideRatio();
            target(label + ", side by side: publish throughput with " + m.feature.with + " within 5 % of without",
                    String.format("%.3fx", side), side >= 0.95);
        }
        for (Drain d : drains) {
            target("(e) flush >= 250 000 rows/s (backlog " + d.rows + ", --flush-batch-rows " + d.batchRows + ")",
                    String.format("%,.0f rows/s from start(); %,.0f between first and last commit", d.rowsPerSecond(),
                            d.flushes.steadyRate()), d.rowsPerSecond() >= 250_000);
        }
        for (Batched b : flushed.values()) {
            target("(f) batch " + b.batch + ", default --max-pending: throughput",
                    String.format("%,.0f events/s overall, last interval %,.0f; %,d responses 429",
                            b.run.eventsPerSecond(), b.lastRate(), b.run.throttled), null);
        }
        for (Batched b : flushed.values()) {
            batchTargets("(f)", b);
        }
        for (Batched b : batched.values()) {
            batchTargets("(b)", b);
        }
        System.out.println();
    }

    private static void batchTargets(String scenario, Batched b) {
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

    private static void target(String name, String measured, Boolean met) {
        System.out.printf("| %s | %s | %s |%n", name, measured, met == null ? "n/a" : met ? "yes" : "**no**");
    }

    // ------------------------------------------------------------------------------------------ load generation

    /**
     * Runs {@code clients} closed-loop keep-alive clients, each with its own {@link HttpClient} (so its own
     * connection), sending requests of {@code batch} events with fresh random keys back to back until
     * {@code deadline} passes or {@code maxEvents} events have been accepted.
     */
    private Run drive(Interlace server, int clients, int batch, long deadline, long maxEvents, Checkpoints checkpoints,
            int buckets) throws InterruptedException {
        URI uri = publishUri(server);
        AtomicLong accepted = new AtomicLong();
        AtomicLong errors = new AtomicLong();
        AtomicLong throttled = new AtomicLong();
        AtomicLong throttledNanos = new AtomicLong();
        AtomicReferenceArray<String> lastKeys = new AtomicReferenceArray<>(clients);
        LatencyLog[] logs = new LatencyLog[clients];
        CountDownLatch ready = new CountDownLatch(clients);
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            int index = c;
            logs[c] = new LatencyLog();
            Thread thread = new Thread(() -> {
                HttpClient client = options.rawClient ? null : HttpClient.newBuilder()
                        .version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10)).build();
                RawHttpClient raw = options.rawClient ? new RawHttpClient(uri) : null;
                LatencyLog log = logs[index];
                ready.countDown();
                try {
                    go.await();
                    while (System.nanoTime() < deadline && accepted.get() < maxEvents) {
                        String[] keys = new String[batch];
                        String body = body(keys);
                        int bucket = checkpoints == null ? 0 : checkpoints.bucketOf(accepted.get());
                        long start;
                        int status;
                        String text;
                        try {
                            while (true) {
                                int retryAfter;
                                if (raw != null) {
                                    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
                                    start = System.nanoTime();
                                    RawHttpClient.Response response = raw.post(bytes);
                                    status = response.status();
                                    text = response.body();
                                    retryAfter = response.retryAfter();
                                } else {
                                    HttpRequest request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(60))
                                            .header("Content-Type", "application/json")
                                            .POST(HttpRequest.BodyPublishers.ofString(body)).build();
                                    start = System.nanoTime();
                                    HttpResponse<String> response = client.send(request,
                                            HttpResponse.BodyHandlers.ofString());
                                    status = response.statusCode();
                                    text = response.body();
                                    retryAfter = response.headers().firstValue("Retry-After").map(Integer::parseInt)
                                            .orElse(-1);
                                }
                                if (status != 429) {
                                    break;
                                }
                                // Backpressure: nothing was stored; honour Retry-After, then send the same batch.
                                throttled.incrementAndGet();
                                long sleep = Math.max(1, retryAfter) * 1000L;
                                long slept = System.nanoTime();
                                Thread.sleep(sleep);
                                throttledNanos.addAndGet(System.nanoTime() - slept);
                            }
                        } catch (IOException e) {
                            errors.incrementAndGet();
                            continue;
                        }
                        long end = System.nanoTime();
                        if (status != 200 || acceptedCount(text) != batch) {
                            if (errors.incrementAndGet() <= 5) {
                                System.out.println("unexpected response " + status + ": " + text);
                            }
                            continue;
                        }
                        log.add(end - start, bucket);
                        lastKeys.set(index, keys[batch - 1]);
                        long total = accepted.addAndGet(batch);
                        if (checkpoints != null) {
                            checkpoints.reached(total, end);
                        }
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (Exception e) {
                    errors.incrementAndGet();
                    System.out.println("client " + index + " failed: " + e);
                } finally {
                    if (raw != null) {
                        raw.close();
                    }
                }
            }, "bench-client-" + c);
            thread.setDaemon(true);
            threads.add(thread);
            thread.start();
        }
        ready.await();
        long start = System.nanoTime();
        if (checkpoints != null) {
            checkpoints.start(start);
        }
        Cpu cpuStart = Cpu.now();
        go.countDown();
        for (Thread thread : threads) {
            thread.join();
        }
        long nanos = System.nanoTime() - start;
        double[] cores = Cpu.now().since(cpuStart);
        LatencyLog all = LatencyLog.merge(logs, buckets);
        String lastKey = null;
        for (int c = 0; c < clients; c++) {
            lastKey = lastKey != null ? lastKey : lastKeys.get(c);
        }
        return new Run(all.size(), accepted.get(), errors.get(), nanos, all, lastKey, cores[0], cores[1],
                throttled.get(), throttledNanos.get());
    }

    private static String body(String[] keys) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        StringBuilder body = new StringBuilder(keys.length * 52 + 2);
        if (keys.length > 1) {
            body.append('[');
        }
        for (int i = 0; i < keys.length; i++) {
            // UUIDv4: 122 random bits with the version and variant bits set.
            long msb = (random.nextLong() & ~0xF000L) | 0x4000L;
            long lsb = (random.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
            keys[i] = new UUID(msb, lsb).toString();
            if (i > 0) {
                body.append(',');
            }
            body.append("{\"order_id\":\"").append(keys[i]).append("\",\"total\":1.5}");
        }
        if (keys.length > 1) {
            body.append(']');
        }
        return body.toString();
    }

    private static long acceptedCount(String body) {
        int at = body.indexOf("\"accepted\":");
        if (at < 0) {
            return -1;
        }
        int from = at + "\"accepted\":".length();
        int to = from;
        while (to < body.length() && Character.isDigit(body.charAt(to))) {
            to++;
        }
        return Long.parseLong(body.substring(from, to));
    }

    private static URI publishUri(Interlace server) {
        return server.uri().resolve("/streams/" + STREAM);
    }

    // ------------------------------------------------------------------------------------------ server

    /** A server with the default {@code --max-pending} and the benchmark's flush settings. */
    private Interlace start(Path dir, boolean group, CommitListener listener) {
        return start(dir, group, listener, DEFAULT_MAX_PENDING, options.flushBatchRows, null);
    }

    private Interlace start(Path dir, boolean group, CommitListener listener, long maxPending, int flushBatchRows,
            FlushListener flushListener) {
        return start(dir, group, listener, maxPending, flushBatchRows, flushListener, null);
    }

    private Interlace start(Path dir, boolean group, CommitListener listener, long maxPending, int flushBatchRows,
            FlushListener flushListener, com.google.inject.Module extra) {
        InterlaceConfig config = ConfigLoader.load(new String[] {"--port", "0", "--data-dir", dir.toString(),
                "--max-pending", Long.toString(maxPending), "--max-events-per-request", "10000",
                "--flush-delay-ms", Long.toString(options.flushDelayMillis),
                "--flush-batch-rows", Integer.toString(flushBatchRows)}, Map.of()).config();
        Interlace.Builder builder = Interlace.builder().config(config);
        List<com.google.inject.Module> overrides = new ArrayList<>();
        if (flushListener != null) {
            overrides.add(new AbstractModule() {
                @Override
                protected void configure() {
                    Multibinder.newSetBinder(binder(), FlushListener.class).addBinding().toInstance(flushListener);
                }
            });
        }
        if (!group) {
            overrides.add(new OneRequestPerCommit(config.maxPending()));
        }
        if (listener != null) {
            overrides.add(new AbstractModule() {
                @Override
                protected void configure() {
                    Multibinder.newSetBinder(binder(), CommitListener.class).addBinding().toInstance(listener);
                }
            });
        }
        if (extra != null) {
            overrides.add(extra);
        }
        return builder.override(overrides.toArray(new com.google.inject.Module[0])).start();
    }

    /** Baseline (c): the log commits every request in its own transaction (one fsync per request). */
    static final class OneRequestPerCommit extends AbstractModule {
        private final long maxPending;

        OneRequestPerCommit(long maxPending) {
            this.maxPending = maxPending;
        }

        @Provides
        @Singleton
        LogSettings settings() {
            return new LogSettings(maxPending, 256L << 20, 1, true);
        }
    }

    private Path fresh(String name) throws IOException {
        Path dir = root.resolve(name);
        deleteTree(dir);
        return Files.createDirectories(dir);
    }

    private static long usedHeapAfterGc() {
        Runtime runtime = Runtime.getRuntime();
        for (int i = 0; i < 3; i++) {
            System.gc();
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return runtime.totalMemory() - runtime.freeMemory();
    }

    private static long size(Path file) {
        try {
            return Files.exists(file) ? Files.size(file) : 0;
        } catch (IOException e) {
            return -1;
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }

    private static void section(String title) {
        System.out.println();
        System.out.println("== " + title);
    }

    private static String ms(double nanos) {
        return String.format(Locale.ROOT, "%.2f", nanos / 1e6);
    }

    // ------------------------------------------------------------------------------------------ records

    private record Run(long requests, long events, long errors, long nanos, LatencyLog latency, String lastKey,
            double benchCores, double otherCores, long throttled, long throttledNanos) {
        double seconds() {
            return nanos / 1e9;
        }

        double eventsPerSecond() {
            return events / seconds();
        }
    }

    private record Fixed(int clients, Run run, CommitStats.Snapshot commits) {}

    private static final class Batched {
        final int batch;
        Run run;
        Checkpoints checkpoints;
        CommitStats.Snapshot commits;
        long keys;
        long heapBefore;
        long heapAfter;
        long heapRestarted;
        long dbBytes;
        long walBytes;
        long walPeak;
        long closedDbBytes;
        long closedWalBytes;
        long startupNanos;
        boolean replayIsDuplicate;
        long pendingAtEnd;
        long catchUpNanos;
        long warehouseBytes;
        FlushStats.Snapshot flushes;

        Batched(int batch) {
            this.batch = batch;
        }

        double heapPerKey() {
            return (double) (heapAfter - heapBefore) / keys;
        }

        double diskPerKey() {
            return (double) (dbBytes + walBytes) / keys;
        }

        double minRateUpTo(long keysBound) {
            double min = Double.MAX_VALUE;
            for (int i = 0; i < checkpoints.buckets() && checkpoints.boundary(i) <= keysBound; i++) {
                if (checkpoints.nanosAt(i) != 0) {
                    min = Math.min(min, checkpoints.intervalRate(i));
                }
            }
            return min == Double.MAX_VALUE ? 0 : min;
        }

        double lastRate() {
            for (int i = checkpoints.buckets() - 1; i >= 0; i--) {
                if (checkpoints.nanosAt(i) != 0) {
                    return checkpoints.intervalRate(i);
                }
            }
            return 0;
        }
    }

    /**
     * When the count of accepted keys first reached each boundary ({@code step}, {@code 2 step}, ... and finally
     * {@code total}), and the exact count at that moment.
     */
    private static final class Checkpoints {
        private final long step;
        private final long total;
        private final long[] nanos;
        private final long[] keys;
        private long start;

        Checkpoints(long total, long step) {
            this.step = step;
            this.total = total;
            int count = (int) ((total + step - 1) / step);
            this.nanos = new long[count];
            this.keys = new long[count];
        }

        void start(long startNanos) {
            this.start = startNanos;
        }

        int buckets() {
            return nanos.length;
        }

        private long boundary(int i) {
            return Math.min((i + 1) * step, total);
        }

        int bucketOf(long acceptedSoFar) {
            return (int) Math.min(acceptedSoFar / step, nanos.length - 1);
        }

        synchronized void reached(long accepted, long at) {
            for (int i = 0; i < nanos.length && boundary(i) <= accepted; i++) {
                if (nanos[i] == 0) {
                    nanos[i] = at;
                    keys[i] = accepted;
                }
            }
        }

        synchronized long nanosAt(int i) {
            return nanos[i];
        }

        synchronized long keysAt(int i) {
            return keys[i] != 0 ? keys[i] : boundary(i);
        }

        synchronized double intervalRate(int i) {
            long previousKeys = i == 0 ? 0 : keys[i - 1];
            long previousNanos = i == 0 ? start : nanos[i - 1];
            return (keys[i] - previousKeys) / ((nanos[i] - previousNanos) / 1e9);
        }

        synchronized double cumulativeRate(int i) {
            return keys[i] / ((nanos[i] - start) / 1e9);
        }

        /** Mean events/s from the start to the first checkpoint at or past {@code bound} keys. */
        synchronized double rateThrough(long bound) {
            for (int i = 0; i < nanos.length; i++) {
                if (nanos[i] != 0 && keys[i] >= bound) {
                    return cumulativeRate(i);
                }
            }
            return 0;
        }
    }

    /** Request latencies in nanoseconds with a bucket (keys-in-window interval) each; sorted when read. */
    static final class LatencyLog {
        private long[] values = new long[1024];
        private int[] buckets = new int[1024];
        private int size;
        private boolean sorted;

        void add(long nanos, int bucket) {
            if (size == values.length) {
                values = Arrays.copyOf(values, size * 2);
                buckets = Arrays.copyOf(buckets, size * 2);
            }
            values[size] = nanos;
            buckets[size] = bucket;
            size++;
            sorted = false;
        }

        int size() {
            return size;
        }

        static LatencyLog merge(LatencyLog[] logs, int bucketCount) {
            LatencyLog merged = new LatencyLog();
            merged.perBucket = new LatencyLog[bucketCount];
            for (int b = 0; b < bucketCount; b++) {
                merged.perBucket[b] = new LatencyLog();
            }
            for (LatencyLog log : logs) {
                for (int i = 0; i < log.size; i++) {
                    merged.add(log.values[i], log.buckets[i]);
                    merged.perBucket[Math.min(log.buckets[i], bucketCount - 1)].add(log.values[i], 0);
                }
            }
            return merged;
        }

        private LatencyLog[] perBucket;

        LatencyLog bucket(int index) {
            return perBucket == null ? this : perBucket[index];
        }

        /** Nearest-rank percentile, in nanoseconds; NaN when empty. */
        double percentile(double p) {
            if (size == 0) {
                return Double.NaN;
            }
            sort();
            int rank = (int) Math.ceil(p / 100.0 * size);
            return values[Math.max(0, Math.min(size - 1, rank - 1))];
        }

        double max() {
            return percentile(100);
        }

        private void sort() {
            if (!sorted) {
                // Buckets are not needed once values are sorted for percentiles (merge keeps them per bucket).
                Arrays.sort(values, 0, size);
                sorted = true;
            }
        }
    }

    /** (d): one open-loop latency run. */
    private static final class Latency {
        final LatencyLog ack = new LatencyLog();
        final LatencyLog queryable = new LatencyLog();
        final LatencyLog afterAck = new LatencyLog();
        final LatencyLog sendLag = new LatencyLog();
        LatencyLog pollRoundTrips;
        CommitStats.Snapshot commits;
        FlushStats.Snapshot flushes;
        long published;
        long events;
        long errors;
        long throttled;
        long polls;
        long pollErrors;
        long neverSeen;
        double publishSeconds;
        double benchCores;
        double otherCores;
    }

    /** (e): one drain of the backlog. */
    private static final class Drain {
        final int batchRows;
        final long rows;
        long startNanos;
        long wallNanos;
        double benchCores;
        double otherCores;
        FlushStats.Snapshot flushes;
        String check;
        long warehouseBytes;

        Drain(int batchRows, long rows) {
            this.batchRows = batchRows;
            this.rows = rows;
        }

        double rowsPerSecond() {
            return rows / (wallNanos / 1e9);
        }
    }

    /**
     * Flushes of the events table, timed from the flusher's listener: "read" is from the previous commit to the
     * watermark compare-and-set (log read, decode, CAS; in steady state also the idle wait), "append" is the
     * Appender, "commit" is DuckDB's commit.
     */
    static final class FlushStats implements FlushListener {
        private long begin;
        private long appended;
        private long lastEnd;
        private int pendingRows;
        private long count;
        private long rows;
        private long firstEnd;
        private long firstRows;
        private long readNanos;
        private long appendNanos;
        private long commitNanos;
        private long rowsFromLog;
        private final LatencyLog read = new LatencyLog();
        private final LatencyLog append = new LatencyLog();
        private final LatencyLog commit = new LatencyLog();

        @Override
        public synchronized void afterWatermarkUpdate(Warehouse.Target target, long newWatermark) {
            if (!target.quarantine()) {
                begin = System.nanoTime();
            }
        }

        @Override
        public synchronized void beforeCommit(Warehouse.Target target, long newWatermark, int batchRows) {
            if (!target.quarantine()) {
                appended = System.nanoTime();
                pendingRows = batchRows;
            }
        }

        @Override
        public synchronized void afterCommit(Warehouse.Target target, long newWatermark) {
            if (target.quarantine()) {
                return;
            }
            long end = System.nanoTime();
            if (count == 0) {
                firstEnd = end;
                firstRows = pendingRows;
            } else {
                read.add(begin - lastEnd, 0);
                readNanos += begin - lastEnd;
            }
            append.add(appended - begin, 0);
            appendNanos += appended - begin;
            commit.add(end - appended, 0);
            commitNanos += end - appended;
            count++;
            rows += pendingRows;
            lastEnd = end;
        }

        @Override
        public synchronized void committedFromLog(Warehouse.Target target, int batchRows) {
            rowsFromLog += batchRows;
        }

        synchronized Snapshot snapshot() {
            return new Snapshot(count, rows, count < 2 ? Double.NaN : (rows - firstRows) / ((lastEnd - firstEnd) / 1e9),
                    String.format(Locale.ROOT, "%,d flush commits, %,.0f rows/commit (%,d read back from the log, the"
                            + " rest kept in memory); per commit p50: read+decode+CAS %s ms (after the first), append"
                            + " %s ms, commit %s ms; totals %.2f / %.2f / %.2f s",
                            count, count == 0 ? 0.0 : (double) rows / count, rowsFromLog, ms(read.percentile(50)),
                            ms(append.percentile(50)), ms(commit.percentile(50)), readNanos / 1e9, appendNanos / 1e9,
                            commitNanos / 1e9));
        }

        record Snapshot(long count, long rows, double steadyRate, String text) {
            String describe() {
                return text;
            }
        }
    }

    /** Group commits seen by the log's writer thread: requests and entries per commit, and commit+fsync time. */
    static final class CommitStats implements CommitListener {
        private long count;
        private long requests;
        private long entries;
        private long totalNanos;
        private long startedAt;
        private final LatencyLog durations = new LatencyLog();

        @Override
        public synchronized void beforeCommit(int groupRequests, int groupEntries) {
            startedAt = System.nanoTime();
        }

        @Override
        public synchronized void afterCommit(int groupRequests, int groupEntries) {
            long nanos = System.nanoTime() - startedAt;
            count++;
            requests += groupRequests;
            entries += groupEntries;
            totalNanos += nanos;
            durations.add(nanos, 0);
        }

        synchronized Snapshot snapshot() {
            LatencyLog copy = new LatencyLog();
            for (int i = 0; i < durations.size; i++) {
                copy.add(durations.values[i], 0);
            }
            return new Snapshot(count, requests, entries, totalNanos, copy);
        }

        record Snapshot(long count, long requests, long entries, long totalNanos, LatencyLog durations) {
            double requestsPerCommit() {
                return count == 0 ? 0 : (double) requests / count;
            }

            double entriesPerCommit() {
                return count == 0 ? 0 : (double) entries / count;
            }
        }
    }

    /**
     * CPU used during a measurement: by this JVM (server and load generator) and by everything else on the machine
     * (from /proc/stat), in cores. "Other" well above zero means the run was disturbed.
     */
    record Cpu(long processNanos, long busyTicks, long wallNanos) {
        static Cpu now() {
            long process = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                    .getProcessCpuTime();
            long busy = -1;
            try {
                String[] fields = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
                busy = 0;
                // user nice system idle iowait irq softirq steal: everything but idle and iowait is busy.
                for (int i = 1; i <= 8 && i < fields.length; i++) {
                    if (i != 4 && i != 5) {
                        busy += Long.parseLong(fields[i]);
                    }
                }
            } catch (IOException | RuntimeException e) {
                busy = -1;
            }
            return new Cpu(process, busy, System.nanoTime());
        }

        /** {benchCores, otherCores} between {@code start} and this. */
        double[] since(Cpu start) {
            double seconds = (wallNanos - start.wallNanos) / 1e9;
            double bench = (processNanos - start.processNanos) / 1e9 / seconds;
            if (busyTicks < 0 || start.busyTicks < 0) {
                return new double[] {bench, Double.NaN};
            }
            double machine = (busyTicks - start.busyTicks) / 100.0 / seconds; // USER_HZ = 100
            return new double[] {bench, Math.max(0, machine - bench)};
        }
    }

    /** Samples the WAL's size every 200 ms and keeps the peak. */
    private static final class WalWatch extends Thread {
        private final Path wal;
        volatile long peak;

        WalWatch(Path wal) {
            super("bench-wal-watch");
            this.wal = wal;
            setDaemon(true);
        }

        @Override
        public void run() {
            while (!isInterrupted()) {
                peak = Math.max(peak, size(wal));
                try {
                    Thread.sleep(200);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    // ------------------------------------------------------------------------------------------ options

    static final class Options {
        static final String USAGE = String.join("\n",
                "usage: java -cp examples/target/interlace-examples.jar dev.interlace.examples.bench.PublishBenchmark"
                        + " [options]",
                "  --seconds N          length of each (a)/(c) run (default 30)",
                "  --keys N             keys in the dedup window at which each (b) run stops (default 5000000)",
                "  --clients LIST       client counts for (a) and (c) (default 1,16,64)",
                "  --batches LIST       batch sizes for (b) (default 100,1000)",
                "  --batch-clients N    concurrent clients in (b) (default 8)",
                "  --steps N            (b) reports throughput every keys/N keys (default 20)",
                "  --warmup N           seconds of unmeasured JIT warm-up on a throwaway dir (default 10)",
                "  --scenarios LIST     which of a,b,c,d,e,f,g,h,i,j to run, in the order given (default a,c,d,e,f,g)",
                "  --data-root DIR      where the fresh data dirs go (default a new temp dir, removed at the end)",
                "  --client KIND        load generator: jdk (java.net.http.HttpClient, default) or raw (a minimal",
                "                       blocking HTTP/1.1 keep-alive socket client, to measure the JDK client's cost)",
                "  --flush-delay-ms N   the server's --flush-delay-ms in every scenario (default 50)",
                "  --flush-batch-rows N the server's --flush-batch-rows in (a)-(d) and (f) (default 20000)",
                "  --rate N             (d) events/s of the open-loop publisher (default 5000)",
                "  --latency-batch N    (d) events per request (default 50: one request every 10 ms at 5000/s)",
                "  --latency-seconds N  (d) how long to publish (default 30)",
                "  --latency-senders N  (d) sender threads taking the scheduled slots (default 4)",
                "  --poll-ms N          (d)/(g) pause between two polls (default 2)",
                "  --orders-percent N   (g) orders published alongside the clicks, % of --rate (default 10; 0 = none)",
                "  --backlog N          (e) events in the backlog (default 1000000)",
                "  --drain-batch-rows LIST  (e) --flush-batch-rows values to drain the backlog with (default 20000,20000)",
                "  --metrics-clients LIST   (h), (i) client counts (default 16)",
                "  --metrics-rounds N   (h), (i) pairs of runs (with, without the feature) per client count, alternating which",
                "                       runs first, so an even number balances drift (default 4)",
                "  --transports LIST    (j) transports to compare, the first is the reference (default netty,jetty,jdk;",
                "                       jdk-virtual = the old server with a virtual thread per request, Java 21+)",
                "  --transport-rounds N (j) rounds, the order reversed every other round (default 2)",
                "  --transport-clients N (j) closed-loop clients for publishes and for /health/live (default 64)",
                "  --slowloris N        (j) slowloris connections, one header byte every --dribble-ms (default 500)",
                "  --dribble-ms N       (j) pause between two bytes of a slowloris connection (default 2000)",
                "  --long-polls N       (j) parked long polls on orders, wait_ms=30000 (default 500)",
                "  --hostile-seconds N  (j) how long the normal client is measured under attack (default 15)",
                "  --keep               keep the temp data root afterwards",
                "",
                "scenarios: a, c = single events with/without group commit; b = batches to --keys keys with",
                "  --max-pending 100000000 (as before the flusher); d = publish->queryable latency; e = flush",
                "  throughput for a backlog; f = b with the default --max-pending (429 + Retry-After honoured);",
                "  g = publish->dependent-model-updated latency (clicks -> clicks_enriched, orders ->",
                "  revenue_summary), runs and coalesced triggers from GET /runs; --rate, --latency-* apply to d and g;",
                "  h = single events with the real metrics vs a registry that records nothing, --seconds per run;",
                "  j = the HTTP transports (netty as shipped, jetty, jdk = the old 256-thread server) side by side:",
                "  publishes and /health/live at --transport-clients, then a normal client under slowloris and long",
                "  polls; needs Jetty on the class path (the bench jar: mvn -Pbench package)");

        int seconds = 30;
        long keys = 5_000_000;
        int[] clients = {1, 16, 64};
        int[] batches = {100, 1000};
        int batchClients = 8;
        int steps = 20;
        int warmupSeconds = 10;
        String scenarios = "a,c,d,e,f,g";
        long flushDelayMillis = 50;
        int flushBatchRows = 20000;
        int rate = 5000;
        int latencyBatch = 50;
        int latencySeconds = 30;
        int latencySenders = 4;
        int pollMillis = 2;
        int ordersPercent = 10;
        long backlog = 1_000_000;
        int[] drainBatchRows = {20000, 20000};
        int[] metricsClients = {16};
        int metricsRounds = 4;
        String transports = "netty,jetty,jdk";
        int transportRounds = 2;
        int transportClients = 64;
        int slowloris = 500;
        long dribbleMillis = 2000;
        int longPolls = 500;
        int hostileSeconds = 15;
        Path dataRoot;
        boolean keep;
        boolean help;
        boolean rawClient;

        static Options parse(String[] args) {
            Options options = new Options();
            for (int i = 0; i < args.length; i++) {
                String arg = args[i];
                String value = null;
                if (arg.startsWith("--") && arg.contains("=")) {
                    value = arg.substring(arg.indexOf('=') + 1);
                    arg = arg.substring(0, arg.indexOf('='));
                }
                switch (arg) {
                    case "--help", "-h" -> options.help = true;
                    case "--keep" -> options.keep = true;
                    default -> {
                        if (value == null) {
                            if (i + 1 >= args.length) {
                                throw new IllegalArgumentException("missing value for " + arg);
                            }
                            value = args[++i];
                        }
                        options.set(arg, value);
                    }
                }
            }
            return options;
        }

        private void set(String flag, String value) {
            try {
                switch (flag) {
                    case "--seconds" -> seconds = positive(Integer.parseInt(value), flag);
                    case "--keys" -> keys = positive(Long.parseLong(value.replace("_", "")), flag);
                    case "--clients" -> clients = list(value, flag);
                    case "--batches" -> batches = list(value, flag);
                    case "--batch-clients" -> batchClients = positive(Integer.parseInt(value), flag);
                    case "--steps" -> steps = positive(Integer.parseInt(value), flag);
                    case "--warmup" -> warmupSeconds = Integer.parseInt(value);
                    case "--scenarios" -> scenarios = value;
                    case "--flush-delay-ms" -> flushDelayMillis = Long.parseLong(value);
                    case "--flush-batch-rows" -> flushBatchRows = positive(Integer.parseInt(value), flag);
                    case "--rate" -> rate = positive(Integer.parseInt(value), flag);
                    case "--latency-batch" -> latencyBatch = positive(Integer.parseInt(value), flag);
                    case "--latency-seconds" -> latencySeconds = positive(Integer.parseInt(value), flag);
                    case "--latency-senders" -> latencySenders = positive(Integer.parseInt(value), flag);
                    case "--poll-ms" -> pollMillis = Integer.parseInt(value);
                    case "--orders-percent" -> ordersPercent = Integer.parseInt(value);
                    case "--backlog" -> backlog = positive(Long.parseLong(value.replace("_", "")), flag);
                    case "--drain-batch-rows" -> drainBatchRows = list(value, flag);
                    case "--metrics-clients" -> metricsClients = list(value, flag);
                    case "--metrics-rounds" -> metricsRounds = positive(Integer.parseInt(value), flag);
                    case "--transports" -> transports = value;
                    case "--transport-rounds" -> transportRounds = positive(Integer.parseInt(value), flag);
                    case "--transport-clients" -> transportClients = positive(Integer.parseInt(value), flag);
                    case "--slowloris" -> slowloris = Integer.parseInt(value);
                    case "--dribble-ms" -> dribbleMillis = positive(Long.parseLong(value), flag);
                    case "--long-polls" -> longPolls = Integer.parseInt(value);
                    case "--hostile-seconds" -> hostileSeconds = positive(Integer.parseInt(value), flag);
                    case "--data-root" -> dataRoot = Path.of(value);
                    case "--client" -> {
                        if (!value.equals("jdk") && !value.equals("raw")) {
                            throw new IllegalArgumentException("--client is jdk or raw, not " + value);
                        }
                        rawClient = value.equals("raw");
                    }
                    default -> throw new IllegalArgumentException("unknown option " + flag);
                }
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("not a number for " + flag + ": " + value);
            }
        }

        private static int[] list(String value, String flag) {
            return Arrays.stream(value.split(",")).map(String::strip).mapToInt(Integer::parseInt)
                    .map(n -> positive(n, flag)).toArray();
        }

        private static long positive(long n, String flag) {
            if (n < 1) {
                throw new IllegalArgumentException(flag + " must be at least 1");
            }
            return n;
        }

        private static int positive(int n, String flag) {
            if (n < 1) {
                throw new IllegalArgumentException(flag + " must be at least 1");
            }
            return n;
        }

        @Override
        public String toString() {
            return "--seconds " + seconds + " --keys " + keys + " --clients " + join(clients) + " --batches "
                    + join(batches) + " --batch-clients " + batchClients + " --steps " + steps + " --warmup "
                    + warmupSeconds + " --scenarios " + scenarios + " --client " + (rawClient ? "raw" : "jdk")
                    + " --flush-delay-ms " + flushDelayMillis + " --flush-batch-rows " + flushBatchRows + " --rate "
                    + rate + " --latency-batch " + latencyBatch + " --latency-seconds " + latencySeconds
                    + " --latency-senders " + latencySenders + " --poll-ms " + pollMillis + " --orders-percent "
                    + ordersPercent + " --backlog " + backlog
                    + " --drain-batch-rows " + join(drainBatchRows) + " --metrics-clients " + join(metricsClients)
                    + " --metrics-rounds " + metricsRounds + " --transports " + transports + " --transport-rounds "
                    + transportRounds + " --transport-clients " + transportClients + " --slowloris " + slowloris
                    + " --dribble-ms " + dribbleMillis + " --long-polls " + longPolls + " --hostile-seconds "
                    + hostileSeconds;
        }

        private static String join(int[] values) {
            return Arrays.stream(values).mapToObj(Integer::toString).collect(Collectors.joining(","));
        }
    }
}
