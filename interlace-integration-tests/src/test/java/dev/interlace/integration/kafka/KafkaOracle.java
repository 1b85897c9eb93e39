package dev.interlace.integration.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.interlace.integration.crash.DurabilityOracle;
import dev.interlace.integration.crash.Ledger;
import dev.interlace.log.kafka.StreamTopic;
import dev.interlace.runtime.stream.StreamPartitions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The oracle of the Kafka failure tests, the SQLite crash tests' ({@link DurabilityOracle}) on a stream's topic: every
 * acknowledged key is stored exactly once (in the stream's topic, and in {@code streams.orders} of a warehouse when
 * one is given), at the offset its 200 reported; offsets are dense from 1 to the head; re-publishing any
 * acknowledged key on any node answers {@code deduplicated} with its original offset.
 *
 * @param bootstrap the cluster's brokers
 * @param prefix the prefix of the stream topics' names: the oracle reads {@code <prefix>orders}
 * @param random picks the sample of acknowledged keys published again
 */
record KafkaOracle(String bootstrap, String prefix, Random random) {

    /** What the oracle found, by copy checked. */
    record Findings(Map<String, String> reports, List<String> problems) {
        @Override
        public String toString() {
            StringBuilder text = new StringBuilder();
            reports.forEach((what, report) -> text.append(what).append(": ").append(report).append('\n'));
            return text.toString();
        }
    }

    /**
     * Checks the stream's topic and, when {@code warehouse} is given, its {@code streams.orders} (once it has caught
     * up with the head) against the ledger, then re-publishes every acknowledged key on each of {@code nodes}.
     */
    Findings check(Ledger ledger, List<ServeNode> nodes, ServeNode warehouse) throws Exception {
        Map<String, String> reports = new LinkedHashMap<>();
        List<String> problems = new ArrayList<>(ledger.anomalies());
        // A node that does not sequence the stream knows its head from tailing the topic, a moment behind the
        // sequencer's answers: the head is read once that node has seen every acknowledged offset.
        long acknowledgedHead = ledger.acknowledged().values().stream().mapToLong(Ledger.Ack::offset).max().orElse(0);
        long head = nodes.get(0).await("/streams/orders", body -> body.path("head").asLong() >= acknowledgedHead)
                .get("head").asLong();

        List<DurabilityOracle.StoredEvent> topic = new ArrayList<>();
        for (StreamTopic.Event event : StreamTopic.read(bootstrap, prefix, "orders")) {
            topic.add(new DurabilityOracle.StoredEvent(event.offset(), event.key(), event.requestId(),
                    ServeNode.JSON.readTree(event.payload()).path("order_id").asText(null)));
        }
        report(reports, problems, "topic " + prefix + "orders",
                DurabilityOracle.checkEvents(ledger, "the topic", topic, head, null));

        if (warehouse != null) {
            JsonNode stream = warehouse.await("/streams/orders", body -> body.path("watermark").asLong() >= head);
            if (stream.path("watermark").asLong() < head) {
                problems.add("the warehouse did not catch up with head " + head + ": " + stream);
            }
            report(reports, problems, "streams.orders at " + warehouse.uri,
                    DurabilityOracle.checkEvents(ledger, "streams.orders", warehouseRows(warehouse), head, null));
        }
        republish(ledger, nodes, reports, problems);
        return new Findings(reports, problems);
    }

