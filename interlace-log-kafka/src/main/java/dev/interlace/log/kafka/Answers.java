package dev.interlace.log.kafka;

import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;

/**
 * When the cluster last answered one of this node's Kafka clients, as counted by the client's own meters of
 * responses (a heartbeat answered, a fetch answered): how a component that asks the cluster something every second
 * tells, without traffic of its own, that nothing comes back (a network partition, brokers stopped). The meters are
 * read by any thread (a client's metrics may be read while another thread uses the client): the owning thread after
 * each poll, and whoever asks {@link #silentNanos}, so that an owner held up elsewhere does not look like silence.
 */
final class Answers {

    private final Supplier<Map<MetricName, ? extends Metric>> metrics;
    private final String group;
    private final List<String> meters;
    /** The client's meters found at the first look that found them all; the client keeps them while it lives. */
    private List<Metric> found = List.of();
    private double counted = -1;
    private volatile long answeredAt = System.nanoTime();

    /**
     * Counts the responses of the meters named {@code meters} (cumulative totals) of metric group {@code group} in
     * the client's {@code metrics}.
     */
    Answers(Supplier<Map<MetricName, ? extends Metric>> metrics, String group, String... meters) {
        this.metrics = metrics;
        this.group = group;
        this.meters = List.of(meters);
    }

    /** Looks whether the client got an answer since the last look. */
    synchronized void observe() {
        try {
            if (found.size() < meters.size()) {
                found = metrics.get().entrySet().stream().filter(metric -> metric.getKey().group().equals(group)
                        && meters.contains(metric.getKey().name())).map(Map.Entry::getValue)
                        .map(Metric.class::cast).toList();
            }
        } catch (RuntimeException closed) {
            return; // a client being closed has no meters to read: no answer either
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
        observe();
        return System.nanoTime() - answeredAt;
    }
}
