package dev.interlace.benchmarks;

import java.net.http.HttpClient;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.stream.Collectors;

final class PublishOptions {
    static final String USAGE = String.join("\n",
            "usage: java -cp examples/target/interlace-examples.jar:interlace-benchmarks/target/interlace-benchmarks.jar"
                    + " dev.interlace.benchmarks.PublishBenchmark [options]",
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
            "  polls; needs Jetty on the class path (in interlace-benchmarks.jar)");

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

    static PublishOptions parse(String[] args) {
        PublishOptions options = new PublishOptions();
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

    void set(String flag, String value) {
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

    static int[] list(String value, String flag) {
        return Arrays.stream(value.split(",")).map(String::strip).mapToInt(Integer::parseInt)
                .map(n -> positive(n, flag)).toArray();
    }

    static long positive(long n, String flag) {
        if (n < 1) {
            throw new IllegalArgumentException(flag + " must be at least 1");
        }
        return n;
    }

    static int positive(int n, String flag) {
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

    static String join(int[] values) {
        return Arrays.stream(values).mapToObj(Integer::toString).collect(Collectors.joining(","));
    }
}
