package dev.interlace.integration.flushcrash;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.interlace.integration.crash.ChildJvm;
import dev.interlace.integration.crash.Halt;
import dev.interlace.integration.crash.Threads;
import dev.interlace.runtime.testing.Pause;
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
import java.util.concurrent.atomic.AtomicLong;

/**
 * Concurrent publishers of fresh keys to one stream (single events and JSON arrays of up to 20; {@code orders} by
 * default, any stream with a {@link Shape}) that record, for each key whose request got a 200, the offset the
 * response implies. Each client stops once the server refuses
 * connections (it died), on a non-200 (recorded as an anomaly), when {@link #stop()} is called or at its deadline.
 * A request that got no answer is in doubt (stored or not) and is not recorded as acknowledged. The flush and model
 * crash tests both load their children with it.
 */
public final class PublishLoad {

    /** Clients of {@link #start(URI, String, Duration, long)}. */
    static final int CLIENTS = 8;
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(15);
    private static final ObjectMapper JSON = new ObjectMapper();

    /** The JSON of one event of the {@code n}-th key ({@code key}) of client {@code client}. */
    @FunctionalInterface
    public interface Shape {
        String event(String key, int client, long n, SplittableRandom random);
    }

    static final Shape ORDERS = (key, client, n, random) -> event(key, random);

    private final URI publish;
    private final Shape shape;
    private final String keyPrefix;
    private final long deadlineNanos;
    private final long pauseMillis;
    private final HttpClient http = ChildJvm.httpClient();
    private final List<Thread> clients = new ArrayList<>();
    private final Map<String, Long> acknowledged = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<String> anomalies = new ConcurrentLinkedQueue<>();
    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong unanswered = new AtomicLong();
    private volatile boolean stopped;

    private PublishLoad(URI server, String stream, Shape shape, int clientCount, long pauseMillis, String keyPrefix,
            Duration maxDuration, long seed) {
        this.publish = server.resolve("/streams/" + stream);
        this.shape = shape;
        this.keyPrefix = keyPrefix;
        this.deadlineNanos = System.nanoTime() + maxDuration.toNanos();
        this.pauseMillis = pauseMillis;
        SplittableRandom random = new SplittableRandom(seed);
        for (int i = 0; i < clientCount; i++) {
            int client = i;
            SplittableRandom own = random.split();
            Thread thread = new Thread(() -> run(client, own), "crash-load-" + keyPrefix + "-" + i);
            thread.setDaemon(true);
            clients.add(thread);
        }
    }

    /** Starts {@value #CLIENTS} clients publishing orders; each key is {@code keyPrefix-<client>-<n>}. */
    static PublishLoad start(URI server, String keyPrefix, Duration maxDuration, long seed) {
        return start(server, "orders", ORDERS, keyPrefix, maxDuration, seed);
    }

    /** Starts {@value #CLIENTS} clients publishing to {@code stream}; each key is {@code keyPrefix-<client>-<n>}. */
    static PublishLoad start(URI server, String stream, Shape shape, String keyPrefix, Duration maxDuration,
            long seed) {
        return start(server, stream, shape, CLIENTS, 0, keyPrefix, maxDuration, seed);
    }

    /**
     * Starts {@code clientCount} clients publishing to {@code stream}, each pausing a random time up to
     * {@code pauseMillis} between requests (0: none); each key is {@code keyPrefix-<client>-<n>}.
     */
    public static PublishLoad start(URI server, String stream, Shape shape, int clientCount, long pauseMillis,
            String keyPrefix, Duration maxDuration, long seed) {
        PublishLoad load = new PublishLoad(server, stream, shape, clientCount, pauseMillis, keyPrefix, maxDuration,
                seed);
        load.clients.forEach(Thread::start);
        return load;
    }

    static String event(String key, SplittableRandom random) {
        return "{\"order_id\":\"" + key + "\",\"total\":" + (1 + random.nextInt(100_000)) / 100.0
                + ",\"meta\":{\"flush_crash\":true}}";
    }

    private void run(int client, SplittableRandom random) {
        long sequence = 0;
        while (!stopped && System.nanoTime() < deadlineNanos) {
            boolean array = random.nextBoolean();
            int size = array ? 1 + random.nextInt(20) : 1;
            List<String> keys = new ArrayList<>(size);
            StringBuilder body = new StringBuilder(array ? "[" : "");
            for (int i = 0; i < size; i++) {
                long n = sequence++;
                String key = keyPrefix + "-" + client + "-" + n;
                keys.add(key);
                body.append(i == 0 ? "" : ",").append(shape.event(key, client, n, random));
            }
            body.append(array ? "]" : "");
            HttpRequest request = ChildJvm.jsonPost(publish, body.toString(), REQUEST_TIMEOUT);
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
                    Pause.millis(random.nextLong(pauseMillis + 1)); // the load's pace
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

    /** Waits (bounded) until at least {@code events} events were acknowledged; false on timeout or when all ended. */
    boolean awaitAcknowledged(long events, Duration timeout) throws InterruptedException {
        return Threads.awaitAcknowledged(clients, acknowledged::size, events, timeout);
    }

    public void stop() {
        stopped = true;
    }

    /** Waits for every client to finish; true when all did within {@code timeout}. */
    public boolean awaitEnd(Duration timeout) throws InterruptedException {
        return Threads.joinAll(clients, timeout);
    }

    /** Acknowledged keys with the offset their 200 implies. */
    public Map<String, Long> acknowledged() {
        return Map.copyOf(acknowledged);
    }

    int acknowledgedCount() {
        return acknowledged.size();
    }

    public List<String> anomalies() {
        return new ArrayList<>(anomalies);
    }

    public String describe() {
        return acknowledged.size() + " acknowledged events in " + requests.get() + " requests, " + unanswered.get()
                + " unanswered";
    }

    /**
     * Once {@code child} halted itself under this load (or {@code within} passed), stops the load and the child, and
     * requires: the halt, every client stopped, no answer that breaks the publish contract, exit {@link Halt#STATUS}
     * and a fault marker that starts with {@code markerPrefix}, which it returns.
     */
    public String awaitHaltOf(ChildJvm child, Duration within, String markerPrefix)
            throws InterruptedException {
        boolean halted = child.awaitExit(within);
        stop();
        boolean clientsEnded = awaitEnd(Duration.ofSeconds(30));
        child.close();
        assertThat(halted).as("%s halted within %s (%s)\n%s", child, within, describe(), child.diagnostics())
                .isTrue();
        assertThat(clientsEnded).as("every client stopped").isTrue();
        assertThat(anomalies()).as("answers that break the publish contract").isEmpty();
        assertThat(child.exitStatus()).as("exit status\n%s", child.diagnostics()).isEqualTo(Halt.STATUS);
        String marker = child.faultMarker();
        assertThat(marker).as("the child halted at its fault point\n%s", child.diagnostics())
                .startsWith(markerPrefix);
        return marker;
    }
}
