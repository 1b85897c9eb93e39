package dev.interlace.runtime.http;

import dev.interlace.runtime.ingest.PublishOutcome;
import dev.interlace.runtime.log.AppendResult;
import dev.interlace.runtime.ops.Metrics;
import dev.interlace.runtime.stream.StreamCatalog;
import dev.interlace.runtime.stream.StreamDescriptor;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Publishing as meters, per declared stream: latency of durable publishes, events by outcome and refused requests by
 * status. Every stream's meters exist from start-up and are found with one map lookup per request; nothing is looked
 * up by tags on the publish path.
 */
@Singleton
final class PublishMetrics {

    private final MeterRegistry registry;
    private final Map<String, StreamMeters> streams;
    private final Counter undeclared;

    @Inject
    PublishMetrics(MeterRegistry registry, StreamCatalog catalog) {
        this.registry = registry;
        Map<String, StreamMeters> meters = new HashMap<>();
        for (StreamDescriptor stream : catalog.streams()) {
            meters.put(stream.name(), new StreamMeters(registry, stream.name()));
        }
        this.streams = Map.copyOf(meters);
        this.undeclared = Counter.builder("interlace.publish.unknown.stream")
                .description("Publish requests to a stream that is not declared (404 unknown_stream)")
                .register(registry);
    }

    /** Counts the events of an outcome the publisher decided, before it is answered. */
    void decided(String stream, PublishOutcome outcome) {
        StreamMeters meters = streams.get(stream);
        if (meters == null) {
            return;
        }
        if (outcome instanceof PublishOutcome.Published published) {
            long accepted = 0;
            long duplicates = 0;
            long quarantined = 0;
            List<AppendResult.EntryResult> results = published.results();
            for (int i = 0; i < results.size(); i++) {
                switch (results.get(i).status()) {
                    case ACCEPTED -> accepted++;
                    case DUPLICATE -> duplicates++;
                    case QUARANTINED -> quarantined++;
                }
            }
            add(meters.accepted, accepted);
            add(meters.deduplicated, duplicates);
            add(meters.quarantined, quarantined);
        } else if (outcome instanceof PublishOutcome.SchemaViolation violation) {
            add(meters.rejected, violation.rejectedEvents());
        }
    }

    /**
     * Counts a publish answer by the key that sent it ({@code none} without one): {@code
     * interlace_publish_requests_total{key, stream, status}}. Declared streams only, so the labels stay few.
     */
    void answeredBy(String stream, String key, int status) {
        StreamMeters meters = streams.get(stream);
        if (meters == null || status < 100 || status > 599) {
            return;
        }
        meters.answeredBy(registry, key, status).increment();
    }

    /**
     * Records a publish request that was answered with {@code status}: its latency when it was a 200, else the
     * refusal. A request that got no answer (the connection failed first) has status -1 and is not recorded.
     */
    void answered(String stream, int status, long durationNanos) {
        StreamMeters meters = streams.get(stream);
        if (meters == null) {
            if (status == 404) {
                undeclared.increment();
            }
            return;
        }
        if (status == 200) {
            meters.latency.record(durationNanos, TimeUnit.NANOSECONDS);
        } else if (status >= 400 && status < 600) {
            meters.refused(registry, status).increment();
        }
    }

    private static void add(Counter counter, long amount) {
        if (amount > 0) {
            counter.increment(amount);
        }
    }

    /** One stream's meters. */
    private static final class StreamMeters {
        final String stream;
        final Timer latency;
        final Counter accepted;
        final Counter deduplicated;
        final Counter quarantined;
        final Counter rejected;
        /** Refusals by status - 400, registered the first time a status occurs. */
        final AtomicReferenceArray<Counter> refused = new AtomicReferenceArray<>(200);
        /** Answers by key name, then by status - 100: two lookups without building a string per request. */
        final Map<String, AtomicReferenceArray<Counter>> byKey = new java.util.concurrent.ConcurrentHashMap<>();

        StreamMeters(MeterRegistry registry, String stream) {
            this.stream = stream;
            latency = Timer.builder("interlace.publish.duration")
                    .description("Time from receiving a publish request to its 200 (events durable) being sent")
                    .tag("stream", stream)
                    .serviceLevelObjectives(Metrics.latencyBuckets())
                    .register(registry);
            accepted = events(registry, stream, "accepted");
            deduplicated = events(registry, stream, "deduplicated");
            quarantined = events(registry, stream, "quarantined");
            rejected = events(registry, stream, "rejected");
        }

        Counter answeredBy(MeterRegistry registry, String key, int status) {
            AtomicReferenceArray<Counter> byStatus = byKey.computeIfAbsent(key,
                    name -> new AtomicReferenceArray<>(500));
            Counter counter = byStatus.get(status - 100);
            if (counter == null) {
                // Registering is idempotent, so two threads racing here end up with the same counter.
                counter = Counter.builder("interlace.publish.requests")
                        .description("publish requests answered, by API key (its name, never the secret), stream and"
                                + " status")
                        .tag("key", key).tag("stream", stream).tag("status", Integer.toString(status))
                        .register(registry);
                byStatus.set(status - 100, counter);
            }
            return counter;
        }

        Counter refused(MeterRegistry registry, int status) {
            Counter counter = refused.get(status - 400);
            if (counter == null) {
                // Registering is idempotent, so two threads racing here end up with the same counter.
                counter = Counter.builder("interlace.publish.refused")
                        .description("Publish requests answered with an error status; nothing of them was stored")
                        .tags("stream", stream, "status", Integer.toString(status))
                        .register(registry);
                refused.set(status - 400, counter);
            }
            return counter;
        }

        private static Counter events(MeterRegistry registry, String stream, String outcome) {
            return Counter.builder("interlace.events")
                    .description("Events of publish requests by outcome: accepted, deduplicated (acknowledged with"
                            + " the original offset), quarantined, or rejected (invalid, whole request refused 422)")
                    .tags("stream", stream, "outcome", outcome)
                    .register(registry);
        }
    }
}
