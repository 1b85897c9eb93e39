package dev.interlace.client;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.util.Arrays;

/**
 * What a client needs to send a stream's events to the sequencer of each one's partition, as
 * {@code GET /streams/{name}} describes it: how many partitions, the field whose value chooses an event's partition
 * (the declared partition key, else the idempotency key, else none: round robin) and its type, and each partition's
 * sequencer (its advertised URL, null while no node holds it or on a log without sequencers).
 */
record StreamMap(int partitions, String field, String type, URI[] sequencers, long fetchedNanos) {

    /** The map of a {@code GET /streams/{name}} answer; null when it does not describe a declared stream. */
    static StreamMap of(JsonNode described, long nowNanos) {
        if (!described.path("partitions").isInt() || described.get("partitions").asInt() < 1) {
            return null;
        }
        int partitions = described.get("partitions").asInt();
        String field = described.path("partition_key").isTextual() ? described.get("partition_key").asText()
                : described.path("idempotency_key").isTextual() ? described.get("idempotency_key").asText() : null;
        String type = field == null ? null : described.path("schema").path(field).asText("").split(" ")[0];
        URI[] sequencers = new URI[partitions];
        if (described.path("by_partition").isArray() && described.get("by_partition").size() > 0) {
            for (JsonNode partition : described.get("by_partition")) {
                int p = partition.path("partition").asInt(-1);
                if (p >= 0 && p < partitions) {
                    sequencers[p] = uri(partition.path("sequencer"));
                }
            }
        } else {
            sequencers[0] = uri(described.path("sequencer"));
        }
        return new StreamMap(partitions, field, type, sequencers, nowNanos);
    }

    private static URI uri(JsonNode sequencer) {
        if (!sequencer.isTextual()) {
            return null;
        }
        try {
            URI uri = URI.create(sequencer.asText().strip());
            return uri.isAbsolute() && uri.getHost() != null ? uri : null;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /** Whether some partition has a sequencer: the stream is on a log that has them (a cluster). */
    boolean sequenced() {
        return Arrays.stream(sequencers).anyMatch(java.util.Objects::nonNull);
    }

    /**
     * The canonical text of the value that chooses {@code event}'s partition, as the server reads it; null when the
     * event has none (round robin); {@link #UNKNOWN} when this client cannot tell how the server would read it (a key
     * of a type other than {@code string} and {@code bigint}, a value of the wrong type: the server then decides).
     */
    String canonicalKey(JsonNode event) {
        if (field == null) {
            return null;
        }
        JsonNode value = event.get(field);
        if (value == null || value.isNull()) {
            return null;
        }
        return switch (type) {
            case "string" -> value.isTextual() ? value.asText() : UNKNOWN;
            case "bigint" -> value.isIntegralNumber() && value.canConvertToLong() ? Long.toString(value.asLong())
                    : UNKNOWN;
            default -> UNKNOWN;
        };
    }

    /** The {@link #canonicalKey} of an event whose partition this client cannot choose. */
    static final String UNKNOWN = new String("unknown");

    @Override
    public boolean equals(Object other) {
        return this == other;
    }

    @Override
    public int hashCode() {
        return System.identityHashCode(this);
    }

    @Override
    public String toString() {
        return "StreamMap[partitions=" + partitions + ", field=" + field + ", sequencers="
                + Arrays.toString(sequencers) + "]";
    }
}
