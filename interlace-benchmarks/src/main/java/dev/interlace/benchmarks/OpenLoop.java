package dev.interlace.benchmarks;

import static dev.interlace.benchmarks.Bench.acceptedCount;
import static dev.interlace.benchmarks.Bench.longField;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An open-loop publisher: request {@code i} is due at {@code start + i * period}; sender threads take the slots in
 * order and send each when due (late only when all senders are busy). A 429 is counted and the slot dropped.
 */
final class OpenLoop {
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

    final boolean rawClient;

    OpenLoop(boolean rawClient, URI uri, int batch, long period, int slots, java.util.function.IntFunction<String> bodies) {
        this.rawClient = rawClient;
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

    void send(long start) {
        HttpClient jdk = rawClient ? null : HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10)).build();
        try (RawHttpClient raw = rawClient ? new RawHttpClient(uri) : null) {
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
