package dev.interlace.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;

/**
 * A Java client for Interlace's HTTP API (JDK HttpClient + Jackson).
 *
 * <p>Publishing splits event lists into requests under the server's limits and retries 429 and 503 — honouring
 * {@code Retry-After}, with jittered exponential backoff, until a deadline. Retrying is safe because streams
 * deduplicate by idempotency key: an event the server already stored is acknowledged as a duplicate, never stored
 * twice. Other errors are not retried and throw {@link PublishException}.
 *
 * <p>On a cluster (the Kafka log), each stream is appended to by one node, its sequencer, which every publish answer
 * names in the {@value #SEQUENCER_HEADER} header; the client sends that stream's next publishes straight there, and
 * back to its base URI when that node fails or stops sequencing the stream (the base node forwards to the current
 * one). It follows only a URL of its base URI's scheme, so that an {@code https} client never sends its key in clear;
 * {@link Builder#followSequencer} turns it off. {@link Builder#routeToSequencers} goes further: each partition's events
 * go straight to its sequencer from the first request, by the stream's map.
 *
 * <p>A server with API keys needs one: {@link Builder#apiKey} (sent as {@code Authorization: Bearer ...}); without it
 * or with a revoked one, publishing throws a {@link PublishException} with status 401. A server with a certificate
 * from a private CA needs {@link Builder#trustedCertificates}.
 */
public final class InterlaceClient {

    /** The request header that makes a warehouse request wait for publish positions (read-your-writes). */
    public static final String AFTER_HEADER = "Interlace-After";
    /** The answer header naming the node that sequences a stream (its URL), on a cluster. */
    public static final String SEQUENCER_HEADER = "Interlace-Sequencer";

    private final URI base;
    private final HttpClient http;
    private final ObjectMapper json;
    private final int maxEventsPerRequest;
    private final int maxBytesPerRequest;
    private final Duration retryDeadline;
    private final String authorization;
    private final boolean followSequencer;
    /**
     * Per stream, the node its last publish answer named as sequencer, when that is not {@link #base}: for the
     * {@value SequencerRouter#MAPS_AT_MOST} streams published to last, as the partition maps are.
     */
    private final Map<String, URI> sequencers = java.util.Collections.synchronizedMap(SequencerRouter.perStream());
    private final AvoidedNodes avoided = new AvoidedNodes();
    /** With {@link Builder#routeToSequencers}: sends each partition's events to its sequencer. */
    private final SequencerRouter router;

    private InterlaceClient(Builder builder) {
        this.base = builder.base;
        if (builder.http != null) {
            this.http = builder.http;
        } else {
            HttpClient.Builder http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                    .connectTimeout(Duration.ofSeconds(10));
            if (builder.sslContext != null) {
                http.sslContext(builder.sslContext);
            }
            this.http = http.build();
        }
        this.authorization = builder.apiKey == null ? null : "Bearer " + builder.apiKey;
        this.json = builder.json;
        this.maxEventsPerRequest = builder.maxEventsPerRequest;
        this.maxBytesPerRequest = builder.maxBytesPerRequest;
        this.retryDeadline = builder.retryDeadline;
        this.followSequencer = builder.followSequencer;
        this.router = !builder.routeToSequencers ? null : new SequencerRouter(base, json,
                (node, path, contentType, body) -> exchange(node, body == null ? "GET" : "POST", path, contentType,
                        body, Map.of()), avoided);
    }

    /** A client of the server at {@code base}, e.g. {@code http://127.0.0.1:8000}. */
    public static Builder builder(URI base) {
        return new Builder(base);
    }

    /** Publishes one event (any object Jackson can write as a JSON object). */
    public PublishResult publish(String stream, Object event) {
        return publish(stream, List.of(event).iterator());
    }

    /** Publishes events, as many requests as the limits need. */
    public PublishResult publish(String stream, List<?> events) {
        return publish(stream, events.iterator());
    }

