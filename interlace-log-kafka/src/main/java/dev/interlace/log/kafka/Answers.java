package dev.interlace.log.kafka;

import java.util.List;
import java.util.Map;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;

/**
 * When the cluster last answered one of this node's Kafka clients, as counted by the client's own meters of
 * responses (a heartbeat answered, a fetch answered): how a component that asks the cluster something every second
 * tells, without traffic of its own, that nothing comes back (a network partition, brokers stopped). The client's
 * owning thread {@linkplain #observe observes} the meters after each poll; any thread reads {@link #silentNanos}.
 */
final class Answers {

    private final String group;
    private final List<String> meters;
    /** The client's meters found at the first look that found them all; the client keeps them while it lives. */
    private List<Metric> found = List.of();
    private double counted = -1;
    private volatile long answeredAt = System.nanoTime();

    /** Counts the responses of the meters named {@code meters} (cumulative totals) of metric group {@code group}. */
    Answers(String group, String... meters) {
        this.group = group;
        this.meters = List.of(meters);
    }

    /** Looks whether the client got an answer since the last look; only on the thread that owns the client. */
    void observe(java.util.function.Supplier<Map<MetricName, ? extends Metric>> metrics) {
        if (found.size() < meters.size()) {
            found = metrics.get().entrySet().stream().filter(metric -> metric.getKey().group().equals(group)
                    && meters.contains(metric.getKey().name())).map(Map.Entry::getValue).map(Metric.class::cast)
                    .toList();
        }
        double total = 0;
        for (Metric metric : found) {
            if (metric.metricValue() instanceof Double value) {
                total += value;
            }
        }
        if (total != counted) {
            counted = total;
            answeredAt = System.nanoTime();
        }
    }

    /** Something answered the client just now (e.g. a rebalance that assigned it partitions). */
    void answered() {
        answeredAt = System.nanoTime();
    }

    /** How long the cluster has left the client unanswered; counted from the client's start before any answer. */
    long silentNanos() {
        return System.nanoTime() - answeredAt;
    }
}
