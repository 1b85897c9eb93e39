package dev.interlace.log.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.runtime.log.AppendRequest;
import dev.interlace.runtime.log.AppendResult;
import dev.interlace.runtime.log.Watermarks;
import dev.interlace.runtime.stream.Column;
import dev.interlace.runtime.stream.ColumnType;
import dev.interlace.runtime.stream.StreamDescriptor;
import dev.interlace.runtime.testing.Eventually;
import java.nio.charset.StandardCharsets;
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

    /** {@code orders}, declared by {@code test}; a log never decodes it. */
    static StreamDescriptor declaredBy(Class<?> test) {
        return StreamDescriptor.builder("orders")
                .column(Column.of("id", ColumnType.STRING, true)).idempotencyKey("id").schemaVersion("v1")
                .declaredBy(test.getName())
                .decoder(parser -> {
                    throw new UnsupportedOperationException("a log never decodes");
                }).build();
    }
}
