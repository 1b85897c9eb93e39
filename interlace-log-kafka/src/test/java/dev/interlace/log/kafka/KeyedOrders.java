package dev.interlace.log.kafka;

import dev.interlace.runtime.log.Watermarks;
import dev.interlace.runtime.stream.Column;
import dev.interlace.runtime.stream.ColumnType;
import dev.interlace.runtime.stream.StreamDescriptor;

/**
 * The stream the deduplication tests of the Kafka log publish to, {@code orders} keyed by {@code id}, and watermarks
 * that count everything as flushed, so that nothing is held back by backpressure.
 */
final class KeyedOrders {

    static final Watermarks EVERYTHING_FLUSHED = new Watermarks() {
        @Override
        public long events(String stream) {
            return Long.MAX_VALUE / 4;
        }

        @Override
        public long quarantine(String stream) {
            return Long.MAX_VALUE / 4;
        }
    };

    private KeyedOrders() {}

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
