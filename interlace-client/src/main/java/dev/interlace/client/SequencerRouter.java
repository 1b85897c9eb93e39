package dev.interlace.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Sends a publish's events straight to the sequencer of each one's partition ({@link InterlaceClient.Builder
 * #routeToSequencers}): the stream's map comes from {@code GET /streams/{name}} on the base node, a request is split
 * by partition ({@link Partitioning}, as the server splits it) and each part goes to its partition's sequencer as
 * {@code POST /streams/{name}?partition=p}, all at once; the answers are merged into the answer the server's own
 * split gives.
 *
 * <p>The map is followed: a part whose node cannot be reached, answers {@code 503}, or whose answer names another
 * sequencer makes the client read the map again, and the part goes at once to the base node, which forwards it
 * (forwarding is the fallback). Maps are kept for {@value #FRESH_SECONDS} s, at most {@value #MAPS_AT_MOST} streams
 * (the least recently used is dropped).
 */
final class SequencerRouter {

    static final int MAPS_AT_MOST = 256;
    /** Sends the shares of a request but its last (daemon threads, gone after a minute idle). */
    private static final ExecutorService SHARES = Executors.newCachedThreadPool(task -> {
        Thread thread = new Thread(task, "interlace-client-share");
        thread.setDaemon(true);
        return thread;
    });
    static final long FRESH_SECONDS = 30;

    /** Sends one request to a node and returns its 2xx answer, or throws {@link ServerException}. */
    interface Exchange {
        Answer send(URI node, String path, String contentType, byte[] body);
    }

    /** A 2xx answer and the sequencer it names, if any. */
    record Answer(JsonNode body, URI sequencer) {
    }

    private final URI base;
    private final ObjectMapper json;
    private final Exchange exchange;
    private final Avoided avoided;
    private final AtomicLong roundRobin = new AtomicLong();
    private final Map<String, StreamMap> maps = perStream();

    /** A map by stream that keeps the {@value #MAPS_AT_MOST} streams used last (not thread-safe). */
    static <V> Map<String, V> perStream() {
        return new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, V> eldest) {
                return size() > MAPS_AT_MOST;
            }
        };
    }

    /** Nodes not to send to for a while (they could not be reached). */
    interface Avoided {
        boolean avoiding(URI node);

        void avoid(URI node);
    }

    SequencerRouter(URI base, ObjectMapper json, Exchange exchange, Avoided avoided) {
        this.base = base;
        this.json = json;
        this.exchange = exchange;
        this.avoided = avoided;
    }

    /** How many streams' maps are kept (for tests). */
    synchronized int mapsKept() {
        return maps.size();
    }

    /**
     * Publishes an NDJSON body, split by partition; null when it cannot be routed (no map, a log without
     * sequencers, an event whose partition this client cannot choose): the caller sends it as it is.
     *
     * @throws ServerException a part's refusal, its {@code index} and {@code line} fields those of the whole body,
     *     with {@code stored_partitions} and {@code not_stored_partitions} when other parts were stored
     */
    JsonNode publish(String stream, byte[] body) {
        StreamMap map = map(stream);
        if (map == null || !map.sequenced()) {
            return null;
        }
        // Each event's partition, its index and line in the body.
        Map<Integer, Part> parts = new TreeMap<>();
        // Events without a key all go to one partition, the next one round robin: a request of a keyless stream
        // is then one share, stored whole or not at all (the server accepts keyless events in any partition).
        int keyless = -1;
        int index = 0;
        int line = 0;
        int start = 0;
        for (int i = 0; i <= body.length; i++) {
            if (i < body.length && body[i] != '\n') {
                continue;
            }
            line++;
            if (!blank(body, start, i)) {
                JsonNode event;
                try {
                    event = json.readTree(body, start, i - start);
                } catch (IOException e) {
                    return null; // the server says what is wrong with it
                }
                if (event == null || !event.isObject()) {
                    return null;
                }
                String key = map.canonicalKey(event);
                if (key == StreamMap.UNKNOWN) {
                    return null;
                }
                if (key == null && keyless < 0) {
                    keyless = (int) Long.remainderUnsigned(roundRobin.getAndIncrement(), map.partitions());
                }
                int partition = key != null ? Partitioning.partitionOf(key, map.partitions()) : keyless;
                parts.computeIfAbsent(partition, Part::new).add(body, start, i, index, line);
                index++;
            }
            start = i + 1;
        }
        if (parts.isEmpty()) {
            return null;
        }
        // The shares go out together, as the server sends them: all but the last one from the pool.
        List<Part> shares = new ArrayList<>(parts.values());
        List<CompletableFuture<JsonNode>> sent = new ArrayList<>();
        for (int i = 0; i < shares.size(); i++) {
            Part part = shares.get(i);
            if (i < shares.size() - 1) {
                sent.add(CompletableFuture.supplyAsync(() -> send(stream, map, part), SHARES));
            } else {
                CompletableFuture<JsonNode> last = new CompletableFuture<>();
                try {
                    last.complete(send(stream, map, part));
                } catch (RuntimeException e) {
                    last.completeExceptionally(e);
                }
                sent.add(last);
            }
        }
        List<JsonNode> answers = new ArrayList<>();
        List<Integer> notStored = new ArrayList<>();
        RuntimeException failure = null;
        Part failed = null;
        for (int i = 0; i < shares.size(); i++) {
            try {
                answers.add(sent.get(i).join());
            } catch (CompletionException e) {
                notStored.add(shares.get(i).partition);
                if (failure == null) {
                    failure = e.getCause() instanceof RuntimeException cause ? cause : e;
                    failed = shares.get(i);
                }
            }
        }
        if (failure instanceof ServerException refusal) {
            throw refused(refusal, failed, answers, notStored);
        } else if (failure != null) {
            throw failure;
        }
        return merged(answers);
    }

    /** Sends one part to its partition's sequencer, or to the base node when that fails or is not known. */
    private JsonNode send(String stream, StreamMap map, Part part) {
        String path = "/streams/" + URLEncoder.encode(stream, StandardCharsets.UTF_8)
                + (map.partitions() > 1 ? "?partition=" + part.partition : "");
        byte[] body = part.body.toByteArray();
        URI sequencer = map.sequencers()[part.partition];
        if (sequencer != null && !sameNode(sequencer, base) && followable(sequencer)) {
            try {
                return learned(stream, map, part.partition, sequencer,
                        exchange.send(sequencer, path, "application/x-ndjson", body));
            } catch (ServerException e) {
                fallBack(e, sequencer, avoided);
                forget(stream, map);
            }
        }
        return learned(stream, map, part.partition, base, exchange.send(base, path, "application/x-ndjson", body));
    }

    /** The answer's body, after following the sequencer it names when it is not the node the part went to. */
    private JsonNode learned(String stream, StreamMap map, int partition, URI sentTo, Answer answer) {
        URI named = answer.sequencer();
        if (named != null && !sameNode(named, sentTo)) {
            // The partition moved (or the part went to the base node): the answer names the node that holds it now.
            map.sequencers()[partition] = followable(named) ? named : null;
        }
        return answer.body();
    }

    private boolean followable(URI node) {
        return node.getScheme() != null && node.getScheme().equalsIgnoreCase(base.getScheme())
                && !avoided.avoiding(node);
    }

    /** The stream's map, read again when it is older than {@value #FRESH_SECONDS} s; null for an unknown stream. */
    private StreamMap map(String stream) {
        long now = System.nanoTime();
        StreamMap map;
        synchronized (this) {
            map = maps.get(stream);
        }
        if (map != null && now - map.fetchedNanos() < FRESH_SECONDS * 1_000_000_000L) {
            return map;
        }
        JsonNode described;
        try {
            described = exchange.send(base, "/streams/" + URLEncoder.encode(stream, StandardCharsets.UTF_8), null,
                    null).body();
        } catch (ServerException e) {
            return null; // the publish goes as it is, and its answer says what is wrong
        }
        StreamMap read = StreamMap.of(described, now);
        synchronized (this) {
            if (read == null) {
                maps.remove(stream);
            } else {
                maps.put(stream, read);
            }
        }
        return read;
    }

    /** Drops the stream's map, so that its next publish reads it again. */
    private synchronized void forget(String stream, StreamMap map) {
        maps.remove(stream, map);
    }

    /** The answers of every part as one, as the server answers a request it split itself. */
    private JsonNode merged(List<JsonNode> answers) {
        ObjectNode merged = json.createObjectNode();
        long accepted = 0;
        long deduplicated = 0;
        long quarantined = 0;
        Long lastOffset = null;
        List<String> positions = new ArrayList<>();
        ArrayNode partitions = json.createArrayNode();
        ArrayNode requestIds = json.createArrayNode();
        for (JsonNode answer : answers) {
            accepted += answer.path("accepted").asLong();
            deduplicated += answer.path("deduplicated").asLong();
            quarantined += answer.path("quarantined").asLong();
            if (answer.path("last_offset").isNumber()) {
                lastOffset = lastOffset == null ? answer.get("last_offset").asLong()
                        : Math.max(lastOffset, answer.get("last_offset").asLong());
            }
            if (answer.path("position").isTextual()) {
                positions.add(answer.get("position").asText());
            }
            answer.path("partitions").forEach(partitions::add);
            requestIds.add(answer.path("request_id").asText());
        }
        merged.put("accepted", accepted).put("deduplicated", deduplicated).put("quarantined", quarantined);
        if (lastOffset == null) {
            merged.putNull("last_offset");
        } else {
            merged.put("last_offset", lastOffset);
        }
        merged.put("position", positions.isEmpty() ? null : String.join(",", positions));
        if (!partitions.isEmpty()) {
            merged.set("partitions", partitions);
        }
        merged.put("request_id", requestIds.get(0).asText());
        merged.set("request_ids", requestIds);
        return merged;
    }

    /**
     * A part's refusal as a refusal of the whole body: the events it names renumbered as in the body, and the parts
     * stored before it named as the server names them in a request it split itself.
     */
    private ServerException refused(ServerException e, Part part, List<JsonNode> stored, List<Integer> notStored) {
        if (e.json() == null || !e.json().isObject()) {
            return e;
        }
        ObjectNode body = ((ObjectNode) e.json()).deepCopy();
        renumber(body, part);
        body.path("errors").forEach(error -> {
            if (error.isObject()) {
                renumber((ObjectNode) error, part);
            }
        });
        if (!stored.isEmpty()) {
            ArrayNode storedPartitions = body.putArray("stored_partitions");
            stored.forEach(answer -> answer.path("partitions").forEach(storedPartitions::add));
            ArrayNode notStoredPartitions = body.putArray("not_stored_partitions");
            notStored.forEach(notStoredPartitions::add);
            body.put("message", "the events of partitions " + stored.stream().flatMap(answer -> {
                List<Integer> partitions = new ArrayList<>();
                answer.path("partitions").forEach(p -> partitions.add(p.path("partition").asInt()));
                return partitions.stream();
            }).toList() + " are stored, those of partitions " + notStored + " are not: "
                    + body.path("message").asText() + ". A retry of the whole request is deduplicated partition by"
                    + " partition when the stream has an idempotency key");
        }
        String text;
        try {
            text = json.writeValueAsString(body);
        } catch (IOException failure) {
            return e;
        }
        return ServerException.answered(e.uri(), e.status(), text, body, e.retryAfterSeconds());
    }

    private static void renumber(ObjectNode item, Part part) {
        if (item.path("index").isInt() && item.get("index").asInt() < part.indexes.size()) {
            int at = item.get("index").asInt();
            item.put("index", part.indexes.get(at));
            if (item.path("line").isInt()) {
                item.put("line", part.lines.get(at));
            }
        }
    }

    private static boolean blank(byte[] body, int from, int to) {
        for (int i = from; i < to; i++) {
            if (body[i] != ' ' && body[i] != '\t' && body[i] != '\r') {
                return false;
            }
        }
        return true;
    }

    /**
     * Decides what a request sent straight to {@code sequencer} that ended in {@code e} does next: when the sequencer
     * was unreachable, broke off (both: avoided for a while) or answered 503 (it no longer sequences), the caller sends
     * the request to its base node instead; any other failure is the answer, thrown again here.
     */
    static void fallBack(ServerException e, URI sequencer, Avoided avoided) {
        boolean elsewhere = switch (e.failure()) {
            case UNREACHABLE, BROKEN -> true;
            case STATUS, NOT_JSON -> e.status() == 503;
            case TLS, INTERRUPTED -> false;
        };
        if (!elsewhere) {
            throw e;
        }
        if (e.failure() == ServerException.Failure.UNREACHABLE || e.failure() == ServerException.Failure.BROKEN) {
            avoided.avoid(sequencer);
        }
    }

    static boolean sameNode(URI one, URI other) {
        return trimmed(one.toString()).equalsIgnoreCase(trimmed(other.toString()));
    }

    static String trimmed(String uri) {
        return uri.endsWith("/") ? uri.substring(0, uri.length() - 1) : uri;
    }

    /** One partition's share of a request: its NDJSON and where each event was in the whole body. */
    private static final class Part {
        final int partition;
        final ByteArrayOutputStream body = new ByteArrayOutputStream();
        final List<Integer> indexes = new ArrayList<>();
        final List<Integer> lines = new ArrayList<>();

        Part(int partition) {
            this.partition = partition;
        }

        void add(byte[] whole, int from, int to, int index, int line) {
            body.write(whole, from, to - from);
            body.write('\n');
            indexes.add(index);
            lines.add(line);
        }
    }
}
