package dev.interlace.runtime.ingest;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;

/**
 * The canonical text of a typed key value, so that equal values deduplicate however they were written: {@code 49.5}
 * and {@code "49.50"} in a {@code decimal(12,2)} key, or the same instant written with different UTC offsets.
 */
final class IdempotencyKeys {

    private IdempotencyKeys() {}

    /** The canonical text, or null when the event has no key value (it is then not deduplicated). */
    static String canonical(Object value) {
        if (value == null) {
            return null;
        }
        if (value instanceof String text) {
            return text;
        }
        if (value instanceof BigDecimal decimal) {
            return decimal.toPlainString();
        }
        if (value instanceof Long || value instanceof Instant || value instanceof LocalDate) {
            return value.toString();
        }
        throw new IllegalArgumentException("type " + value.getClass().getName() + " cannot be an idempotency key");
    }
}
