package dev.interlace.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import javax.net.ssl.SSLContext;

/**
 * A consumer-group loop over HTTP: lease, read a batch after the committed offset, hand it to user code, commit,
 * renew — at least once. If the handler throws, nothing is committed and the batch is read again; if the lease is
 * lost (expired, taken over), the loop leases again and resumes from the group's committed offset, so nothing is
 * skipped. A server that cannot be reached is retried; a stream trimmed past the group's position (410) ends the
 * loop with an exception, and so does a refused API key (401 or 403), which retrying cannot fix. {@link #stop()} ends
 * the loop after the current batch and releases the lease.
 *
 * <p>A server with API keys needs one with the {@code consume} scope: {@link #withApiKey}; a server with a
 * certificate from a private CA needs {@link #withTrustedCertificates}.
 */
public final class StreamConsumer {

    /** User code processing one batch; throwing makes the batch be delivered again. */
    @FunctionalInterface
    public interface BatchHandler {
        void handle(List<ConsumedEvent> events) throws Exception;
    }

    /** One event as read from the stream. */
    public record ConsumedEvent(long offset, String requestId, String ingestedAt, JsonNode event) {}

    private static final long RETRY_MILLIS = 200;

    private final URI base;
    private final String stream;
    private final String group;
    private final String owner;
    private final Duration ttl;
    private final int batchSize;
    private final Duration pollWait;
    private final String apiKey;
    private final SSLContext sslContext;
    /** The partition read and committed, for a stream of several partitions (a group's position is per partition). */
    private final Integer partition;
    private final InterlaceClient client;
    /** Events keep their numbers as sent: {@code 49.50} stays {@code 49.50}, long integers stay whole. */
    private final ObjectMapper json = ExactJson.mapper();
    private volatile boolean stopped;

    private StreamConsumer(URI base, String stream, String group, String owner, Duration ttl, int batchSize,
            Duration pollWait, String apiKey, SSLContext sslContext, Integer partition) {
        this.base = Objects.requireNonNull(base, "base");
        this.stream = Objects.requireNonNull(stream, "stream");
        this.group = Objects.requireNonNull(group, "group");
        this.owner = Objects.requireNonNull(owner, "owner");
        this.ttl = ttl;
        this.batchSize = batchSize;
        this.pollWait = pollWait;
        this.apiKey = apiKey;
        this.sslContext = sslContext;
        this.partition = partition;
        this.client = InterlaceClient.builder(base).apiKey(apiKey).sslContext(sslContext).objectMapper(json).build();
    }

    /** A consumer of {@code group} on {@code stream}, identifying itself as {@code owner}; 30 s leases, batches of 100. */
    public static StreamConsumer of(URI base, String stream, String group, String owner) {
        return new StreamConsumer(base, stream, group, owner, Duration.ofSeconds(30), 100, Duration.ofSeconds(5), null,
                null, null);
    }

    /** The same consumer with other lease, batch and long-poll settings. */
    public StreamConsumer with(Duration leaseTtl, int eventsPerBatch, Duration longPoll) {
        return new StreamConsumer(base, stream, group, owner, leaseTtl, eventsPerBatch, longPoll, apiKey, sslContext,
                partition);
    }

    /** The same consumer sending this API key ({@code ilk_...}, with the {@code consume} scope) with every request. */
    public StreamConsumer withApiKey(String key) {
        return new StreamConsumer(base, stream, group, owner, ttl, batchSize, pollWait,
                key == null || key.isBlank() ? null : key.strip(), sslContext, partition);
    }

    /** The same consumer trusting only the certificates in this PEM file for {@code https://}. */
    public StreamConsumer withTrustedCertificates(Path pemFile) {
        return withSslContext(TrustedCertificates.sslContext(pemFile));
    }

    /** The same consumer using these TLS settings for {@code https://} instead of the JDK's default trust. */
    public StreamConsumer withSslContext(SSLContext context) {
        return new StreamConsumer(base, stream, group, owner, ttl, batchSize, pollWait, apiKey, context, partition);
    }

    /**
     * The same consumer of one partition of a stream of several partitions (required for one: each partition has
     * its offsets and the group its position in each; run one consumer per partition).
     */
    public StreamConsumer withPartition(int partition) {
        return new StreamConsumer(base, stream, group, owner, ttl, batchSize, pollWait, apiKey, sslContext, partition);
    }

