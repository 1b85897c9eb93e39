package dev.interlace.client;

/**
 * One partition's share of a publish to a stream of several partitions (as the server answers it in
 * {@code partitions} and, for a request stored in part, {@code stored_partitions}).
 *
 * @param partition the partition, from 0
 * @param lastOffset the highest offset the share stored or found in the partition (offsets are per partition), or
 *     null when it had none (every event of it quarantined)
 * @param position where those events are in the partition's log, for {@link InterlaceClient#sql(String, String...)}
 *     to read after them; opaque, null when {@code lastOffset} is
 */
public record PartitionResult(int partition, Long lastOffset, String position) implements java.io.Serializable {

    /** Each item of a {@code partitions} (or {@code stored_partitions}) array of a server answer. */
    static java.util.List<PartitionResult> of(com.fasterxml.jackson.databind.JsonNode items) {
        java.util.List<PartitionResult> parts = new java.util.ArrayList<>();
        for (com.fasterxml.jackson.databind.JsonNode item : items) {
            parts.add(new PartitionResult(item.path("partition").asInt(),
                    item.path("last_offset").isNumber() ? item.get("last_offset").asLong() : null,
                    item.path("position").isTextual() ? item.get("position").asText() : null));
        }
        return java.util.List.copyOf(parts);
    }
}
