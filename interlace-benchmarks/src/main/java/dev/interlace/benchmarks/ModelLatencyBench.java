package dev.interlace.benchmarks;

import dev.interlace.runtime.Interlace;
import dev.interlace.runtime.flush.FlushListener;
import dev.interlace.runtime.warehouse.Warehouse;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/** Scenario (g) of {@link PublishBenchmark}: publish to dependent-model-updated latency. */
final class ModelLatencyBench extends Bench {

    ModelLatencyBench(PublishOptions options, Path root) {
        super(options, root);
    }

    /**
     * Publish to dependent-model-updated latency: clicks at {@code --rate} and orders at {@code --orders-percent} of
     * it, both open loop; one poller reads, in a single {@code POST /sql}, {@code max(click_offset)} of the
     * incremental model {@code clicks_enriched}, the order count of the view {@code revenue_summary} (over the table
     * model {@code revenue_per_day}), and {@code max(_offset)} of both streams. A click publish is "model-updated" at
     * the first poll response with {@code max(click_offset) >= last_offset}; an order publish when
     * {@code revenue_summary.orders >= last_offset} (order offsets are dense from 1, every order counted once).
     * Afterwards {@code GET /runs} (paged, 1 000 per page) gives the runs, their coalesced triggers and durations.
     */
    ModelLatency runModelLatency() throws Exception {
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
            SqlPoller poller = SqlPoller.start(sql, "SELECT (SELECT max(click_offset) FROM clicks_enriched),"
                    + " (SELECT CAST(sum(orders) AS BIGINT) FROM revenue_summary),"
                    + " (SELECT max(_offset) FROM streams.clicks), (SELECT max(_offset) FROM streams.orders)", 4,
                    options.pollMillis);
            Seen[] seen = poller.seen;

            ThreadCpu threadsBefore = ThreadCpu.now();
            Cpu cpuStart = Cpu.now();
            long start = System.nanoTime() + 20_000_000L;
            long startWallMicros = System.currentTimeMillis() * 1000 + 20_000;
            OpenLoop clicks = new OpenLoop(options.rawClient, server.uri().resolve("/streams/" + CLICKS), batch, clickPeriod, clickSlots,
                    ModelLatencyBench::clicksBody);
            OpenLoop orders = new OpenLoop(options.rawClient, publishUri(server), batch, orderPeriod, orderSlots,
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
            seen[0].awaitReached(clicksHighest, giveUp);
            seen[1].awaitReached(ordersHighest, giveUp);
            result.drainSeconds = (System.nanoTime() - publishEnd) / 1e9;
            poller.close();
            ModelRunnerIdle.await(server);

            result.commits = commits.snapshot();
            result.clickFlushes = flushStats.get(CLICKS).snapshot();
            result.orderFlushes = flushStats.get(STREAM).snapshot();
            result.benchCores = cores[0];
            result.otherCores = cores[1];
            result.polls = poller.polls.get();
            result.pollErrors = poller.errors.get();
            result.pollRoundTrips = poller.roundTrips;
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

    static String clicksBody(int count) {
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

    /** All runs from {@code GET /runs}, paged backwards with {@code until} (limit 1 000 per page). */
    static List<RunInfo> fetchRuns(Interlace server) throws IOException {
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

    void printModelLatency(ModelLatency r) {
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
                r.commits.count(), r.commits.requestsPerCommit(), ms(r.commits.durations().percentile(50)));
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
        LatencyBench.latencyRow("clicks: publish ack (send -> 200)", r.clicks.ack());
        LatencyBench.latencyRow("clicks: publish -> queryable in streams.clicks", r.clickQueryable.fromSend);
        LatencyBench.latencyRow("clicks: **publish -> clicks_enriched updated**", r.clickModel.fromSend);
        LatencyBench.latencyRow("clicks: ack -> clicks_enriched updated", r.clickModel.fromAck);
        LatencyBench.latencyRow("clicks: queryable -> clicks_enriched updated", difference(r.clickModel, r.clickQueryable));
        LatencyBench.latencyRow("orders: publish -> queryable in streams.orders", r.orderQueryable.fromSend);
        LatencyBench.latencyRow("orders: **publish -> revenue_summary updated**", r.orderModel.fromSend);
        System.out.println();
        printRuns("runs queued while publishing", r.windowRuns, r.publishSeconds);
        printRuns("runs until the last publish was in the models", r.deliveryRuns, Double.NaN);
        System.out.println("per model (non-startup runs): model, runs, duration_ms p50, p95, max, total, mean rows = "
                + r.perModel.replaceAll(".*\"rows\":(\\[\\[.*]]).*", "$1"));
        System.out.println("clicks_enriched by 5 s of queue time: [from s, runs, duration_ms p50, p95, mean rows] = "
                + r.growth.replaceAll(".*\"rows\":(\\[\\[.*]]).*", "$1"));
        System.out.println();
    }

    static void printRuns(String title, List<RunInfo> runs, double seconds) {
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
    static LatencyLog difference(Visibility later, Visibility earlier) {
        LatencyLog log = new LatencyLog();
        for (int i = 0; i < later.visibleAt.length; i++) {
            if (later.visibleAt[i] > 0 && earlier.visibleAt[i] > 0) {
                log.add(Math.max(0, later.visibleAt[i] - earlier.visibleAt[i]), 0);
            }
        }
        return log;
    }

    /** Waits (up to 30 s) until {@code GET /runs} shows no run queued or running, so all runs are recorded. */
    static final class ModelRunnerIdle {
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
    static final class RunInfo {
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

        static long micros(com.fasterxml.jackson.databind.JsonNode time) {
            if (time == null || time.isNull()) {
                return 0;
            }
            java.time.Instant instant = java.time.Instant.parse(time.asText());
            return instant.getEpochSecond() * 1_000_000L + instant.getNano() / 1_000;
        }
    }

    /** (g): one publish -> model-updated run. */
    static final class ModelLatency {
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

}