    /**
     * The same on {@code orders} of {@code partitions} partitions, partition by partition: every acknowledged key is
     * stored exactly once in the partition its 200 named (the one its key hashes to), at the offset its 200 reported
     * in that partition's topic; each partition's offsets are dense from 1 to its head; no key is stored in a
     * partition it does not hash to; re-publishing every acknowledged key on each of {@code nodes} answers it
     * deduplicated in its partition at its offset.
     */
    Findings checkPartitioned(Ledger ledger, int partitions, List<ServeNode> nodes) throws Exception {
        Map<String, String> reports = new LinkedHashMap<>();
        List<String> problems = new ArrayList<>(ledger.anomalies());
        for (Map.Entry<String, Ledger.Ack> entry : ledger.acknowledged().entrySet()) {
            int expected = StreamPartitions.partitionOfKey(entry.getKey(), partitions);
            if (entry.getValue().partition() != expected) {
                problems.add(entry.getKey() + " acknowledged in partition " + entry.getValue().partition()
                        + ", its key hashes to " + expected);
            }
        }
        for (int p = 0; p < partitions; p++) {
            int partition = p;
            Ledger part = ledger.inPartition(p);
            long acknowledgedHead = part.acknowledged().values().stream().mapToLong(Ledger.Ack::offset).max()
                    .orElse(0);
            // The node asked knows the heads of partitions it does not sequence from tailing their topics.
            long head = nodes.get(0).await("/streams/orders", body -> body.path("by_partition").path(partition)
                    .path("head").asLong() >= acknowledgedHead).path("by_partition").path(partition).path("head")
                    .asLong();
            String logStream = StreamPartitions.logStream("orders", p);
            List<DurabilityOracle.StoredEvent> topic = new ArrayList<>();
            for (StreamTopic.Event event : StreamTopic.read(bootstrap, prefix, logStream)) {
                topic.add(new DurabilityOracle.StoredEvent(event.offset(), event.key(), event.requestId(),
                        ServeNode.JSON.readTree(event.payload()).path("order_id").asText(null)));
                if (event.key() != null && StreamPartitions.partitionOfKey(event.key(), partitions) != p) {
                    problems.add(event.key() + " stored in partition " + p + " at offset " + event.offset()
                            + ", its key hashes to another");
                }
            }
            report(reports, problems, "topic " + prefix + logStream,
                    DurabilityOracle.checkEvents(part, "the topic of partition " + p, topic, head, null));
        }
        republish(ledger, nodes, reports, problems);
        return new Findings(reports, problems);
    }

    /** Re-publishes every acknowledged key on each of {@code nodes} ({@link DurabilityOracle#republished}). */
    private void republish(Ledger ledger, List<ServeNode> nodes, Map<String, String> reports, List<String> problems)
            throws Exception {
        for (ServeNode node : nodes) {
            try {
                report(reports, problems, "re-published at " + node.uri,
                        DurabilityOracle.republished(ledger, node.uri, random));
            } catch (IllegalStateException refused) {
                // A re-publish that is not answered 200 breaks the contract too (the stream may be corrupt).
                reports.put("re-published at " + node.uri, refused.getMessage());
                problems.add("re-publishing at " + node.uri + ": " + refused.getMessage());
            }
        }
    }

    private static void report(Map<String, String> reports, List<String> problems, String what,
            DurabilityOracle.Report report) {
        reports.put(what, report.toString());
        if (!report.isClean()) {
            problems.add(what + ": " + report);
        }
    }

    /** Every row of {@code streams.orders}, read through {@code /sql} a page at a time. */
    private static List<DurabilityOracle.StoredEvent> warehouseRows(ServeNode warehouse) {
        List<DurabilityOracle.StoredEvent> rows = new ArrayList<>();
        int page = 10_000;
        for (int from = 0; ; from += page) {
            ServeNode.Response answer = warehouse.sql("SELECT _offset, order_id, _request_id FROM streams.orders"
                    + " ORDER BY _offset, order_id LIMIT " + page + " OFFSET " + from);
            assertThat(answer.status()).as(String.valueOf(answer.body())).isEqualTo(200);
            for (JsonNode row : answer.body().get("rows")) {
                rows.add(new DurabilityOracle.StoredEvent(row.get(0).asLong(), row.get(1).asText(),
                        row.get(2).asText(), row.get(1).asText()));
            }
            if (answer.body().get("rows").size() < page) {
                return rows;
            }
        }
    }
}
