package dev.interlace.log.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.runtime.log.AppendRequest;
import dev.interlace.runtime.log.AppendResult;
import dev.interlace.runtime.log.Watermarks;
import dev.interlace.runtime.stream.Column;
import dev.interlace.runtime.stream.ColumnType;
import dev.interlace.runtime.stream.StreamDescriptor;
import dev.interlace.runtime.testing.Eventually;
import dev.interlace.log.kafka.testing.KafkaCluster;
import dev.interlace.runtime.dedup.DedupIndex;
import dev.interlace.runtime.log.LogSettings;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * The stream the tests of the Kafka log publish to, {@code orders} keyed by {@code id}, watermarks that count
 * everything as flushed (so that nothing is held back by backpressure) or nothing, and their publishes of one event.
 */
final class KeyedOrders {

    static final Watermarks EVERYTHING_FLUSHED = flushedThrough(Long.MAX_VALUE / 4);
    /** Watermarks of a node that flushed nothing: backpressure counts every event as pending. */
    static final Watermarks NOTHING_FLUSHED = flushedThrough(0);

    private KeyedOrders() {}

    /** A publish to {@code orders} of one event keyed {@code key}, under a request id of its own. */
    static AppendRequest request(String key) {
        return new AppendRequest("orders", "req-" + UUID.randomUUID(), System.currentTimeMillis() * 1_000, "v1",
                List.of(new AppendRequest.Event(("{\"id\":\"" + key + "\"}").getBytes(StandardCharsets.UTF_8),
                        key)));
    }

    /** Appends {@link #request} of {@code key} once the node sequences the stream (a takeover under way fails it). */
    static AppendResult appendUntilServed(KafkaStreamLog log, String key) {
        return Eventually.retrying("the node sequences the stream", Duration.ofSeconds(60), ExecutionException.class,
                () -> log.append(request(key)).get(30, TimeUnit.SECONDS));
    }

    /** The one entry of a committed append. */
    static AppendResult.EntryResult entry(AppendResult result) {
        assertThat(result).isInstanceOf(AppendResult.Committed.class);
        return ((AppendResult.Committed) result).entries().get(0);
    }

    /** Watermarks that count every stream as flushed through {@code through}, its events and its quarantine. */
    private static Watermarks flushedThrough(long through) {
        return new Watermarks() {
            @Override
            public long events(String stream) {
                return through;
            }

            @Override
            public long quarantine(String stream) {
                return through;
            }
        };
    }

    /**
     * A Kafka log on the shared broker under {@code prefix}, with everything flushed, its data in {@code data}: node
     * {@code http://<node>.test}, sequencing streams if {@code sequences}, sealing a key segment every
     * {@code recentKeys} keys.
     */
    static KafkaStreamLog log(String prefix, Path data, String node, boolean sequences, int recentKeys) {
        return new KafkaStreamLog(new KafkaLogSettings(KafkaCluster.shared().bootstrap(), prefix, 1, 1,
                "http://" + node + ".test", Duration.ofSeconds(6), Duration.ofSeconds(20), sequences, data),
                LogSettings.defaults(100_000).withDedup(new DedupIndex.Settings(recentKeys, 2)), EVERYTHING_FLUSHED,
                Clock.systemUTC());
    }

    /** A topic prefix no other test (or run) uses: {@code <test>-<8 random hex digits>.}. */
    static String prefix(String test) {
        return test + "-" + UUID.randomUUID().toString().substring(0, 8) + ".";
    }

    /** {@code orders}, declared by {@code test}; a log never decodes it. */
    static StreamDescriptor declaredBy(Class<?> test) {
        return keyed("orders", 1, test);
    }

    /** {@code stream} of {@code partitions} partitions, keyed by {@code id} as orders is, declared by {@code test}. */
    static StreamDescriptor keyed(String stream, int partitions, Class<?> test) {
        return StreamDescriptor.builder(stream)
                .column(Column.of("id", ColumnType.STRING, true)).idempotencyKey("id").schemaVersion("v1")
                .partitions(partitions).declaredBy(test.getName())
                .decoder(parser -> {
                    throw new UnsupportedOperationException("a log never decodes");
                }).build();
    }
}
