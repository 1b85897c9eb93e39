package dev.interlace.runtime.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.interlace.runtime.stream.Column;
import dev.interlace.runtime.stream.ColumnType;
import dev.interlace.runtime.stream.StreamDescriptor;
import java.math.BigDecimal;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** A key looked up as text canonicalises to what publishing stored for the same value. */
class IdempotencyKeysTest {

    private static StreamDescriptor keyedBy(Column key) {
        return StreamDescriptor.builder("payments").column(key).idempotencyKey(key.name())
                .retention("1h", 3_600_000L).schemaVersion("v1").declaredBy("test.Payments")
                .decoder(parser -> {
                    throw new UnsupportedOperationException("not decoded here");
                })
                .build();
    }

    @Test
    void aDecimalKeyWrittenAsTextIsTheCanonicalTextPublishingStores() {
        StreamDescriptor stream = keyedBy(Column.decimal("amount", 12, 2, true));
        assertThat(IdempotencyKeys.canonical(stream, "49.50"))
                .isEqualTo(IdempotencyKeys.canonical(new BigDecimal("49.50")));
        assertThat(IdempotencyKeys.canonical(stream, "49.5")).isEqualTo("49.50");
    }

    @Test
    void aTimestampKeyWithAnOffsetIsTheSameInstantInUtc() {
        StreamDescriptor stream = keyedBy(Column.of("at", ColumnType.TIMESTAMP, true));
        assertThat(IdempotencyKeys.canonical(stream, "2026-11-29T09:00:00+01:00"))
                .isEqualTo(IdempotencyKeys.canonical(Instant.parse("2026-11-29T08:00:00Z")));
    }

    @Test
    void aTextKeyIsItselfAndABigintKeyMustBeANumber() {
        assertThat(IdempotencyKeys.canonical(keyedBy(Column.of("id", ColumnType.STRING, true)), "a \"quoted\" id"))
                .isEqualTo("a \"quoted\" id");
        StreamDescriptor bigint = keyedBy(Column.of("id", ColumnType.BIGINT, true));
        assertThat(IdempotencyKeys.canonical(bigint, "42")).isEqualTo("42");
        assertThatThrownBy(() -> IdempotencyKeys.canonical(bigint, "forty-two"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("key forty-two is not a valid");
    }
}