    /** Runs the loop on the calling thread until {@link #stop()}. */
    public void run(BatchHandler handler) throws InterruptedException {
        Lease lease = null;
        while (!stopped) {
            if (lease == null || System.nanoTime() > lease.renewAtNanos) {
                lease = lease(lease);
                if (lease == null) {
                    Thread.sleep(Math.min(1000, ttl.toMillis() / 4));
                    continue;
                }
            }
            JsonNode page = call("GET", "/events?after=" + lease.committed + "&limit=" + batchSize + "&wait_ms="
                    + pollWait.toMillis(), null);
            int status = page.path("status").asInt();
            if (status == 410 || status == 404) {
                // Trimmed past the group's position, or no such stream: the caller has to decide.
                throw new IllegalStateException("reading " + stream + " failed: " + page.path("body"));
            }
            if (status != 200) {
                Thread.sleep(RETRY_MILLIS); // unreachable or restarting server: try again
                continue;
            }
            List<ConsumedEvent> events = EventPage.of(page.path("body")).events();
            if (events.isEmpty()) {
                continue;
            }
            try {
                handler.handle(events);
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception e) {
                lease = null; // deliver the batch again from the committed offset, after a pause
                Thread.sleep(RETRY_MILLIS);
                continue;
            }
            long last = events.get(events.size() - 1).offset();
            ObjectNode commit = json.createObjectNode().put("token", lease.token).put("offset", last);
            JsonNode answer = call("POST", "/consumers/" + encode(group) + "/commit", commit);
            if (answer.path("status").asInt() == 200) {
                lease.committed = last;
            } else {
                lease = null; // stale token or expired lease: lease again, resume from what the group committed
            }
        }
        if (lease != null) {
            call("POST", "/consumers/" + encode(group) + "/release", json.createObjectNode().put("token", lease.token));
        }
    }

    /** Ends {@link #run} after the batch in progress. */
    public void stop() {
        stopped = true;
    }

    private Lease lease(Lease current) {
        ObjectNode request = json.createObjectNode().put("owner", owner).put("ttl_ms", ttl.toMillis());
        JsonNode answer = call("POST", "/consumers/" + encode(group) + "/lease", request);
        if (answer.path("status").asInt() != 200) {
            return null;
        }
        JsonNode body = answer.get("body");
        Lease lease = new Lease(body.get("token").asText(), body.get("committed_offset").asLong(),
                System.nanoTime() + ttl.toNanos() / 2);
        if (current != null && current.token.equals(lease.token)) {
            lease.committed = Math.max(lease.committed, current.committed);
        }
        return lease;
    }

    /** {"status": code, "body": json}; status 0 when no JSON answer came. */
    private JsonNode call(String method, String path, JsonNode body) {
        ObjectNode result = json.createObjectNode();
        try {
            String query = partition == null ? "" : (path.contains("?") ? "&" : "?") + "partition=" + partition;
            result.set("body", client.call(body == null ? "GET" : method, "/streams/" + encode(stream) + path + query,
                    "application/json", body == null ? null : body.toString().getBytes(StandardCharsets.UTF_8)));
            return result.put("status", 200);
        } catch (ServerException e) {
            if (e.status() == 401 || e.status() == 403) {
                throw new IllegalStateException("the server refused " + (apiKey == null ? "a consumer without an API"
                        + " key (use withApiKey)" : "the consumer's API key") + ": " + e.status() + " " + e.body());
            }
            if (e.failure() == ServerException.Failure.INTERRUPTED) {
                stopped = true;
            }
            if (e.json() == null) {
                return result.put("status", 0).put("error", String.valueOf(e.getMessage()));
            }
            result.set("body", e.json());
            return result.put("status", e.status());
        }
    }

    private static String encode(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8);
    }

    private static final class Lease {
        /** The lease's token, {@code <epoch>.<secret>}: a credential, sent back only to the server. */
        final String token;
        long committed;
        final long renewAtNanos;

        Lease(String token, long committed, long renewAtNanos) {
            this.token = token;
            this.committed = committed;
            this.renewAtNanos = renewAtNanos;
        }
    }
}
