package dev.interlace.log.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.runtime.log.PublishRecord;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A publish record goes on the topic as the JSON the generic writer makes of it, byte for byte, though it is written
 * field by field: nodes of the previous release read it, and this one reads theirs. Its key is
 * {@code <stream>/<uuid>}, unique.
 */
class PublishRecordCodecTest {

    @Test
    void theRecordIsWrittenAsTheGenericWriterWritesItAndReadBackEqual() throws Exception {
        List<PublishRecord> records = List.of(
                new PublishRecord("req-1", "orders", 1, 0, 0, 41, 41, List.of(), 0, 0, 1_765_000_000_000_000L,
                        1_765_000_000_002_500L, "k_123", "ingest", "0af7651916cd43dd8448eb211c80319c"),
                new PublishRecord("req \"quoted\" \\ é ✓ \u0001", "orders.p1", 3, 2, 1, 7, 9, List.of(2L, 5L), 4, 4,
                        -1, Long.MAX_VALUE, null, null, null),
                new PublishRecord(null, "s", 0, 0, 0, 0, 0, null, 0, 0, 0, 0, "", "", ""));
        for (PublishRecord record : records) {
            byte[] written = Codec.json(record);
            assertThat(new String(written, StandardCharsets.UTF_8))
                    .isEqualTo(new String(Codec.JSON.writeValueAsBytes(record), StandardCharsets.UTF_8));
            assertThat(Codec.json(written, PublishRecord.class)).isEqualTo(record);
        }
    }

    @Test
    void publishKeysAreTheStreamAndAVersion4UuidNeverTheSameTwice() {
        java.util.Set<String> keys = new java.util.HashSet<>();
        for (int i = 0; i < 100_000; i++) {
            String key = Codec.publishKey("orders.p1");
            assertThat(key).startsWith("orders.p1/");
            java.util.UUID uuid = java.util.UUID.fromString(key.substring("orders.p1/".length()));
            assertThat(uuid.version()).isEqualTo(4);
            assertThat(uuid.variant()).isEqualTo(2);
            assertThat(keys.add(key)).as(key).isTrue();
        }
    }
}
