package dev.interlace.integration.crash;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Concurrent publishers of fresh keys to {@code POST /streams/orders}: single events, small JSON-array batches and
 * the odd batch of a few hundred events, over keep-alive connections. Each client records its outcomes in the
 * {@link Ledger}.
 *
 * <p>Against one server ({@link #start}) a client stops once the server refuses connections (it died), at the first
 * answer that is not a 200, or at its deadline. Against several nodes of a cluster ({@link #failover}) a client sends
 * each request to a node chosen at random and retries every failed or unanswered request, with the same events, on
 * the next node until one answers 200, as a client behind a load balancer would; it stops at {@link #stop}.
 */
public final class Load {

    static final int CLIENTS = 16;
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(15);
    private static final long FAILOVER_PAUSE_MILLIS = 100;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final List<URI> publish;
    private final Duration requestTimeout;
    private final Ledger ledger;
    private final String keyPrefix;
    private final long deadlineNanos;
    private final HttpClient http;
    private final List<Thread> clients = new ArrayList<>();
    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong acknowledgedEvents = new AtomicLong();
    private final AtomicLong unanswered = new AtomicLong();
    /** When each 200 came ({@link System#nanoTime}), in the order they came. */
    private final java.util.Queue<Long> acknowledgedAt = new java.util.concurrent.ConcurrentLinkedQueue<>();
    private final Map<String, Integer> errors = new ConcurrentHashMap<>();
    private final Map<String, Integer> refusals = new ConcurrentHashMap<>();
    private volatile boolean stopped;

    private Load(List<URI> servers, boolean failover, int clientCount, Duration requestTimeout, Ledger ledger,
            String keyPrefix, Duration maxDuration, long seed) {
        this.publish = servers.stream().map(server -> server.resolve("/streams/orders")).toList();
        this.requestTimeout = requestTimeout;
        this.ledger = ledger;
        this.keyPrefix = keyPrefix;
        this.deadlineNanos = System.nanoTime() + maxDuration.toNanos();
        this.http = ChildJvm.httpClient();
        SplittableRandom random = new SplittableRandom(seed);
        for (int i = 0; i < clientCount; i++) {
            int client = i;
            SplittableRandom own = random.split();
            Thread thread = new Thread(() -> {
                if (failover) {
                    runWithFailover(client, own);
                } else {
                    run(client, own);
                }
            }, "crash-client-" + keyPrefix + "-" + i);
            thread.setDaemon(true);
            clients.add(thread);
        }
    }

    /** Starts {@value #CLIENTS} clients against {@code server}; each key is {@code keyPrefix-<client>-<n>}. */
    public static Load start(URI server, Ledger ledger, String keyPrefix, Duration maxDuration, long seed) {
        Load load = new Load(List.of(server), false, CLIENTS, REQUEST_TIMEOUT, ledger, keyPrefix, maxDuration, seed);
        load.clients.forEach(Thread::start);
        return load;
    }

    /**
     * Starts {@code clients} clients that spread their requests over {@code nodes} and retry each failed request
     * (an answer other than 200, or none within {@code requestTimeout}) on the next node until one answers 200 or
     * the load is {@linkplain #stop stopped}; each key is {@code keyPrefix-<client>-<random>}. A retry may find its
     * events stored already by an attempt whose answer was lost: then they are answered as duplicates, and recorded
     * with their original offsets.
     */
    public static Load failover(List<URI> nodes, Ledger ledger, String keyPrefix, int clients,
            Duration requestTimeout, long seed) {
        Load load = new Load(nodes, true, clients, requestTimeout, ledger, keyPrefix, Duration.ofDays(1), seed);
        load.clients.forEach(Thread::start);
        return load;
    }

    /** Makes every client stop after its current request (one still being retried stays in doubt). */
    public void stop() {
        stopped = true;
    }

    /** A new request of fresh keys: half single objects, half arrays of 1 to 8 events, now and then a big batch. */
    private record Batch(List<String> keys, String body) {}

    private Batch batch(SplittableRandom random, Supplier<String> nextKey) {
        boolean array = random.nextBoolean();
        int size = !array ? 1 : random.nextInt(25) == 0 ? 100 + random.nextInt(300) : 1 + random.nextInt(8);
        List<String> keys = new ArrayList<>(size);
        StringBuilder body = new StringBuilder(array ? "[" : "");
        for (int i = 0; i < size; i++) {
            String key = nextKey.get();
            keys.add(key);
            body.append(i == 0 ? "" : ",").append(event(key, random));
        }
        body.append(array ? "]" : "");
        return new Batch(keys, body.toString());
    }

    private void run(int client, SplittableRandom random) {
        long[] sequence = {0};
        while (System.nanoTime() < deadlineNanos && !stopped) {
            Batch batch = batch(random, () -> keyPrefix + "-" + client + "-" + sequence[0]++);
            List<String> keys = batch.keys();
            HttpRequest request = ChildJvm.jsonPost(publish.get(0), batch.body(), REQUEST_TIMEOUT);
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

    private void runWithFailover(int client, SplittableRandom random) {
        while (!stopped) {
            Batch batch = batch(random, () -> keyPrefix + "-" + client + "-" + Long.toHexString(random.nextLong()));
            int node = random.nextInt(publish.size());
            boolean retry = false;
            while (true) {
                if (stopped) {
                    ledger.doubt(batch.keys());
                    return;
                }
                HttpRequest request = ChildJvm.jsonPost(URI.create(publish.get(node) + "?verbose=true"), batch.body(),
                        requestTimeout);
                requests.incrementAndGet();
                HttpResponse<String> response = null;
                try {
                    response = http.send(request, HttpResponse.BodyHandlers.ofString());
                } catch (IOException e) {
                    unanswered.incrementAndGet();
                    errors.merge(e.getClass().getSimpleName(), 1, Integer::sum);
                } catch (InterruptedException e) {
                    ledger.doubt(batch.keys());
                    Thread.currentThread().interrupt();
                    return;
                }
                if (response != null && response.statusCode() == 200) {
                    if (!recordVerbose(batch.keys(), response, retry)) {
                        return;
                    }
                    break;
                }
                if (response != null && response.statusCode() < 500 && response.statusCode() != 429) {
                    ledger.doubt(batch.keys());
                    ledger.anomaly("HTTP " + response.statusCode() + " for keys " + batch.keys() + ": "
                            + response.body());
                    return;
                }
                if (response != null) {
                    refusals.merge(response.statusCode() + " " + errorCode(response.body()), 1, Integer::sum);
                }
                retry = true;
                node = (node + 1) % publish.size();
                try {
                    Pause.millis(FAILOVER_PAUSE_MILLIS); // a client's back-off
                } catch (InterruptedException e) {
                    ledger.doubt(batch.keys());
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private static String errorCode(String body) {
        try {
            return JSON.readTree(body).path("error").asText("?");
        } catch (IOException e) {
            return "?";
        }
    }

    /**
     * Records a verbose 200: each event accepted (at its offset, by this request) or, only for a retry, a duplicate
     * stored by an earlier attempt (at its original offset), in the partition the answer names (0 on a stream of
     * one). Each partition's share of a request is atomic, so both within one partition is a torn request (on a
     * stream of one partition: the request is atomic); of a partitioned stream, an earlier attempt may have stored
     * some partitions' shares and not others.
     */
    private boolean recordVerbose(List<String> keys, HttpResponse<String> response, boolean retry) {
        JsonNode body = body200(keys, response);
        if (body == null) {
            return false;
        }
        JsonNode results = body.path("results");
        Map<Integer, String> statusOfPartition = new java.util.HashMap<>();
        boolean whole = results.size() == keys.size();
        for (int i = 0; whole && i < keys.size(); i++) {
            String status = results.get(i).path("status").asText();
            String first = statusOfPartition.putIfAbsent(results.get(i).path("partition").asInt(0), status);
            whole = (status.equals("accepted") || retry && status.equals("duplicate"))
                    && (first == null || first.equals(status));
        }
        if (!whole || body.path("accepted").asLong(-1) + body.path("deduplicated").asLong(-1) != keys.size()) {
            ledger.doubt(keys);
            ledger.anomaly("200 with unexpected counts for " + (retry ? "retried" : "fresh") + " keys " + keys
                    + ": " + response.body());
            return false;
        }
        String requestId = body.path("request_id").asText(null);
        for (int i = 0; i < keys.size(); i++) {
            JsonNode result = results.get(i);
            ledger.acknowledge(keys.get(i), result.path("partition").asInt(0), result.path("offset").asLong(),
                    result.path("status").asText().equals("accepted") ? requestId : null);
        }
        acknowledgedEvents.addAndGet(keys.size());
        acknowledgedAt.add(System.nanoTime());
        return true;
    }

    public static String event(String key, SplittableRandom random) {
        return "{\"order_id\":\"" + key + "\",\"total\":" + random.nextInt(100_000) / 100.0
                + ",\"meta\":{\"crash\":true}}";
    }

    /** A JSON array of orders keyed {@code keys}, as the publishers send them (the same totals for the same keys). */
    public static String batch(List<String> keys) {
        SplittableRandom random = new SplittableRandom(1);
        StringBuilder body = new StringBuilder("[");
        for (String key : keys) {
            body.append(body.length() == 1 ? "" : ",").append(event(key, random));
        }
        return body.append(']').toString();
    }

    /** The body of a 200, or null (its keys in doubt, an anomaly noted) when it is not JSON. */
    private JsonNode body200(List<String> keys, HttpResponse<String> response) {
        try {
            return JSON.readTree(response.body());
        } catch (IOException e) {
            ledger.doubt(keys);
            ledger.anomaly("unparsable 200 body for keys " + keys + ": " + response.body());
            return null;
        }
    }

    /** Records the answer to a request; false when it was not a 200. */
    private boolean record(List<String> keys, HttpResponse<String> response) {
        if (response.statusCode() != 200) {
            ledger.doubt(keys);
            ledger.anomaly("HTTP " + response.statusCode() + " for keys " + keys + ": " + response.body());
            return false;
        }
        JsonNode body = body200(keys, response);
        if (body == null) {
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
        acknowledgedAt.add(System.nanoTime());
        return true;
    }

    /** Waits (bounded) until at least {@code events} events were acknowledged by this load; false on timeout. */
    public boolean awaitAcknowledged(long events, Duration timeout) throws InterruptedException {
        return Threads.awaitAcknowledged(clients, acknowledgedEvents::get, events, timeout);
    }

    /** When each 200 came, as {@link System#nanoTime} values in the order they came. */
    public List<Long> acknowledgedAt() {
        return List.copyOf(acknowledgedAt);
    }

    /** Waits for every client to finish; true when all did within {@code timeout}. */
    public boolean awaitEnd(Duration timeout) throws InterruptedException {
        return Threads.joinAll(clients, timeout);
    }

    /** Requires {@code events} more acknowledged events than now within 90 s. */
    public void awaitMore(long events) throws InterruptedException {
        awaitMore(events, Duration.ofSeconds(90));
    }

    /**
     * Requires {@code events} more acknowledged events than now within {@code timeout}: the proof that publishing
     * goes on, between one failure and the next.
     */
    public void awaitMore(long events, Duration timeout) throws InterruptedException {
        long target = acknowledgedEvents() + events;
        assertThat(awaitAcknowledged(target, timeout)).as("%s more events acknowledged within %s; refused %s, errors"
                + " %s", events, timeout, refusals(), errors()).isTrue();
    }

    /** Stops the clients and requires them all to end within a minute, as a test ends its load before the oracle. */
    public void stopAndAwaitEnd() throws InterruptedException {
        stop();
        assertThat(awaitEnd(Duration.ofSeconds(60))).as("the publishers stop").isTrue();
    }

    /** What the load did, in one line: requests, acknowledged events, unanswered requests, refusals and errors. */
    public String summary() {
        return "load: " + requests() + " requests, " + acknowledgedEvents() + " events acknowledged, " + unanswered()
                + " unanswered, refused " + refusals() + ", errors " + errors();
    }

    public long requests() {
        return requests.get();
    }

    public long acknowledgedEvents() {
        return acknowledgedEvents.get();
    }

    /** Requests that reached the server (or may have) and got no answer. */
    public long unanswered() {
        return unanswered.get();
    }

    /** Why requests got no answer, with how often. */
    public Map<String, Integer> errors() {
        return Map.copyOf(errors);
    }

    /** Answers other than 200 that a failover client retried elsewhere, by status and error code, with how often. */
    public Map<String, Integer> refusals() {
        return Map.copyOf(refusals);
    }
}
