package dev.interlace.benchmarks;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import dev.interlace.runtime.Interlace;
import dev.interlace.runtime.config.InterlaceConfig;
import dev.interlace.runtime.log.LogSettings;
import dev.interlace.runtime.ops.Metrics;
import dev.interlace.runtime.records.SystemRecords;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/** Scenarios (h) and (i) of {@link PublishBenchmark}: what metrics and operational records cost a publish. */
final class FeatureCostBench extends Bench {

    FeatureCostBench(PublishOptions options, Path root) {
        super(options, root);
    }

    /**
     * (h) and (i): the same closed-loop single-event load against the server as shipped and against one without the
     * feature (metrics that record nothing; no records), alternating which goes first in each pair so that drift on
     * the shared machine hits both alike. Pooled over the rounds: throughput, latency percentiles and this JVM's CPU
     * per request.
     */
    FeatureCost runFeatureCost(int clients, Feature feature) throws Exception {
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
                        + " %.2f |", round + 1, metrics ? feature.with : feature.without, run.requests(),
                        run.eventsPerSecond(), ms(run.latency().percentile(50)), ms(run.latency().percentile(99)),
                        cpuMicrosPerRequest(run), run.errors(), run.benchCores(), run.otherCores()));
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
    void sideBySide(FeatureCost result) throws Exception {
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
                Run[] runs = driveSideBySide(first, second, perServer);
                Run a = runs[onFirst ? 0 : 1];
                Run b = runs[onFirst ? 1 : 0];
                result.sideBySide.add(new Run[] {a, b});
                System.out.printf("side by side %d: " + feature.with + " %,.0f events/s (p50 %s, p99 %s ms), "
                        + feature.without + " %,.0f events/s (p50 %s, p99 %s ms), ratio %.3f; other CPU %.2f"
                        + " cores%n", round + 1,
                        a.eventsPerSecond(), ms(a.latency().percentile(50)), ms(a.latency().percentile(99)),
                        b.eventsPerSecond(), ms(b.latency().percentile(50)), ms(b.latency().percentile(99)),
                        a.eventsPerSecond() / b.eventsPerSecond(), a.otherCores());
            }
            deleteTree(onDir);
            deleteTree(offDir);
        }
    }

    void printFeatureCost(FeatureCost r) {
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
            boolean undisturbed = on.otherCores() < QUIET_CORES && off.otherCores() < QUIET_CORES;
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

    /** What (h) and (i) compare: the server as shipped against one without a feature (benchmark code only). */
    enum Feature {
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
    record Pooled(long requests, long events, long nanos, LatencyLog latency, double cpuNanos) {
        static Pooled of(List<Run> runs) {
            long requests = 0;
            long events = 0;
            long nanos = 0;
            double cpuNanos = 0;
            LatencyLog latency = new LatencyLog();
            for (Run run : runs) {
                requests += run.requests();
                events += run.events();
                nanos += run.nanos();
                cpuNanos += run.benchCores() * run.nanos();
                for (int i = 0; i < run.latency().size(); i++) {
                    latency.add(run.latency().values[i], 0);
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
    static final class FeatureCost {
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
                onEvents += pair[0].events();
                offEvents += pair[1].events();
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

}
