package dev.interlace.integration.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.interlace.runtime.stream.StreamPartitions;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The quarantine the partitioned replay tests start from, and what replaying it must give, on one server or on a
 * cluster. Twelve valid visits ({@code ok-0} to {@code ok-11}) are stored first; then twenty visits of new keys
 * ({@code q-0} to {@code q-19}) and two of stored keys ({@code ok-3}, {@code ok-7}) are quarantined, because they carry
 * a {@code referrer} the schema does not declare yet. Once it does, a replay of all of them accepts entries 1 to 20 in
 * their keys' partitions, densely after each partition's head, and answers 21 and 22 deduplicated where the stored
 * ones are.
 */
public final class QuarantinedVisits {

    /** How many visits are stored before the quarantine. */
    public static final int STORED = 12;
    /** How many entries the quarantine holds: twenty new keys and two stored ones. */
    public static final int QUARANTINED = 22;

    private QuarantinedVisits() {}

    /** The NDJSON of the stored visits. */
    public static String stored() {
        StringBuilder body = new StringBuilder();
        for (int i = 0; i < STORED; i++) {
            body.append("{\"visit_id\":\"ok-").append(i).append("\",\"page\":\"/\"}\n");
        }
        return body.toString();
    }

    /** Where each stored visit went ({@code {partition, offset}} by key), from the verbose answer that stored them. */
    public static Map<String, long[]> positions(JsonNode verboseAnswer) {
        Map<String, long[]> positions = new HashMap<>();
        for (int i = 0; i < STORED; i++) {
            JsonNode result = verboseAnswer.get("results").get(i);
            positions.put("ok-" + i, new long[] {result.get("partition").asLong(), result.get("offset").asLong()});
        }
        return positions;
    }

    /** The NDJSON of the visits the schema quarantines: twenty new keys, then {@code ok-3} and {@code ok-7}. */
    public static String quarantined() {
        StringBuilder body = new StringBuilder();
        for (int i = 0; i < 20; i++) {
            body.append("{\"visit_id\":\"q-").append(i).append("\",\"page\":\"/q\",\"referrer\":\"r\"}\n");
        }
        body.append("{\"visit_id\":\"ok-3\",\"page\":\"/\",\"referrer\":\"r\"}\n");
        body.append("{\"visit_id\":\"ok-7\",\"page\":\"/\",\"referrer\":\"r\"}\n");
        return body.toString();
    }

    /**
     * Asserts the {@code results} of replaying the whole quarantine of a stream of {@code partitions} partitions whose
     * heads were {@code headsBefore} ({@code by_partition}), with the stored visits at {@code stored}; returns where
     * each entry went ({@code partition:offset} by seq), which every later listing and replay must repeat.
     */
    public static Map<Long, String> assertReplayed(JsonNode results, JsonNode headsBefore, Map<String, long[]> stored,
            int partitions) {
        Map<Integer, TreeSet<Long>> offsets = new TreeMap<>();
        Map<Long, String> placed = new TreeMap<>();
        for (JsonNode result : results) {
            long seq = result.get("seq").asLong();
            String key = seq <= 20 ? "q-" + (seq - 1) : seq == 21 ? "ok-3" : "ok-7";
            int partition = result.get("partition").asInt();
            assertThat(partition).as(key).isEqualTo(StreamPartitions.partitionOfKey(key, partitions));
            if (seq <= 20) {
                assertThat(result.get("status").asText()).isEqualTo("accepted");
                offsets.computeIfAbsent(partition, p -> new TreeSet<>()).add(result.get("offset").asLong());
            } else {
                assertThat(result.get("status").asText()).isEqualTo("deduplicated");
                assertThat(new long[] {partition, result.get("offset").asLong()}).as(key).isEqualTo(stored.get(key));
            }
            placed.put(seq, partition + ":" + result.get("offset").asLong());
        }
        // Each partition's new offsets follow its head, densely, whichever node appended them.
        offsets.forEach((partition, taken) -> {
            long head = headsBefore.get(partition).get("head").asLong();
            assertThat(taken.first()).as("partition " + partition).isEqualTo(head + 1);
            assertThat(taken.last()).isEqualTo(head + taken.size());
        });
        return placed;
    }
}
