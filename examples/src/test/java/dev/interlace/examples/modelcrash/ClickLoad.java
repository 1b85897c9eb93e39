package dev.interlace.examples.modelcrash;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Concurrent publishers of fresh clicks ({@code POST /streams/clicks}, single events and JSON arrays of up to 20)
 * that record, for each {@code click_id} whose request got a 200, the offset the response implies. A client stops
 * once the server refuses connections (it died), on a non-200 (recorded as an anomaly), when {@link #stop()} is
 * called or at its deadline. A request that got no answer is in doubt and is not recorded as acknowledged.
 * (Adapted from {@code flushcrash.PublishLoad}.)
 */
final class ClickLoad {

    static final int CLIENTS = 3;
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(15);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final URI publish;
    private final String keyPrefix;
    private final long deadlineNanos;
    private final long pauseMillis;
    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    private final List<Thread> clients = new ArrayList<>();
    private final Map<String, Long> acknowledged = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<String> anomalies = new ConcurrentLinkedQueue<>();
    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong unanswered = new AtomicLong();
    private volatile boolean stopped;

    private ClickLoad(URI server, String keyPrefix, Duration maxDuration, long pauseMillis, long seed) {
        this.publish = server.resolve("/streams/" + ModelProbe.STREAM);
        this.keyPrefix = keyPrefix;
        this.deadlineNanos = System.nanoTime() + maxDuration.toNanos();
        this.pauseMillis = pauseMillis;
        SplittableRandom random = new SplittableRandom(seed);
        for (int i = 0; i < CLIENTS; i++) {
            int client = i;
            SplittableRandom own = random.split();
            Thread thread = new Thread(() -> run(client, own), "model-crash-client-" + keyPrefix + "-" + i);
            thread.setDaemon(true);
            clients.add(thread);
        }
    }

    /** Starts {@value #CLIENTS} clients, each pausing up to {@code pauseMillis} between requests. */
    static ClickLoad start(URI server, String keyPrefix, Duration maxDuration, long pauseMillis, long seed) {
        ClickLoad load = new ClickLoad(server, keyPrefix, maxDuration, pauseMillis, seed);
        load.clients.forEach(Thread::start);
        return load;
    }

    private static String event(String key, SplittableRandom random) {
        return "{\"click_id\":\"" + key + "\",\"user_id\":\"u" + random.nextInt(50) + "\",\"url\":\"/p/"
                + random.nextInt(1000) + "\",\"at\":\"2026-11-29T0" + random.nextInt(10) + ":"
                + (10 + random.nextInt(50)) + ":00Z\"}";
    }

    private void run(int client, SplittableRandom random) {
        long sequence = 0;
        while (!stopped && System.nanoTime() < deadlineNanos) {
            boolean array = random.nextBoolean();
            int size = array ? 1 + random.nextInt(20) : 1;
            List<String> keys = new ArrayList<>(size);
            StringBuilder body = new StringBuilder(array ? "[" : "");
            for (int i = 0; i < size; i++) {
                String key = keyPrefix + "-" + client + "-" + sequence++;
                keys.add(key);
                body.append(i == 0 ? "" : ",").append(event(key, random));
            }
            body.append(array ? "]" : "");
            HttpRequest request = HttpRequest.newBuilder(publish)
                    .timeout(REQUEST_TIMEOUT)
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
                    .build();
            requests.incrementAndGet();
            HttpResponse<String> response;
            try {
                response = http.send(request, HttpResponse.BodyHandlers.ofString());
            } catch (ConnectException e) {
                return; // nobody listens any more: the server is gone
            } catch (IOException e) {
                unanswered.incrementAndGet(); // in doubt; the next request tells whether the server is gone
                continue;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            if (!record(keys, response)) {
                return;
            }
            if (pauseMillis > 0) {
                try {
                    Thread.sleep(random.nextLong(pauseMillis + 1));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private boolean record(List<String> keys, HttpResponse<String> response) {
        JsonNode body;
        try {
            body = response.statusCode() == 200 ? JSON.readTree(response.body()) : null;
        } catch (IOException e) {
            body = null;
        }
        JsonNode lastOffset = body == null ? null : body.get("last_offset");
        if (body == null || body.path("accepted").asLong(-1) != keys.size() || lastOffset == null
                || !lastOffset.canConvertToLong()) {
            anomalies.add("HTTP " + response.statusCode() + " for " + keys.size() + " fresh keys: " + response.body());
            return false;
        }
        long last = lastOffset.asLong();
        // Accepted events of one request get consecutive offsets, so the i-th of n ends n-1-i before the last.
        for (int i = 0; i < keys.size(); i++) {
            if (acknowledged.putIfAbsent(keys.get(i), last - (keys.size() - 1 - i)) != null) {
                anomalies.add("key " + keys.get(i) + " acknowledged twice");
            }
        }
        return true;
    }

    void stop() {
        stopped = true;
    }

    /** Waits for every client to finish; true when all did within {@code timeout}. */
    boolean awaitEnd(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (Thread client : clients) {
            long remaining = deadline - System.nanoTime();
            if (remaining > 0) {
                client.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(remaining)));
            }
        }
        return clients.stream().noneMatch(Thread::isAlive);
    }

    /** Acknowledged click ids with the offset their 200 implies. */
    Map<String, Long> acknowledged() {
        return Map.copyOf(acknowledged);
    }

    List<String> anomalies() {
        return new ArrayList<>(anomalies);
    }

    String describe() {
        return acknowledged.size() + " acknowledged clicks in " + requests.get() + " requests, " + unanswered.get()
                + " unanswered";
    }
}
