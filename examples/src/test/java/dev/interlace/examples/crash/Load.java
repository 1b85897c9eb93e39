package dev.interlace.examples.crash;

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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Concurrent publishers of fresh keys to {@code POST /streams/orders}: single events, small JSON-array batches and
 * the odd batch of a few hundred events, over keep-alive connections. Each client records its outcomes in the
 * {@link Ledger} and stops once the server refuses connections (it died), at the first answer that is not a 200, or
 * at its deadline.
 */
final class Load {

    static final int CLIENTS = 16;
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(15);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final URI publish;
    private final Ledger ledger;
    private final String keyPrefix;
    private final long deadlineNanos;
    private final HttpClient http;
    private final List<Thread> clients = new ArrayList<>();
    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong acknowledgedEvents = new AtomicLong();
    private final AtomicLong unanswered = new AtomicLong();
    private final Map<String, Integer> errors = new ConcurrentHashMap<>();

    private Load(URI server, Ledger ledger, String keyPrefix, Duration maxDuration, long seed) {
        this.publish = server.resolve("/streams/orders");
        this.ledger = ledger;
        this.keyPrefix = keyPrefix;
        this.deadlineNanos = System.nanoTime() + maxDuration.toNanos();
        this.http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5))
                .build();
        SplittableRandom random = new SplittableRandom(seed);
        for (int i = 0; i < CLIENTS; i++) {
            int client = i;
            SplittableRandom own = random.split();
            Thread thread = new Thread(() -> run(client, own), "crash-client-" + keyPrefix + "-" + i);
            thread.setDaemon(true);
            clients.add(thread);
        }
    }

    /** Starts {@value #CLIENTS} clients against {@code server}; each key is {@code keyPrefix-<client>-<n>}. */
    static Load start(URI server, Ledger ledger, String keyPrefix, Duration maxDuration, long seed) {
        Load load = new Load(server, ledger, keyPrefix, maxDuration, seed);
        load.clients.forEach(Thread::start);
        return load;
    }

    private void run(int client, SplittableRandom random) {
        long sequence = 0;
        while (System.nanoTime() < deadlineNanos) {
            // Half single objects, half arrays of 1 to 8 events, and now and then a batch spanning many pages.
            boolean array = random.nextBoolean();
            int size = !array ? 1 : random.nextInt(25) == 0 ? 100 + random.nextInt(300) : 1 + random.nextInt(8);
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
                // Nobody listens any more: the server is gone. (These keys never reached it; retrying is still safe.)
                ledger.doubt(keys);
                return;
            } catch (IOException e) {
                // No answer, usually because the server died with the request in flight: stored or not, all or
                // nothing. The next request tells whether it is gone (connection refused) or still serving.
                ledger.doubt(keys);
                unanswered.incrementAndGet();
                errors.merge(e.getClass().getSimpleName() + ": " + e.getMessage(), 1, Integer::sum);
                continue;
            } catch (InterruptedException e) {
                ledger.doubt(keys);
                Thread.currentThread().interrupt();
                return;
            }
            if (!record(keys, response)) {
                return; // something is off (recorded as an anomaly); the test fails on it, no need to go on
            }
        }
    }

    static String event(String key, SplittableRandom random) {
        return "{\"order_id\":\"" + key + "\",\"total\":" + random.nextInt(100_000) / 100.0
                + ",\"meta\":{\"crash\":true}}";
    }

    /** Records the answer to a request; false when it was not a 200. */
    private boolean record(List<String> keys, HttpResponse<String> response) {
        if (response.statusCode() != 200) {
            ledger.doubt(keys);
            ledger.anomaly("HTTP " + response.statusCode() + " for keys " + keys + ": " + response.body());
            return false;
        }
        JsonNode body;
        try {
            body = JSON.readTree(response.body());
        } catch (IOException e) {
            ledger.doubt(keys);
            ledger.anomaly("unparsable 200 body for keys " + keys + ": " + response.body());
            return false;
        }
        String requestId = body.path("request_id").asText(null);
        JsonNode lastOffset = body.get("last_offset");
        if (body.path("accepted").asLong(-1) != keys.size() || body.path("deduplicated").asLong(-1) != 0
                || lastOffset == null || !lastOffset.canConvertToLong()) {
            // Fresh keys must all be accepted; still acknowledged (the 200 promised durability), flagged for review.
            ledger.anomaly("200 with unexpected counts for fresh keys " + keys + ": " + response.body());
        }
        long last = lastOffset != null && lastOffset.canConvertToLong() ? lastOffset.asLong() : Long.MIN_VALUE;
        // Accepted events of one request get consecutive offsets, so the i-th of n ends n-1-i before the last.
        for (int i = 0; i < keys.size(); i++) {
            ledger.acknowledge(keys.get(i), last - (keys.size() - 1 - i), requestId);
        }
        acknowledgedEvents.addAndGet(keys.size());
        return true;
    }

    /** Waits (bounded) until at least {@code events} events were acknowledged by this load; false on timeout. */
    boolean awaitAcknowledged(long events, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (acknowledgedEvents.get() < events) {
            if (System.nanoTime() > deadline || clients.stream().noneMatch(Thread::isAlive)) {
                return false;
            }
            Thread.sleep(5);
        }
        return true;
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

    long requests() {
        return requests.get();
    }

    long acknowledgedEvents() {
        return acknowledgedEvents.get();
    }

    /** Requests that reached the server (or may have) and got no answer. */
    long unanswered() {
        return unanswered.get();
    }

    /** Why requests got no answer, with how often. */
    Map<String, Integer> errors() {
        return Map.copyOf(errors);
    }
}
