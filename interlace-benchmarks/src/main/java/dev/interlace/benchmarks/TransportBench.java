package dev.interlace.benchmarks;

import com.google.inject.AbstractModule;
import dev.interlace.runtime.Interlace;
import dev.interlace.runtime.http.HttpTransport;
import dev.interlace.runtime.log.StreamLog;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

/** Scenario (j) of {@link PublishBenchmark}: the HTTP transports compared, in turn and side by side. */
final class TransportBench extends Bench {

    TransportBench(PublishOptions options, Path root) {
        super(options, root);
    }

    /** (j): the HTTP transports compared, each serving the same real server (benchmark code only). */
    enum Transport {
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
    record TransportRun(Transport transport, int round, String description, Run publishes, Run health,
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
    List<TransportRun> runTransports() throws Exception {
        List<Transport> transports = Arrays.stream(options.transports.split(",")).map(Transport::named).toList();
        if (transports.stream().anyMatch(t -> t == Transport.JETTY)) {
            try {
                Class.forName("org.eclipse.jetty.server.Server");
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException("Jetty is not on the class path: put"
                        + " interlace-benchmarks/target/interlace-benchmarks.jar on it");
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
                        ms(run.publishes.latency().percentile(50)), ms(run.publishes.latency().percentile(99)),
                        run.health.requests() / run.health.seconds(), ms(run.hostileHealth.percentile(99)),
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
    void transportsSideBySide(Transport reference, Transport other) throws Exception {
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
                Run[] runs = driveSideBySide(firstServer, secondServer, perServer);
                Run referenceRun = runs[referenceFirst ? 0 : 1];
                Run otherRun = runs[referenceFirst ? 1 : 0];
                referenceEvents += referenceRun.events();
                otherEvents += otherRun.events();
                ratios.add(otherRun.eventsPerSecond() / referenceRun.eventsPerSecond());
                System.out.printf("side by side %d: %s %,.0f publishes/s (p50 %s, p99 %s ms), %s %,.0f publishes/s"
                        + " (p50 %s, p99 %s ms), ratio %.3f; other CPU %.2f cores%n", round + 1, other.name,
                        otherRun.eventsPerSecond(), ms(otherRun.latency().percentile(50)),
                        ms(otherRun.latency().percentile(99)), reference.name, referenceRun.eventsPerSecond(),
                        ms(referenceRun.latency().percentile(50)), ms(referenceRun.latency().percentile(99)),
                        ratios.get(ratios.size() - 1), otherRun.otherCores());
            }
            deleteTree(firstDir);
            deleteTree(secondDir);
        }
        System.out.printf("side by side (%d rounds, %d clients per server): publishes %s / %s %.3fx overall; per round"
                + " %s (geometric mean %.3f)%n", options.transportRounds, perServer, other.name, reference.name,
                (double) otherEvents / referenceEvents, ratios(ratios), geometricMean(ratios));
    }

    TransportRun runTransport(Transport transport, int round) throws Exception {
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
                hostile.awaitPollsAnswered(answeredBefore + pollsOpen, wakeDeadline);
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
    static long timed(RawExchange exchange, LatencyLog log) {
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
    interface RawExchange {
        RawHttpClient.Response send() throws IOException;
    }

    static byte[] clickBody() {
        return ("{\"click_id\":\"" + UUID.randomUUID() + "\",\"url\":\"/bench\",\"at\":\"" + java.time.Instant.now()
                + "\"}").getBytes(StandardCharsets.UTF_8);
    }

    /** {@code clients} closed-loop raw keep-alive clients sending {@code GET /health/live} until the deadline. */
    static Run liveness(Interlace server, int clients, long deadline) throws InterruptedException {
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
        Elapsed elapsed = runTogether(go, threads, start -> { });
        LatencyLog all = LatencyLog.merge(logs, 1);
        return new Run(all.size(), all.size(), errors.get(), elapsed.nanos(), all, null, elapsed.cores()[0],
                elapsed.cores()[1], 0, 0);
    }

    void printTransports(List<Transport> transports, List<TransportRun> runs) {
        System.out.println();
        System.out.println("| round | transport | publishes/s | ack p50 ms | ack p99 ms | CPU us/publish | /health/live per s"
                + " | health p99 ms | publishes / health | attacked: health p99 / max ms | attacked: publish p99 / max ms"
                + " | failures | slowloris closed | polls open → answered by one publish | other CPU cores |");
        System.out.println("|---:|---|---:|---:|---:|---:|---:|---:|---:|---|---|---:|---:|---|---:|");
        for (TransportRun r : runs) {
            double healthPerSecond = r.health.requests() / r.health.seconds();
            System.out.printf("| %d | %s | %,.0f | %s | %s | %.1f | %,.0f | %s | %.3f | %s / %s | %s / %s | %d | %d |"
                    + " %d → %d | %.2f / %.2f |%n", r.round + 1, r.transport.name, r.publishes.eventsPerSecond(),
                    ms(r.publishes.latency().percentile(50)), ms(r.publishes.latency().percentile(99)),
                    cpuMicrosPerRequest(r.publishes), healthPerSecond, ms(r.health.latency().percentile(99)),
                    r.publishes.eventsPerSecond() / healthPerSecond, ms(r.hostileHealth.percentile(99)),
                    ms(r.hostileHealth.max()), ms(r.hostilePublish.percentile(99)), ms(r.hostilePublish.max()),
                    r.hostileFailures, r.slowlorisClosed, r.pollsOpenBeforeWake, r.pollsAnsweredByWake,
                    r.publishes.otherCores(), r.health.otherCores());
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
                healthRatios.add((mine.health.requests() / mine.health.seconds())
                        / (theirs.health.requests() / theirs.health.seconds()));
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

    static TransportRun find(List<TransportRun> runs, Transport transport, int round) {
        return runs.stream().filter(r -> r.transport == transport && r.round == round).findFirst().orElseThrow();
    }

    static String ratios(List<Double> values) {
        return values.stream().map(v -> String.format(Locale.ROOT, "%.3f", v)).collect(Collectors.joining(", "));
    }

}