    /**
     * Publishes events as they come, in requests of at most {@code maxEventsPerRequest} events and
     * {@code maxBytesPerRequest} bytes (NDJSON).
     *
     * @throws PublishException when a request is refused for good, or retries run past the deadline; the requests
     *     before it are durable (and a retry of the whole publish is safe)
     */
    public PublishResult publish(String stream, Iterator<?> events) {
        long accepted = 0;
        long deduplicated = 0;
        long quarantined = 0;
        Long lastOffset = null;
        java.util.Map<String, Long> positions = new java.util.TreeMap<>();
        java.util.Map<Integer, PartitionResult> partitions = new java.util.TreeMap<>();
        List<String> requestIds = new ArrayList<>();
        ByteArrayOutputStream batch = new ByteArrayOutputStream();
        int count = 0;
        while (events.hasNext() || count > 0) {
            byte[] line = null;
            if (events.hasNext()) {
                try {
                    line = json.writeValueAsBytes(events.next());
                } catch (IOException e) {
                    throw new IllegalArgumentException("an event cannot be written as JSON: " + e.getMessage(), e);
                }
                if (line.length + 1 > maxBytesPerRequest) {
                    throw new PublishException(ErrorCode.PAYLOAD_TOO_LARGE, "one event is " + line.length
                            + " bytes, more than maxBytesPerRequest " + maxBytesPerRequest);
                }
            }
            boolean full = count == maxEventsPerRequest
                    || (line != null && batch.size() + line.length + 1 > maxBytesPerRequest);
            if (count > 0 && (full || line == null)) {
                JsonNode result = send(stream, batch.toByteArray());
                accepted += result.path("accepted").asLong();
                deduplicated += result.path("deduplicated").asLong();
                quarantined += result.path("quarantined").asLong();
                if (!result.path("last_offset").isNull()) {
                    long offset = result.path("last_offset").asLong();
                    lastOffset = lastOffset == null ? offset : Math.max(lastOffset, offset);
                }
                // A position per partition the events fell in (one for a stream of one partition): the furthest of
                // each, so that the result's position covers every request.
                for (String item : result.path("position").asText("").split(",")) {
                    int colon = item.lastIndexOf(':');
                    if (colon > 0) {
                        positions.merge(item.substring(0, colon), Long.parseLong(item.substring(colon + 1)),
                                Math::max);
                    }
                }
                for (PartitionResult part : PartitionResult.of(result.path("partitions"))) {
                    partitions.merge(part.partition(), part, (had, now) -> had.lastOffset() == null
                            || (now.lastOffset() != null && now.lastOffset() > had.lastOffset()) ? now : had);
                }
                if (result.path("request_ids").isArray()) {
                    result.get("request_ids").forEach(id -> requestIds.add(id.asText()));
                } else {
                    requestIds.add(result.path("request_id").asText());
                }
                batch.reset();
                count = 0;
            }
            if (line != null) {
                batch.write(line, 0, line.length);
                batch.write('\n');
                count++;
            }
        }
        StringBuilder joined = new StringBuilder();
        positions.forEach((name, offset) -> joined.append(joined.length() == 0 ? "" : ",").append(name).append(':')
                .append(offset));
        String position = joined.length() == 0 ? null : joined.toString();
        return new PublishResult(accepted, deduplicated, quarantined, lastOffset, position, requestIds,
                List.copyOf(partitions.values()));
    }

    /**
     * Sends one request to the server and returns its JSON answer: the one call under publishing, consuming and the
     * CLI, so that all of them send the API key, trust the same certificates and report failures alike. Not retried.
     *
     * @param path the request's path and query, starting with {@code /}; appended to the base URI
     * @param contentType the body's media type, or null when there is no body
     * @param body the request body, or null for none
     * @return the parsed body of a 2xx answer (a missing node when it is empty)
     * @throws ServerException when the server cannot be reached, TLS fails, or it answers other than 2xx JSON
     * @throws IllegalArgumentException when the base URI and {@code path} do not make a URI the client can call
     */
    public JsonNode call(String method, String path, String contentType, byte[] body) {
        return call(method, path, contentType, body, Map.of());
    }

    /** {@link #call(String, String, String, byte[])} with extra request headers, e.g. {@code Interlace-After}. */
    public JsonNode call(String method, String path, String contentType, byte[] body, Map<String, String> headers) {
        return exchange(base, method, path, contentType, body, headers).body();
    }

    /**
     * Sends one publish request ({@code POST /streams/{stream}}, the body as it is) to the stream's sequencer when a
     * publish answer named one, else to the base URI, and returns its JSON answer. When the named node cannot be
     * reached or answers {@code 503}, it is forgotten and the request goes once more, at once, to the base URI. Not
     * retried otherwise: {@link #publish} retries; a caller with its own retry policy (the CLI) calls this.
     *
     * @throws ServerException as {@link #call(String, String, String, byte[])}
     */
    public JsonNode publishRequest(String stream, String contentType, byte[] body) {
        if (router != null && contentType != null && contentType.startsWith("application/x-ndjson")) {
            JsonNode routed = router.publish(stream, body);
            if (routed != null) {
                return routed;
            }
        }
        String path = "/streams/" + URLEncoder.encode(stream, StandardCharsets.UTF_8);
        URI sequencer = followSequencer ? sequencers.get(stream) : null;
        if (sequencer != null) {
            try {
                return learned(stream, exchange(sequencer, "POST", path, contentType, body, Map.of()));
            } catch (ServerException e) {
                SequencerRouter.fallBack(e, sequencer, avoided);
                sequencers.remove(stream, sequencer);
            }
        }
        return learned(stream, exchange(base, "POST", path, contentType, body, Map.of()));
    }

