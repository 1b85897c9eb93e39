package dev.interlace.benchmarks;

import dev.interlace.runtime.Interlace;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

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
                int found = Seen.firstAtLeast(seenMax, lastOffset[slot]);
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

}
