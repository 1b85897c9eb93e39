package dev.interlace.benchmarks;

import dev.interlace.runtime.Interlace;
import java.nio.file.Path;

/** Scenario (d) of {@link PublishBenchmark}: publish to queryable latency under an open-loop load. */
final class LatencyBench extends Bench {

    LatencyBench(PublishOptions options, Path root) {
        super(options, root);
    }

    /**
     * Open-loop publisher: request {@code i} is due at {@code start + i * period} and is sent then (or as soon as a
     * sender is free); a poller asks {@code SELECT max(_offset)} over {@code POST /sql} every {@code --poll-ms}. A
     * publish is queryable at the first poll response that shows {@code max(_offset) >= last_offset}.
     */
    Latency runLatency() throws Exception {
        Path dir = fresh("d");
        CommitStats commits = new CommitStats();
        FlushStats flushes = new FlushStats();
        int batch = options.latencyBatch;
        long period = Math.round(batch * 1e9 / options.rate);
        int slots = (int) (options.latencySeconds * 1_000_000_000L / period);
        Latency result = new Latency();
        try (Interlace server = start(dir, true, commits, DEFAULT_MAX_PENDING, options.flushBatchRows, flushes)) {
            SqlPoller poller = SqlPoller.start(server.uri().resolve("/sql"), "SELECT max(_offset) FROM streams.orders",
                    1, options.pollMillis);
            Cpu cpuStart = Cpu.now();
            long start = System.nanoTime() + 20_000_000L;
            OpenLoop load = new OpenLoop(options.rawClient, publishUri(server), batch, period, slots,
                    n -> body(new String[n]));
            load.start(start, options.latencySenders, "bench-open-loop-");
            load.join();
            long publishEnd = System.nanoTime();
            double[] cores = Cpu.now().since(cpuStart);
            long highest = load.highestOffset();
            long giveUp = System.nanoTime() + 30_000_000_000L;
            poller.seen[0].awaitReached(highest, giveUp);
            poller.close();

            result.commits = commits.snapshot();
            result.flushes = flushes.snapshot();
            result.benchCores = cores[0];
            result.otherCores = cores[1];
            result.errors = load.errors.get();
            result.throttled = load.throttled.get();
            result.polls = poller.polls.get();
            result.pollErrors = poller.errors.get();
            result.pollRoundTrips = poller.roundTrips;
            result.publishSeconds = (publishEnd - start) / 1e9;
            result.published = load.published();
            result.events = load.events();
            result.ack = load.ack();
            result.sendLag = load.lag();
            Visibility queryable = new Visibility();
            load.measure(poller.seen[0], queryable);
            result.queryable = queryable.fromSend;
            result.afterAck = queryable.fromAck;
            result.neverSeen = queryable.neverSeen;
        }
        deleteTree(dir);
        printLatency(result);
        return result;
    }

    void printLatency(Latency r) {
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
        System.out.printf("log commits                  %,d (%.1f requests/commit, commit p50 %s ms)%n", r.commits.count(),
                r.commits.requestsPerCommit(), ms(r.commits.durations().percentile(50)));
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

    static void latencyRow(String name, LatencyLog log) {
        System.out.printf("| %s | %,d | %s | %s | %s | %s | %s |%n", name, log.size(), ms(log.percentile(50)),
                ms(log.percentile(95)), ms(log.percentile(99)), ms(log.percentile(99.9)), ms(log.max()));
    }

    /** (d): one open-loop latency run. */
    static final class Latency {
        LatencyLog ack;
        LatencyLog queryable;
        LatencyLog afterAck;
        LatencyLog sendLag;
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

}
