package dev.interlace.runtime.log;

import com.fasterxml.jackson.core.JsonToken;
import dev.interlace.runtime.stream.Column;
import dev.interlace.runtime.stream.ColumnType;
import dev.interlace.runtime.stream.DecodeResult;
import dev.interlace.runtime.stream.StreamDescriptor;
import dev.interlace.runtime.stream.StreamEvent;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What the SQLite log's own tests append: the {@code orders} stream, requests of its events, and watermarks that hold
 * nothing back.
 */
public final class OrdersFixture {

    /**
     * {@code orders}: one column, {@code id}, its idempotency key. The log never decodes; a flush decodes what it reads
     * from the log back into that column.
     */
    public static final StreamDescriptor ORDERS = StreamDescriptor.builder("orders")
            .column(Column.of("id", ColumnType.STRING, true))
            .idempotencyKey("id")
            .retention("1h", 3_600_000L)
            .schemaVersion("v1")
            .declaredBy("test.Orders")
            .decoder(parser -> {
                String id = null;
                while (parser.nextToken() == JsonToken.FIELD_NAME) {
                    parser.nextToken();
                    id = parser.getText();
                }
                String value = id;
                return new DecodeResult.Valid<StreamEvent>(index -> value, Map.of());
            })
            .build();

    /** Nothing materialised yet: the log keeps every event. */
    public static final Watermarks NOTHING_MATERIALISED = new Watermarks() {
        @Override
        public long events(String stream) {
            return 0;
        }

        @Override
        public long quarantine(String stream) {
            return 0;
        }
    };

    private OrdersFixture() {}

    /** One request to {@code orders} of an event {@code {"id":"<key>"}} per key, published at {@code micros}. */
    public static AppendRequest request(long micros, String... keys) {
        List<AppendRequest.Entry> entries = new ArrayList<>();
        for (String key : keys) {
            entries.add(new AppendRequest.Event(("{\"id\":\"" + key + "\"}").getBytes(StandardCharsets.UTF_8), key));
        }
        return new AppendRequest("orders", "req-" + String.join("-", keys), micros, "v1", entries);
    }
}
