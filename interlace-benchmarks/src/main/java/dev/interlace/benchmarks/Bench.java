package dev.interlace.benchmarks;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import com.google.inject.multibindings.Multibinder;
import dev.interlace.runtime.Interlace;
import dev.interlace.runtime.config.ConfigLoader;
import dev.interlace.runtime.config.InterlaceConfig;
import dev.interlace.runtime.flush.FlushListener;
import dev.interlace.runtime.log.CommitListener;
import dev.interlace.runtime.log.LogSettings;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.LongConsumer;
import java.util.stream.Stream;

/**
 * What every scenario of {@link PublishBenchmark} shares: its options and data root, starting an in-process server
 * with the benchmark's settings, the closed-loop load generator, and small HTTP, file and formatting helpers.
 */
abstract class Bench {

    static final String STREAM = "orders";
    static final String CLICKS = "clicks";
    /**
     * The pre-flusher runs' {@code --max-pending}: (b) keeps it so its figures stay comparable, and (e) uses it while
     * it builds a backlog the flusher is not allowed to materialise.
     */
    static final long NO_BACKPRESSURE = 100_000_000L;
    /** The server's default {@code --max-pending} (100 000). */
    static final long DEFAULT_MAX_PENDING = InterlaceConfig.defaults().maxPending();

    final PublishOptions options;
    final Path root;

    Bench(PublishOptions options, Path root) {
        this.options = options;
        this.root = root;
    }

    static double geometricMean(List<Double> values) {
        return values.isEmpty() ? Double.NaN
                : Math.exp(values.stream().mapToDouble(Math::log).sum() / values.size());
    }

    static double median(List<Double> values) {
        if (values.isEmpty()) {
            return Double.NaN;
        }
        double[] sorted = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        int middle = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }

    static double cpuMicrosPerRequest(Run run) {
        return run.requests() == 0 ? Double.NaN : run.benchCores() * run.seconds() * 1e6 / run.requests();
    }

    // ------------------------------------------------------------------------------------------ small HTTP helpers

    static String streamField(Interlace server, String field) throws IOException {
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

    static long pending(Interlace server) throws IOException {
        return Long.parseLong(streamField(server, "pending"));
    }

    /** Polls {@code GET /streams/orders} every 10 ms until {@code pending <= target}; returns that moment. */
    static long waitForPending(Interlace server, long target, int timeoutSeconds) throws Exception {
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

    static String sql(Interlace server, String query) throws IOException {
        try (RawHttpClient client = new RawHttpClient(server.uri().resolve("/sql"), "text/plain")) {
            return client.post(query.getBytes(StandardCharsets.UTF_8)).body();
        }
    }

    /** A top-level numeric field of a JSON response, e.g. {@code "last_offset":123}. */
    static long longField(String body, String field) {
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
    static long firstCell(String body) {
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

    // ------------------------------------------------------------------------------------------ load generation

    /**
     * Drives {@code first} and {@code second} at once, {@code perServer} clients of one-event requests each for the
     * run's seconds, so that whatever else happens on the machine happens to both; their runs, in that order.
     */
    Run[] driveSideBySide(Interlace first, Interlace second, int perServer) throws Exception {
        long deadline = System.nanoTime() + options.seconds * 1_000_000_000L;
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<Run> firstRun = pool.submit(() -> drive(first, perServer, 1, deadline, Long.MAX_VALUE, null, 1));
            Future<Run> secondRun = pool.submit(() -> drive(second, perServer, 1, deadline, Long.MAX_VALUE, null, 1));
            return new Run[] {firstRun.get(), secondRun.get()};
        } finally {
            pool.shutdown();
        }
    }

    /**
     * Runs {@code clients} closed-loop keep-alive clients, each with its own {@link HttpClient} (so its own
     * connection), sending requests of {@code batch} events with fresh random keys back to back until
     * {@code deadline} passes or {@code maxEvents} events have been accepted.
     */
    Run drive(Interlace server, int clients, int batch, long deadline, long maxEvents, Checkpoints checkpoints,
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
        Elapsed elapsed = runTogether(go, threads, checkpoints == null ? start -> { } : checkpoints::start);
        double[] cores = elapsed.cores();
        LatencyLog all = LatencyLog.merge(logs, buckets);
        String lastKey = null;
        for (int c = 0; c < clients; c++) {
            lastKey = lastKey != null ? lastKey : lastKeys.get(c);
        }
        return new Run(all.size(), accepted.get(), errors.get(), elapsed.nanos(), all, lastKey, cores[0], cores[1],
                throttled.get(), throttledNanos.get());
    }

    /** How long a group of client threads ran, and the CPU cores used meanwhile ({@link Cpu#since}). */
    record Elapsed(long nanos, double[] cores) {}

    /**
     * Lets the started client {@code threads} waiting on {@code go} run together and waits for them all;
     * {@code started} is told the moment they were let go.
     */
    static Elapsed runTogether(CountDownLatch go, List<Thread> threads, LongConsumer started)
            throws InterruptedException {
        long start = System.nanoTime();
        started.accept(start);
        Cpu cpuStart = Cpu.now();
        go.countDown();
        for (Thread thread : threads) {
            thread.join();
        }
        return new Elapsed(System.nanoTime() - start, Cpu.now().since(cpuStart));
    }

    static String body(String[] keys) {
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

    static long acceptedCount(String body) {
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

    static URI publishUri(Interlace server) {
        return server.uri().resolve("/streams/" + STREAM);
    }

    // ------------------------------------------------------------------------------------------ server

    /** A server with the default {@code --max-pending} and the benchmark's flush settings. */
    Interlace start(Path dir, boolean group, CommitListener listener) {
        return start(dir, group, listener, DEFAULT_MAX_PENDING, options.flushBatchRows, null);
    }

    Interlace start(Path dir, boolean group, CommitListener listener, long maxPending, int flushBatchRows,
            FlushListener flushListener) {
        return start(dir, group, listener, maxPending, flushBatchRows, flushListener, null);
    }

    Interlace start(Path dir, boolean group, CommitListener listener, long maxPending, int flushBatchRows,
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
        final long maxPending;

        OneRequestPerCommit(long maxPending) {
            this.maxPending = maxPending;
        }

        @Provides
        @Singleton
        LogSettings settings() {
            return new LogSettings(maxPending, 256L << 20, 1, true);
        }
    }

    Path fresh(String name) throws IOException {
        Path dir = root.resolve(name);
        deleteTree(dir);
        return Files.createDirectories(dir);
    }

    static long usedHeapAfterGc() {
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

    static long size(Path file) {
        try {
            return Files.exists(file) ? Files.size(file) : 0;
        } catch (IOException e) {
            return -1;
        }
    }

    static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }

    static void section(String title) {
        System.out.println();
        System.out.println("== " + title);
    }

    static String ms(double nanos) {
        return String.format(Locale.ROOT, "%.2f", nanos / 1e6);
    }

}
