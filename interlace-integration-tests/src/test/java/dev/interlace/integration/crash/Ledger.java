package dev.interlace.integration.crash;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * What the clients were told, across every crash of one data directory: each key whose request got a 200 (with the
 * offset and request id the response implies), the keys of each request that got no answer (in doubt: stored or
 * not, but all or nothing), and every answer that breaks the contract on its own. Thread-safe: the load's client
 * threads write it concurrently.
 */
public final class Ledger {

    /**
     * An acknowledged key.
     *
     * @param offset the offset the 200 reported for it
     * @param requestId the request that stored it, or null when a retry learned it was already stored by a request
     *     whose answer was lost
     * @param partition the partition of the stream the 200 reported it in (0 for a stream of one partition)
     */
    public record Ack(long offset, String requestId, int partition) {}

    private final Map<String, Ack> acknowledged = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<List<String>> inDoubt = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<String> anomalies = new ConcurrentLinkedQueue<>();

    public void acknowledge(String key, long offset, String requestId) {
        acknowledge(key, 0, offset, requestId);
    }

    /** A key acknowledged in {@code partition} of a partitioned stream, at {@code offset} of that partition. */
    public void acknowledge(String key, int partition, long offset, String requestId) {
        Ack previous = acknowledged.putIfAbsent(key, new Ack(offset, requestId, partition));
        if (previous != null) {
            anomaly("key " + key + " acknowledged twice: at offset " + previous.offset() + " of partition "
                    + previous.partition() + " and " + offset + " of partition " + partition);
        }
    }

    /** A ledger of the keys acknowledged in {@code partition} only (no doubts, no anomalies): its oracle's input. */
    public Ledger inPartition(int partition) {
        Ledger part = new Ledger();
        acknowledged.forEach((key, ack) -> {
            if (ack.partition() == partition) {
                part.acknowledged.put(key, ack);
            }
        });
        return part;
    }

    /** A request got no answer: its keys may all be stored or none may be (a request is atomic). */
    public void doubt(List<String> keys) {
        inDoubt.add(List.copyOf(keys));
    }

    public void anomaly(String description) {
        anomalies.add(description);
    }

    public Map<String, Ack> acknowledged() {
        return Map.copyOf(acknowledged);
    }

    public int acknowledgedCount() {
        return acknowledged.size();
    }

    /** Removes and returns the keys of every unanswered request, grouped by request. */
    public List<List<String>> takeInDoubt() {
        List<List<String>> requests = new ArrayList<>();
        List<String> keys;
        while ((keys = inDoubt.poll()) != null) {
            requests.add(keys);
        }
        return requests;
    }

    /** Answers that break the contract on their own (a non-200 that was not expected, counts that do not add up). */
    public List<String> anomalies() {
        return new ArrayList<>(anomalies);
    }
}