    /** The body of {@code answer}, after noting the sequencer it names for {@code stream}. */
    private JsonNode learned(String stream, SequencerRouter.Answer answer) {
        if (followSequencer) {
            URI named = answer.sequencer();
            if (named == null || SequencerRouter.sameNode(named, base)) {
                sequencers.remove(stream);
            } else if (named.getScheme() != null && named.getScheme().equalsIgnoreCase(base.getScheme())
                    && !avoided.avoiding(named)) {
                sequencers.put(stream, named);
            }
        }
        return answer.body();
    }

    private SequencerRouter.Answer exchange(URI root, String method, String path, String contentType, byte[] body,
            Map<String, String> headers) {
        URI uri = URI.create(SequencerRouter.trimmed(root.toString()) + path);
        HttpRequest.Builder request = HttpRequest.newBuilder(uri);
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        headers.forEach(request::header);
        if (body != null) {
            request.header("Content-Type", contentType).method(method, HttpRequest.BodyPublishers.ofByteArray(body));
        } else {
            request.method(method, HttpRequest.BodyPublishers.noBody());
        }
        HttpResponse<byte[]> response;
        try {
            response = http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
        } catch (ConnectException e) {
            throw ServerException.transport(ServerException.Failure.UNREACHABLE, uri, e);
        } catch (IOException e) {
            SSLException tls = tlsFailure(e);
            throw tls != null ? ServerException.transport(ServerException.Failure.TLS, uri, tls)
                    : ServerException.transport(ServerException.Failure.BROKEN, uri, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ServerException.transport(ServerException.Failure.INTERRUPTED, uri, e);
        }
        String text = new String(response.body(), StandardCharsets.UTF_8);
        JsonNode answer;
        try {
            answer = json.readTree(text);
        } catch (IOException e) {
            answer = null;
        }
        int status = response.statusCode();
        if (status / 100 != 2 || answer == null) {
            throw ServerException.answered(uri, status, text, answer,
                    response.headers().firstValue("Retry-After").stream().mapToLong(InterlaceClient::seconds)
                            .findFirst());
        }
        URI sequencer = response.headers().firstValue(SEQUENCER_HEADER).map(InterlaceClient::uriOrNull).orElse(null);
        return new SequencerRouter.Answer(answer, sequencer);
    }

    private static URI uriOrNull(String text) {
        try {
            URI uri = URI.create(text.strip());
            return uri.isAbsolute() && uri.getHost() != null ? uri : null;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /**
     * Runs one read-only query on the warehouse ({@code POST /sql}) and returns its answer: {@code columns},
     * {@code rows}, {@code count}, {@code truncated}. With {@code after} — the {@link PublishResult#position()} of
     * earlier publishes — the server answers once those events are materialised (read-your-writes), or refuses with
     * {@code 503 not_materialised} after its {@code --read-wait-ms}. Not retried.
     *
     * @throws ServerException when the query is refused or fails
     */
    public JsonNode sql(String query, String... after) {
        Map<String, String> headers = new LinkedHashMap<>();
        List<String> positions = new ArrayList<>();
        for (String position : after) {
            if (position != null) {
                positions.add(position);
            }
        }
        if (!positions.isEmpty()) {
            headers.put(AFTER_HEADER, String.join(", ", positions));
        }
        return call("POST", "/sql", "text/plain; charset=utf-8", query.getBytes(StandardCharsets.UTF_8), headers);
    }

    /**
     * Reads up to {@code limit} events after offset {@code after}: of partition {@code partition} (required for a stream
     * of several partitions, else {@code 400 partition_required}; null for a stream of one). Not retried.
     */
    public EventPage read(String stream, Integer partition, long after, int limit) {
        return EventPage.read(this, stream, partition, after, limit);
    }

    /**
     * Publishes {@code events} to {@code stream}, then runs {@code query} once they are materialised: what the
     * query answers includes them.
     */
    public JsonNode publishThen(String stream, List<?> events, String query) {
        PublishResult published = publish(stream, events);
        return sql(query, published.position());
    }

    /** Publishes one request's NDJSON body, retrying 429, 503 and unreachable servers until the deadline. */
    private JsonNode send(String stream, byte[] body) {
        long deadline = System.nanoTime() + retryDeadline.toNanos();
        long backoffMillis = 100;
        while (true) {
            try {
                return publishRequest(stream, "application/x-ndjson", body);
            } catch (ServerException e) {
                switch (e.failure()) {
                    case TLS -> throw new PublishException(0, "tls_failed", "TLS with " + base + " failed (if its"
                            + " certificate comes from a private CA, pass it to trustedCertificates): "
                            + e.getCause().getMessage());
                    case INTERRUPTED -> throw new PublishException(0, "interrupted", "interrupted while publishing");
                    case UNREACHABLE, BROKEN -> {
                        if (System.nanoTime() > deadline) {
                            throw new PublishException(0, "unreachable", "cannot reach " + base + ": "
                                    + e.getCause().getMessage());
                        }
                    }
                    case STATUS, NOT_JSON -> {
                        String code = e.code() == null ? "error" : e.code();
                        String message = e.serverMessage() == null ? "" : e.serverMessage();
                        if (e.status() != 429 && e.status() != 503) {
                            throw PublishException.refused(e.status(), code, message, e.json());
                        }
                        backoffMillis = Math.max(backoffMillis, e.retryAfterSeconds().orElse(0) * 1000);
                        if (System.nanoTime() + backoffMillis * 1_000_000L > deadline) {
                            throw PublishException.refused(e.status(), code, "still refused after retrying for "
                                    + retryDeadline.toSeconds() + " s: " + message, e.json());
                        }
                    }
                }
            }
            sleep(backoffMillis / 2 + ThreadLocalRandom.current().nextLong(backoffMillis / 2 + 1));
            backoffMillis = Math.min(backoffMillis * 2, 10_000);
        }
    }

    private static SSLException tlsFailure(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof SSLException tls) {
                return tls;
            }
        }
        return null;
    }

    private static long seconds(String header) {
        try {
            return Long.parseLong(header.strip());
        } catch (NumberFormatException e) {
            return 1;
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PublishException(0, "interrupted", "interrupted while waiting to retry");
        }
    }

    /** Configures a client. */
    public static final class Builder {
        private final URI base;
        private HttpClient http;
        private ObjectMapper json = new ObjectMapper();
        private int maxEventsPerRequest = 1000;
        private int maxBytesPerRequest = 1 << 20;
        private Duration retryDeadline = Duration.ofSeconds(60);
        private String apiKey;
        private SSLContext sslContext;
        private boolean followSequencer = true;
        private boolean routeToSequencers;

        private Builder(URI base) {
            this.base = Objects.requireNonNull(base, "base");
        }

        /** Sends requests with this client; {@link #sslContext} and {@link #trustedCertificates} then do nothing. */
        public Builder httpClient(HttpClient client) {
            this.http = client;
            return this;
        }

        /** The API key ({@code ilk_...}) to send with every request, e.g. from {@code INTERLACE_API_KEY}. */
        public Builder apiKey(String key) {
            this.apiKey = key == null || key.isBlank() ? null : key.strip();
            return this;
        }

        /** Trusts only the certificates in this PEM file (a private CA, or the server's self-signed certificate). */
        public Builder trustedCertificates(Path pemFile) {
            return sslContext(TrustedCertificates.sslContext(pemFile));
        }

        /** The TLS settings to reach an {@code https://} server with, instead of the JDK's default trust. */
        public Builder sslContext(SSLContext context) {
            this.sslContext = context;
            return this;
        }

        public Builder objectMapper(ObjectMapper mapper) {
            this.json = mapper;
            return this;
        }

        /** At most this many events per request (keep it at or under the server's max-events-per-request). */
        public Builder maxEventsPerRequest(int events) {
            this.maxEventsPerRequest = events;
            return this;
        }

        /** At most this many body bytes per request (keep it under the server's max-body-bytes). */
        public Builder maxBytesPerRequest(int bytes) {
            this.maxBytesPerRequest = bytes;
            return this;
        }

        /** How long one request may keep being retried on 429 and 503. */
        public Builder retryDeadline(Duration deadline) {
            this.retryDeadline = deadline;
            return this;
        }

        /**
         * Whether publishes go straight to the node a publish answer names as the stream's sequencer (default: yes);
         * with {@code false} every request goes to the base URI, which forwards it on a cluster.
         */
        public Builder followSequencer(boolean follow) {
            this.followSequencer = follow;
            return this;
        }

        /**
         * Whether publishes go straight to the sequencer of each event's partition (default: no): the client reads
         * the stream's map ({@code GET /streams/{name}}) from the base URI, splits each request by partition as the
         * server would, sends each part to its sequencer (reachable at its advertised URL, same API key) and merges
         * the answers. A part whose sequencer fails or moved goes to the base URI, which forwards it, and the map is
         * read again. A request with an event the client cannot place (a key neither {@code string} nor
         * {@code bigint}, a value of the wrong type) goes to the base URI whole, which splits it.
         */
        public Builder routeToSequencers(boolean route) {
            this.routeToSequencers = route;
            return this;
        }

        public InterlaceClient build() {
            return new InterlaceClient(this);
        }
    }
}
